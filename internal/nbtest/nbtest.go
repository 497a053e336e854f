// Package nbtest executes the report notebook (report.ipynb, written by
// pkg/report) with jupyter nbconvert and checks the executed notebook
// against the stored one and against summary.json. It serves the tests of
// pkg/report and of the command line; it needs jupyter-nbconvert and a
// Python 3 with numpy, pandas, matplotlib and ipykernel (Debian:
// python3-pandas python3-matplotlib python3-ipykernel jupyter-nbconvert).
package nbtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// Available reports whether jupyter-nbconvert is installed and the Python
// it runs on (its #! line) imports numpy, pandas, matplotlib and ipykernel;
// if not, why, with the packages to install.
func Available() (bool, string) {
	nbconvert, err := exec.LookPath("jupyter-nbconvert")
	if err != nil {
		return false, "no jupyter-nbconvert (apt-get install jupyter-nbconvert python3-pandas python3-matplotlib python3-ipykernel)"
	}
	py := "python3"
	if f, err := os.Open(nbconvert); err == nil {
		line, _ := bufio.NewReader(f).ReadString('\n')
		f.Close()
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "#!"); ok && !strings.Contains(p, " ") {
			py = p
		}
	}
	if out, err := exec.Command(py, "-c", "import numpy, pandas, matplotlib, ipykernel").CombinedOutput(); err != nil {
		return false, fmt.Sprintf("%s lacks numpy, pandas, matplotlib or ipykernel (apt-get install python3-pandas python3-matplotlib python3-ipykernel): %s",
			py, bytes.TrimSpace(out))
	}
	return true, ""
}

// Execute runs every cell of each notebook with `jupyter nbconvert --to
// notebook --execute` (one process, a fresh kernel per notebook, cells in
// the notebook's directory) and returns the paths of the executed copies,
// <stem>.nbconvert.ipynb beside each input. A cell that raises fails the
// command; the error then holds nbconvert's output.
func Execute(ctx context.Context, timeout time.Duration, paths ...string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	args := append([]string{"--to", "notebook", "--execute", fmt.Sprintf("--ExecutePreprocessor.timeout=%d", int(timeout.Seconds()))}, paths...)
	cmd := exec.CommandContext(ctx, "jupyter-nbconvert", args...)
	// Silences ipykernel's debugger warning about frozen modules.
	cmd.Env = append(os.Environ(), "PYDEVD_DISABLE_FILE_VALIDATION=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("jupyter-nbconvert --execute: %v\n%s", err, out)
	}
	var out []string
	for _, p := range paths {
		out = append(out, strings.TrimSuffix(p, ".ipynb")+".nbconvert.ipynb")
	}
	return out, nil
}

// Notebook is what the checks read of an nbformat 4 notebook.
type Notebook struct {
	Cells []Cell
}

// Cell is a cell; Name is its metadata "mkpoe" (set by pkg/report).
type Cell struct {
	ID, Type, Name string
	Outputs        []Output
}

// Output is one output of a code cell; Data maps a MIME type to its
// content (multiline strings joined).
type Output struct {
	Type         string
	Data         map[string]string
	Text         string // a stream's text
	EName, Value string // an error's
}

// Read parses a notebook file.
func Read(path string) (*Notebook, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw struct {
		Cells []struct {
			ID       string         `json:"id"`
			CellType string         `json:"cell_type"`
			Metadata map[string]any `json:"metadata"`
			Outputs  []struct {
				OutputType string                     `json:"output_type"`
				Data       map[string]json.RawMessage `json:"data"`
				Text       json.RawMessage            `json:"text"`
				EName      string                     `json:"ename"`
				EValue     string                     `json:"evalue"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	nb := &Notebook{}
	for _, c := range raw.Cells {
		cell := Cell{ID: c.ID, Type: c.CellType}
		cell.Name, _ = c.Metadata["mkpoe"].(string)
		for _, o := range c.Outputs {
			out := Output{Type: o.OutputType, Data: map[string]string{}, Text: multiline(o.Text), EName: o.EName, Value: o.EValue}
			for k, v := range o.Data {
				out.Data[k] = multiline(v)
			}
			cell.Outputs = append(cell.Outputs, out)
		}
		nb.Cells = append(nb.Cells, cell)
	}
	return nb, nil
}

// multiline reads an nbformat multiline string: a string or a list of
// strings to concatenate.
func multiline(b json.RawMessage) string {
	var s string
	if json.Unmarshal(b, &s) == nil {
		return s
	}
	var parts []string
	_ = json.Unmarshal(b, &parts)
	return strings.Join(parts, "")
}

// Cell returns the cell named name, or nil.
func (nb *Notebook) Cell(name string) *Cell {
	for i := range nb.Cells {
		if nb.Cells[i].Name == name {
			return &nb.Cells[i]
		}
	}
	return nil
}

// output returns the content of the first output of c with MIME type mime.
func (c *Cell) output(mime string) (string, bool) {
	for _, o := range c.Outputs {
		if v, ok := o.Data[mime]; ok {
			return v, true
		}
	}
	return "", false
}

// TextCells are the cells whose outputs are text that the Python code
// formats as the Go report does.
var TextCells = []string{"table", "shares", "details", "timings", "versions"}

// Compare checks an executed notebook against the stored one it was
// executed from and returns the problems found: an error output in any
// cell; a text cell (TextCells) whose Markdown or HTML differs from the
// stored output; a figure cell (named fig-…) without exactly one PNG
// output that decodes; cells added, lost or reordered.
func Compare(stored, executed *Notebook) []string {
	var out []string
	if len(stored.Cells) != len(executed.Cells) {
		return []string{fmt.Sprintf("%d cells executed, %d stored", len(executed.Cells), len(stored.Cells))}
	}
	for i, c := range executed.Cells {
		s := stored.Cells[i]
		if c.ID != s.ID || c.Name != s.Name {
			out = append(out, fmt.Sprintf("cell %d is %s/%s, stored %s/%s", i, c.ID, c.Name, s.ID, s.Name))
			continue
		}
		for _, o := range c.Outputs {
			if o.Type == "error" {
				out = append(out, fmt.Sprintf("cell %s: %s: %s", c.Name, o.EName, o.Value))
			}
		}
		switch {
		case slices.Contains(TextCells, c.Name):
			for _, mime := range []string{"text/markdown", "text/html"} {
				want, stored := s.output(mime)
				got, ok := c.output(mime)
				if stored && got != want {
					out = append(out, fmt.Sprintf("cell %s: the executed %s differs from the stored one:\n--- stored\n%s--- executed\n%s", c.Name, mime, want, got))
				} else if stored != ok {
					out = append(out, fmt.Sprintf("cell %s: %s output stored %v, executed %v", c.Name, mime, stored, ok))
				}
			}
		case strings.HasPrefix(c.Name, "fig-"):
			n := 0
			for _, o := range c.Outputs {
				if v, ok := o.Data["image/png"]; ok {
					n++
					raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
					if err == nil {
						_, err = png.Decode(bytes.NewReader(raw))
					}
					if err != nil {
						out = append(out, fmt.Sprintf("cell %s: PNG output: %v", c.Name, err))
					}
				}
			}
			if n != 1 {
				out = append(out, fmt.Sprintf("cell %s: %d PNG outputs, want 1", c.Name, n))
			}
		}
	}
	return out
}

// CheckNumbers checks the numbers an executed notebook prints against
// summary s, to the printed precision (three decimals, the paper's): in the
// table cell, every row's mean (and "± std" for more than one split) in
// the cell of its table row and method column; in the details cell, every
// row's accuracy per split in config order; in the shares cell, every K4
// row's kernel shares. It returns the mismatches.
func CheckNumbers(nb *Notebook, s *results.Summary) []string {
	var out []string
	get := func(name string) [][]string {
		c := nb.Cell(name)
		if c == nil {
			out = append(out, "no cell "+name)
			return nil
		}
		md, ok := c.output("text/markdown")
		if !ok {
			out = append(out, "cell "+name+": no Markdown output")
			return nil
		}
		return mdTable(md)
	}
	f3 := func(x float64) string {
		if math.IsNaN(x) {
			return "n/a"
		}
		return fmt.Sprintf("%.3f", x)
	}
	// The accuracy table: header, separator, rows.
	if t := get("table"); len(t) > 2 {
		col := map[string]int{}
		for j, h := range t[0] {
			col[h] = j
		}
		row := map[string][]string{}
		for _, r := range t[2:] {
			row[r[0]] = r
		}
		for _, r := range s.Rows {
			name := r.TableRow
			if name == "" {
				name = strings.Join(r.Kernels, " + ")
			}
			want := f3(r.Mean)
			if s.Splits > 1 {
				want += " ± " + f3(r.Std)
			}
			cells, ok1 := row[mdEscape(name)]
			j, ok2 := col[columnHeader(r)]
			if !ok1 || !ok2 || j >= len(cells) {
				out = append(out, fmt.Sprintf("table: no cell for row %q (table row %q, column %q)", r.Label, name, columnHeader(r)))
				continue
			}
			// The number, maybe bold, then nothing, † or the paper's value.
			rest, ok := strings.CutPrefix(strings.TrimPrefix(cells[j], "**"), want)
			rest = strings.TrimPrefix(rest, "**")
			if !ok || !(rest == "" || strings.HasPrefix(rest, "†") || strings.HasPrefix(rest, " (")) {
				out = append(out, fmt.Sprintf("table: row %q prints %q, summary.json gives %s", r.Label, cells[j], want))
			}
		}
	}
	if t := get("details"); t != nil {
		if len(t) != len(s.Rows)+2 {
			out = append(out, fmt.Sprintf("details: %d rows, summary.json %d", len(t)-2, len(s.Rows)))
		} else {
			for i, r := range s.Rows {
				acc := make([]string, len(r.Accuracy))
				for k, v := range r.Accuracy {
					acc[k] = f3(v)
				}
				if got := t[i+2]; got[0] != mdEscape(r.Label) || got[3] != strings.Join(acc, ", ") {
					out = append(out, fmt.Sprintf("details: line %d is %q with accuracy %q; summary.json: %q, %q", i, got[0], got[3], r.Label, strings.Join(acc, ", ")))
				}
			}
		}
	}
	var shares []string
	for _, r := range s.Rows {
		if len(r.KernelShare) > 0 && len(r.KernelShare) == len(r.Kernels) {
			parts := make([]string, len(r.Kernels))
			for k := range r.Kernels {
				parts[k] = fmt.Sprintf("%s %.3f", r.Kernels[k], r.KernelShare[k])
			}
			shares = append(shares, mdEscape(r.Label)+" | "+mdEscape(strings.Join(parts, ", ")))
		}
	}
	if len(shares) > 0 {
		if t := get("shares"); t != nil {
			var got []string
			for _, r := range t[min(2, len(t)):] {
				got = append(got, strings.Join(r, " | "))
			}
			if strings.Join(got, "\n") != strings.Join(shares, "\n") {
				out = append(out, fmt.Sprintf("shares: printed\n%s\nsummary.json\n%s", strings.Join(got, "\n"), strings.Join(shares, "\n")))
			}
		}
	}
	return out
}

// columnHeader is the table column of a summary row (pkg/report's
// standard columns, else the method and mode).
func columnHeader(r results.Row) string {
	if r.Method == "native" {
		return "Native"
	}
	switch strings.ToLower(r.Method) + " " + strings.ToLower(r.Mode) {
	case "k1 diag":
		return "K1 diagonal"
	case "k1 full":
		return "K1 full"
	case "k4 diag":
		return "K4 diagonal"
	case "k4 full":
		return "K4 full"
	}
	h := strings.ToUpper(r.Method)
	if r.Mode != "" {
		h += " " + r.Mode
	}
	return h
}

// mdTable returns the cells of the first Markdown table in md, one slice
// per line (header and separator included), split at unescaped "|".
func mdTable(md string) [][]string {
	var out [][]string
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			if len(out) > 0 {
				break
			}
			continue
		}
		var cells []string
		var b strings.Builder
		body := strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
		for i := 0; i < len(body); i++ {
			switch {
			case body[i] == '\\' && i+1 < len(body) && body[i+1] == '|':
				b.WriteString(`\|`)
				i++
			case body[i] == '|':
				cells = append(cells, strings.TrimSpace(b.String()))
				b.Reset()
			default:
				b.WriteByte(body[i])
			}
		}
		out = append(out, append(cells, strings.TrimSpace(b.String())))
	}
	return out
}

// mdEscape escapes as pkg/report does in Markdown table cells.
func mdEscape(s string) string {
	return strings.NewReplacer(`|`, `\|`, `*`, `\*`, `_`, `\_`, "`", "\\`").Replace(s)
}

// CopyDir copies the regular files of src and its subdirectories into dst.
func CopyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}
