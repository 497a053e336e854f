package report

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// notebook is the nbformat 4.5 JSON of a Jupyter notebook.
type notebook struct {
	Cells         []nbCell       `json:"cells"`
	Metadata      map[string]any `json:"metadata"`
	NBFormat      int            `json:"nbformat"`
	NBFormatMinor int            `json:"nbformat_minor"`
}

type nbCell struct {
	ID             string         `json:"id"`
	CellType       string         `json:"cell_type"`
	Metadata       map[string]any `json:"metadata"`
	Source         []string       `json:"source"`
	ExecutionCount *int           `json:"execution_count,omitempty"`
	Outputs        []nbOutput     `json:"outputs,omitempty"`
}

type nbOutput struct {
	OutputType     string         `json:"output_type"`
	ExecutionCount *int           `json:"execution_count,omitempty"`
	Data           map[string]any `json:"data"`
	Metadata       map[string]any `json:"metadata"`
}

// Notebook writes the report as a Jupyter notebook (nbformat 4.5): markdown
// cells for text and captions, and code cells whose stored outputs hold the
// table (text/plain, text/markdown, text/html) and each figure (image/png,
// base64). There is no Go kernel: the code cells are comments, and the
// outputs are what `mkpoe report` computed. Cell IDs are stable
// ("cell-01", …) so the file is reproducible.
func (rep *Report) Notebook(w io.Writer) error {
	nb := notebook{NBFormat: 4, NBFormatMinor: 5, Metadata: map[string]any{
		"kernelspec":    map[string]any{"name": "python3", "display_name": "Python 3", "language": "python"},
		"language_info": map[string]any{"name": "python"},
		"mkpoe":         map[string]any{"source": rep.Source, "config_hash": rep.Run.Summary.ConfigHash},
	}}
	id := 0
	nextID := func() string { id++; return fmt.Sprintf("cell-%02d", id) }
	markdown := func(text string) {
		nb.Cells = append(nb.Cells, nbCell{ID: nextID(), CellType: "markdown", Metadata: map[string]any{}, Source: lines(text)})
	}
	count := 0
	output := func(comment string, out nbOutput) {
		count++
		c := count
		if out.OutputType == "execute_result" {
			out.ExecutionCount = &c
		}
		nb.Cells = append(nb.Cells, nbCell{ID: nextID(), CellType: "code", Metadata: map[string]any{}, Source: lines(comment),
			ExecutionCount: &c, Outputs: []nbOutput{out}})
	}
	s := rep.Run.Summary
	markdown(fmt.Sprintf("# %s\n\nReport of the run in `%s` (config hash `%s`), rebuilt from its result files by `mkpoe report`. "+
		"It reproduces the protocol of McFee & Lanckriet, \"Learning Multi-modal Similarity\", JMLR 12 (2011). "+
		"The code cells hold stored outputs only: there is no kernel to rerun them.", s.Name, rep.Source, s.ConfigHash))
	if w := rep.warningsMarkdown(); w != "" {
		markdown(w)
	}

	var md, htm, txt strings.Builder
	if err := rep.Table.Markdown(&md); err != nil {
		return err
	}
	if err := rep.Table.HTML(&htm); err != nil {
		return err
	}
	txt.WriteString(md.String())
	markdown("## Results")
	output("# Results table (summary.json)", nbOutput{OutputType: "execute_result", Metadata: map[string]any{},
		Data: map[string]any{"text/plain": lines(txt.String()), "text/markdown": lines(md.String()), "text/html": lines(htm.String())}})
	markdown("## Rows\n\n" + rep.detailsMarkdown())
	markdown("## Figures")
	for _, f := range rep.Figures {
		markdown(fmt.Sprintf("### %s\n\n%s", f.Title, f.Caption))
		output("# "+f.Name+".png", nbOutput{OutputType: "display_data", Metadata: map[string]any{},
			Data: map[string]any{"image/png": base64.StdEncoding.EncodeToString(rep.PNG[f.Name]), "text/plain": []string{"<" + f.Title + ">"}}})
	}
	t := summariseTimings(rep.Run.Timings, 10)
	var tb strings.Builder
	fmt.Fprintf(&tb, "## Timings\n\nTotal task time %s (sum over tasks).\n\n| Task kind | Tasks | Time |\n|---|---:|---:|\n", seconds(t.Total))
	for _, k := range t.ByKind {
		fmt.Fprintf(&tb, "| %s | %d | %s |\n", k.Kind, k.Tasks, seconds(k.Seconds))
	}
	tb.WriteString("\n## Versions\n\n| | |\n|---|---|\n")
	for _, k := range sortedKeys(rep.Run.Env) {
		fmt.Fprintf(&tb, "| %s | `%s` |\n", mdEscape(k), rep.Run.Env[k])
	}
	markdown(tb.String())
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
