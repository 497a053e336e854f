package report

import (
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// notebookPy holds the Python source of the notebook's code cells, one
// section per cell, each begun by a line "# %% name".
//
//go:embed notebook.py
var notebookPy string

// pyCells maps a section name of notebook.py to its source.
var pyCells = parsePyCells(notebookPy)

// parsePyCells splits notebook.py at its "# %% name" lines (text before the
// first is a comment for maintainers and dropped) and trims each section's
// surrounding blank lines.
func parsePyCells(src string) map[string]string {
	out := map[string]string{}
	name := ""
	var b strings.Builder
	flush := func() {
		if name != "" {
			out[name] = strings.Trim(b.String(), "\n") + "\n"
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(src, "\n") {
		if n, ok := strings.CutPrefix(line, "# %% "); ok {
			flush()
			name = strings.TrimSpace(n)
			continue
		}
		b.WriteString(line)
	}
	flush()
	return out
}

// pyCell returns section name of notebook.py with each placeholder
// ("__RUN_DIR__", …) replaced by its value, a Python literal. It panics on
// an unknown section: the sections are fixed at build time, and the tests
// build every one.
func pyCell(name string, values map[string]string) string {
	src, ok := pyCells[name]
	if !ok {
		panic("report: notebook.py has no cell " + name)
	}
	for k, v := range values {
		src = strings.ReplaceAll(src, k, v)
	}
	return src
}

// pyString is s as a Python string literal (JSON strings are Python
// literals).
func pyString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// notebook is the nbformat 4.5 JSON of a Jupyter notebook.
type notebook struct {
	Cells         []any          `json:"cells"`
	Metadata      map[string]any `json:"metadata"`
	NBFormat      int            `json:"nbformat"`
	NBFormatMinor int            `json:"nbformat_minor"`
}

type nbMarkdown struct {
	ID       string         `json:"id"`
	CellType string         `json:"cell_type"`
	Metadata map[string]any `json:"metadata"`
	Source   []string       `json:"source"`
}

// nbCode is a code cell. ExecutionCount is always null: the stored outputs
// were computed by `mkpoe report`, not by running the cell.
type nbCode struct {
	ID             string         `json:"id"`
	CellType       string         `json:"cell_type"`
	Metadata       map[string]any `json:"metadata"`
	Source         []string       `json:"source"`
	ExecutionCount *int           `json:"execution_count"`
	Outputs        []nbOutput     `json:"outputs"`
}

type nbOutput struct {
	OutputType string         `json:"output_type"`
	Data       map[string]any `json:"data"`
	Metadata   map[string]any `json:"metadata"`
}

// textOutput is a display_data output shown as Markdown (and HTML if html
// is not ""), whose plain text is the Markdown: what the notebook's Text
// helper displays.
func textOutput(md, html string) nbOutput {
	data := map[string]any{"text/plain": lines(md), "text/markdown": lines(md)}
	if html != "" {
		data["text/html"] = lines(html)
	}
	return nbOutput{OutputType: "display_data", Data: data, Metadata: map[string]any{}}
}

// Notebook writes the report as a Jupyter notebook (nbformat 4.5, Python 3
// kernel) whose code cells rebuild every table and figure from the run
// directory with pandas and matplotlib (the sections of notebook.py), and
// hold as stored outputs what `mkpoe report` computed, so the file reads
// the same unexecuted:
//
//   - the accuracy table in the layout of the paper's Tables 2–5, the
//     kernel shares and the per-row details, formatted exactly as
//     table.md (the test executes the notebook and compares);
//   - the validation curves, the objective traces, the diagonal weights of
//     each K4 diagonal refit (Fig. 5, fig:diagmkl) and the map of the
//     learned space (Fig. 6, fig:embedding), plotted from fig-map.tsv, the
//     coordinates of the Go t-SNE;
//   - the task files as a DataFrame (no stored output: Go does not read
//     them), timings and versions.
//
// The first code cell sets RUN_DIR (default Options.NotebookRunDir); the
// notebook metadata records the source and config hash. Cell IDs are
// stable ("cell-01", …) so the file is reproducible.
func (rep *Report) Notebook(w io.Writer) error {
	s := rep.Run.Summary
	nb := notebook{NBFormat: 4, NBFormatMinor: 5, Metadata: map[string]any{
		"kernelspec":    map[string]any{"name": "python3", "display_name": "Python 3", "language": "python"},
		"language_info": map[string]any{"name": "python"},
		"mkpoe":         map[string]any{"source": rep.Source, "run_dir": rep.NotebookRunDir, "config_hash": s.ConfigHash},
	}}
	id := 0
	nextID := func() string { id++; return fmt.Sprintf("cell-%02d", id) }
	markdown := func(text string) {
		nb.Cells = append(nb.Cells, nbMarkdown{ID: nextID(), CellType: "markdown", Metadata: map[string]any{}, Source: lines(text)})
	}
	// code adds a code cell; name (if not "") goes to its metadata as
	// "mkpoe", for the tests and for readers of the JSON.
	code := func(name, src string, outs ...nbOutput) {
		meta := map[string]any{}
		if name != "" {
			meta["mkpoe"] = name
		}
		nb.Cells = append(nb.Cells, nbCode{ID: nextID(), CellType: "code", Metadata: meta, Source: lines(src), Outputs: append([]nbOutput{}, outs...)})
	}
	values := map[string]string{"__RUN_DIR__": pyString(rep.NotebookRunDir), "__CONFIG_HASH__": pyString(s.ConfigHash)}

	markdown(fmt.Sprintf("# %s\n\nReport of the run in `%s` (config hash `%s`), rebuilt from its result files by `mkpoe report`. "+
		"It reproduces the protocol of McFee & Lanckriet, \"Learning Multi-modal Similarity\", JMLR 12 (2011).\n\n"+
		"The code cells rebuild every table and figure from the run directory with pandas and matplotlib; "+
		"their stored outputs are what `mkpoe report` computed, so the notebook reads the same without running it. "+
		"Run all cells (Python 3 with numpy, pandas, matplotlib and ipykernel) to recompute them, change a plot and rerun, "+
		"or execute it from a shell: `jupyter nbconvert --to notebook --execute report.ipynb --output executed.ipynb`. "+
		"The first code cell says where the run directory is.", s.Name, rep.Source, s.ConfigHash))
	if w := rep.warningsMarkdown(); w != "" {
		markdown(w)
	}
	if d := rep.dataNotesMarkdown(); d != "" {
		markdown(d)
	}
	code("run_dir", pyCell("run_dir", values))
	code("setup", pyCell("setup", values))

	markdown("## Results")
	code("table", pyCell("table", values), textOutput(rep.Table.accuracyMarkdown(), rep.Table.accuracyHTML()))
	if len(rep.Table.Shares) > 0 {
		code("shares", pyCell("shares", values), textOutput(rep.Table.sharesMarkdown(), rep.Table.sharesHTML()))
	}
	if c := rep.claimsMarkdown(); c != "" {
		// The claims need the task files' outcomes and a bootstrap: kept
		// as the run computed them (summary.json "claims").
		markdown(strings.TrimPrefix(c, "\n"))
	}
	markdown("## Rows")
	code("details", pyCell("details", values), textOutput(rep.detailsMarkdown(), ""))
	markdown("## Tasks\n\nThe task files (`tasks/*.json`) as a DataFrame, `tasks`, checked against `summary.json`. " +
		"The Go report does not read them, so this cell has no stored output: run it.")
	code("tasks", pyCell("tasks", values))

	markdown("## Figures")
	weightsDefined := false
	for _, f := range rep.Figures {
		text := fmt.Sprintf("### %s\n\n%s", f.Title, f.Caption)
		var src string
		switch {
		case f.Name == "fig-validation", f.Name == "fig-objective":
			src = pyCell(f.Name, values)
		case strings.HasPrefix(f.Name, "fig-weights-"):
			call := fmt.Sprintf("show(plot_weights(%d, %d))  # %s, split %d\n", f.row, f.split, strings.ReplaceAll(s.Rows[f.row].Label, "\n", " "), f.split)
			if !weightsDefined {
				src = pyCell("fig-weights", values) + "\n\n" + call
				weightsDefined = true
			} else {
				src = call
			}
		case f.Name == "fig-map":
			text += "\n\nThe code cell plots the coordinates of this t-SNE, saved beside the notebook as `fig-map.tsv`; " +
				"t-SNE is not recomputed in Python. For another run, or without that file, it draws a PCA of the stored embedding instead."
			v := map[string]string{"__MAP_ROW__": fmt.Sprint(f.row), "__MAP_SPLIT__": fmt.Sprint(f.split)}
			for k, x := range values {
				v[k] = x
			}
			src = pyCell("fig-map", v)
		default:
			return fmt.Errorf("report: no notebook code for figure %s", f.Name)
		}
		markdown(text)
		code(f.Name, src, nbOutput{OutputType: "display_data", Metadata: map[string]any{},
			Data: map[string]any{"image/png": base64.StdEncoding.EncodeToString(rep.PNG[f.Name]), "text/plain": []string{"<" + f.Title + ">"}}})
	}
	markdown("## Timings")
	code("timings", pyCell("timings", values), textOutput(rep.timingsMarkdown(), ""))
	markdown("## Versions")
	code("versions", pyCell("versions", values), textOutput(rep.versionsMarkdown(), ""))
	if rep.Run.Config != "" {
		markdown("## Configuration\n\n```yaml\n" + strings.TrimRight(rep.Run.Config, "\n") + "\n```")
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	return enc.Encode(nb)
}

// lines splits text into notebook source lines, each but the last keeping
// its newline (the nbformat multiline-string convention).
func lines(text string) []string {
	if text == "" {
		return []string{}
	}
	parts := strings.SplitAfter(text, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}
