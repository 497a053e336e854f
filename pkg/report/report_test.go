package report

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mkpoe/mkpoe/internal/nbtest"
	"github.com/mkpoe/mkpoe/pkg/results"
	"github.com/mkpoe/mkpoe/pkg/stats"
)

func TestBuildFiles(t *testing.T) {
	run := loadFixture(t)
	files, err := Build(run, Options{Source: "testdata/run"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
		if len(f.Data) == 0 {
			t.Errorf("%s is empty", f.Name)
		}
	}
	want := "table.md table.tex " +
		"fig-validation.png fig-validation.svg fig-objective.png fig-objective.svg " +
		"fig-weights-mkpoe-k4-diag-s00.png fig-weights-mkpoe-k4-diag-s00.svg " +
		"fig-weights-mkpoe-k4-diag-s01.png fig-weights-mkpoe-k4-diag-s01.svg " +
		"fig-map.png fig-map.svg report.html report.ipynb fig-map.tsv table.csv fits.csv"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("files:\n got %s\nwant %s", got, want)
	}
	files, err = Build(run, Options{Formats: []string{"md"}})
	if err != nil || len(files) != 1 || files[0].Name != "table.md" {
		t.Errorf("md only: %v %v", files, err)
	}
	if _, err := Build(run, Options{Formats: []string{"pdf"}}); err == nil {
		t.Error("Build accepted format pdf")
	}
	// Deterministic output (t-SNE seeded, stable cell IDs).
	a, _ := Build(run, Options{Formats: []string{"ipynb", "html"}})
	b, _ := Build(run, Options{Formats: []string{"ipynb", "html"}})
	for i := range a {
		if !bytes.Equal(a[i].Data, b[i].Data) {
			t.Errorf("%s differs between two builds", a[i].Name)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	good, err := os.ReadFile("testdata/run/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, test := range []struct {
		name  string
		fsys  fstest.MapFS
		isErr error
		msg   string
	}{
		{"empty directory", fstest.MapFS{}, ErrNotRunDir, "no summary.json"},
		{"bad summary", fstest.MapFS{"summary.json": {Data: []byte("{")}}, nil, "parsing summary.json"},
		{"short val_curve", fstest.MapFS{"summary.json": {Data: []byte(`{"beta_grid":[1,10],"rows":[{"label":"x","method":"k1","accuracy":[0.5],"val_curve":[[0.5]]}]}`)}},
			nil, `rows[0] ("x"): val_curve[0] must have one value per beta_grid entry (2), got 1`},
		{"unreadable model", fstest.MapFS{"summary.json": {Data: good}, "models/refit-r01-s00.json": {Data: []byte("{")}}, nil, "models/refit-r01-s00.json"},
		{"bad items", fstest.MapFS{"summary.json": {Data: []byte(`{"rows":[]}`)}, "items.json": {Data: []byte("[")}}, nil, "parsing items.json"},
	} {
		t.Run(test.name, func(t *testing.T) {
			_, err := Load(test.fsys)
			if err == nil {
				t.Fatal("no error")
			}
			if test.isErr != nil && !errors.Is(err, test.isErr) {
				t.Errorf("error %v is not %v", err, test.isErr)
			}
			if !strings.Contains(err.Error(), test.msg) || !strings.HasPrefix(err.Error(), "report: ") {
				t.Errorf("error %q, want the prefix report: and %q", err, test.msg)
			}
		})
	}
	// Optional files may be missing.
	run, err := Load(fstest.MapFS{"summary.json": {Data: []byte(`{"name":"x","rows":[]}`)}})
	if err != nil || run.Items != nil || run.Config != "" {
		t.Errorf("minimal run: %+v, %v", run, err)
	}
	// Models too, as in the committed results/<config>/ folders: they
	// are listed, and the report says which figures lose rows.
	run, err = Load(fstest.MapFS{"summary.json": {Data: good}})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range run.Summary.Rows {
		want = append(want, r.Models...)
	}
	if len(want) == 0 || !slices.Equal(run.MissingModels, slices.Compact(want)) {
		t.Errorf("missing models %q, want %q", run.MissingModels, want)
	}
	rep, err := NewReport(run, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[0], "model file(s) named by summary.json are absent") {
		t.Errorf("warnings %q", rep.Warnings)
	}
}

// TestNotebookStructure checks the nbformat 4.5 shape without Python:
// unique valid cell IDs; code cells with "execution_count" (null: their
// outputs were not made by running them) and "outputs", markdown cells
// without; the stored outputs of the named code cells (the accuracy table
// and kernel shares as Markdown and HTML, exactly the Go table's; every
// figure as a PNG that decodes); the warnings at the top.
func TestNotebookStructure(t *testing.T) {
	rep, err := NewReport(loadFixture(t), Options{Warnings: []string{"task x: result file missing"}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.Notebook(&b); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte(`\u003c`)) {
		t.Error("HTML escaped in the notebook JSON (SetEscapeHTML(false) expected)")
	}
	var nb struct {
		NBFormat      int                          `json:"nbformat"`
		NBFormatMinor int                          `json:"nbformat_minor"`
		Cells         []map[string]json.RawMessage `json:"cells"`
	}
	if err := json.Unmarshal(b.Bytes(), &nb); err != nil {
		t.Fatal(err)
	}
	if nb.NBFormat != 4 || nb.NBFormatMinor != 5 {
		t.Errorf("nbformat %d.%d, want 4.5", nb.NBFormat, nb.NBFormatMinor)
	}
	idRE := regexp.MustCompile(`^[a-zA-Z0-9-_]{1,64}$`)
	ids := map[string]bool{}
	var names []string
	for _, c := range nb.Cells {
		var id, typ string
		_ = json.Unmarshal(c["id"], &id)
		_ = json.Unmarshal(c["cell_type"], &typ)
		if !idRE.MatchString(id) || ids[id] {
			t.Errorf("cell id %q invalid or repeated", id)
		}
		ids[id] = true
		_, hasCount := c["execution_count"]
		_, hasOutputs := c["outputs"]
		switch typ {
		case "markdown":
			if hasCount || hasOutputs {
				t.Errorf("markdown cell %s has execution_count or outputs", id)
			}
		case "code":
			if string(c["execution_count"]) != "null" || !hasOutputs {
				t.Errorf("code cell %s: execution_count %s, outputs %v; want null and a list", id, c["execution_count"], hasOutputs)
			}
			var meta struct{ Mkpoe string }
			_ = json.Unmarshal(c["metadata"], &meta)
			names = append(names, meta.Mkpoe)
		default:
			t.Errorf("cell %s has type %q", id, typ)
		}
	}
	want := "run_dir setup table shares details tasks fig-validation fig-objective fig-weights-mkpoe-k4-diag-s00 fig-weights-mkpoe-k4-diag-s01 fig-map timings versions"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("code cells\n got %s\nwant %s", got, want)
	}
	stored, err := nbtest.Read(writeTemp(t, "report.ipynb", b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var second struct{ Source []string }
	_ = json.Unmarshal(mustJSON(t, nb.Cells[1]), &second)
	if w := strings.Join(second.Source, ""); !strings.HasPrefix(w, "**Warnings**") || !strings.Contains(w, "task x: result file missing") {
		t.Errorf("second cell is not the warnings: %q", w)
	}
	table := stored.Cell("table").Outputs[0].Data
	if table["text/markdown"] != rep.Table.accuracyMarkdown() || table["text/html"] != rep.Table.accuracyHTML() || table["text/plain"] != table["text/markdown"] {
		t.Errorf("table output %q", table)
	}
	if !strings.Contains(table["text/markdown"], "| pair | 0.610 ± 0.014 (0.718) |  |  | 0.880 ± 0.028 (0.984) | 0.880 ± 0.000 |") {
		t.Errorf("table lacks the pair row:\n%s", table["text/markdown"])
	}
	if shares := stored.Cell("shares").Outputs[0].Data["text/markdown"]; !strings.Contains(shares, "| MKPOE K4 diag | A 0.812, B\\_1 0.188 |") {
		t.Errorf("shares output:\n%s", shares)
	}
	for _, f := range rep.Figures {
		c := stored.Cell(f.Name)
		if c == nil || len(c.Outputs) != 1 {
			t.Fatalf("figure %s: cell %v", f.Name, c)
		}
		raw, err := base64.StdEncoding.DecodeString(c.Outputs[0].Data["image/png"])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(raw, rep.PNG[f.Name]) {
			t.Errorf("figure %s: the stored PNG is not the report's", f.Name)
		}
		if _, err := png.Decode(bytes.NewReader(raw)); err != nil {
			t.Errorf("figure %s: %v", f.Name, err)
		}
	}
}

func TestHTMLSelfContained(t *testing.T) {
	rep, err := NewReport(loadFixture(t), Options{Source: "testdata/run"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.HTML(&b); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	// Every figure is an embedded PNG but the map: inline SVG, one <title>
	// per point, valid XML.
	if n := strings.Count(h, `src="data:image/png;base64,`); n != len(rep.Figures)-1 {
		t.Errorf("%d embedded images, want %d", n, len(rep.Figures)-1)
	}
	start, end := strings.Index(h, "<svg "), strings.LastIndex(h, "</svg>")
	if start < 0 || end < start || strings.Count(h, "<svg ") != 1 {
		t.Fatalf("want one inline SVG, got %d", strings.Count(h, "<svg "))
	}
	_, _, titles := hoverTitles(t, []byte(h[start:end+len("</svg>")]))
	if len(titles) != len(rep.Map.X) || titles[2] != "gamma & co (class 1)" {
		t.Errorf("inline SVG titles %q, want %d, the third \"gamma & co (class 1)\"", titles, len(rep.Map.X))
	}
	h = strings.NewReplacer(`xmlns="http://www.w3.org/2000/svg"`, "", `xmlns:xlink="http://www.w3.org/1999/xlink"`, "").Replace(h) // namespaces, not resources
	for _, want := range []string{"<b>0.720 ± 0.028</b>", "name: fixture_50%", "vcs.revision", "refit", "<code>testdata/run</code>"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if strings.Contains(h, "http://") || strings.Contains(h, "https://") {
		t.Error("HTML refers to external resources")
	}
}

// writeTemp writes data to a file name in a new temporary directory and
// returns its path.
func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The checks below run external tools when they are installed (see
// docs/reports.md, "Checking the outputs as a reader would") and skip
// otherwise.

func writeBuild(t *testing.T, formats ...string) string {
	t.Helper()
	files, err := Build(loadFixture(t), Options{Formats: formats, Source: "testdata/run"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestNotebookValidates(t *testing.T) {
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import nbformat").Run() != nil {
		t.Skip("no nbformat for /usr/bin/python3 (apt-get install python3-nbformat)")
	}
	dir := writeBuild(t, "ipynb")
	nb := filepath.Join(dir, "report.ipynb")
	out, err := exec.Command(py, "-W", "error::FutureWarning", "-c",
		"import nbformat, sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))", nb).CombinedOutput()
	if err != nil {
		t.Fatalf("nbformat.validate: %v\n%s", err, out)
	}
	if _, err := exec.LookPath("jupyter-nbconvert"); err == nil {
		if out, err := exec.Command("jupyter-nbconvert", "--to", "html", "--output-dir", dir, nb).CombinedOutput(); err != nil {
			t.Errorf("nbconvert: %v\n%s", err, out)
		}
	}
}

func TestLaTeXCompiles(t *testing.T) {
	if _, err := exec.LookPath("pdflatex"); err != nil {
		t.Skip("no pdflatex (apt-get install texlive-latex-base texlive-latex-recommended)")
	}
	if testing.Short() {
		t.Skip("short")
	}
	// With claims, whose caption and cells hold − and ½ (utf8 inputenc
	// does not know them: texEscape must), tallies (the ties table), the
	// paper's values in every cell and the shares of nine kernels (ALOI's
	// tables, which were wider than an article's text before they were
	// scaled and wrapped).
	run := loadFixture(t)
	for i := range run.Summary.Rows {
		r := &run.Summary.Rows[i]
		for _, n := range r.TestComparisons {
			r.TestTallies = append(r.TestTallies, results.Tally{Right: n - 2, Ties: 2})
		}
		r.Paper = ptr(0.5)
		if len(r.KernelShare) > 0 {
			r.Kernels, r.KernelShare = nil, nil
			for k := 1; k <= 9; k++ {
				r.Kernels = append(r.Kernels, fmt.Sprintf("colour-histogram%d", k))
				r.KernelShare = append(r.KernelShare, 1.0/9)
			}
		}
	}
	run.Summary.Claims = []results.Claim{{Claim: "σ = ½ median beats σ = median (K4)", Better: "MKPOE K4 diag", Worse: "sum native", Paper: "Table 2",
		Interval: &stats.Interval{Diff: -0.01, Lo: -0.02, Hi: 0.001, Level: 0.95, Reps: 2000, N: 10, Strata: 2}}}
	files, err := Build(run, Options{Formats: []string{"tex"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`Ties $\frac12$ (mean)`, `\label{tab:fixture-50--claims}`} {
		if !strings.Contains(string(files[0].Data), want) {
			t.Errorf("table.tex lacks %q", want)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "table.tex"), files[0].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	// A second table whose shares rows have labels longer than half the
	// line: the label column wraps at half the line.
	long := NewTable(run.Summary)
	for i := range long.Shares {
		long.Shares[i].Label += " with a label longer than half of the line of an article's text"
	}
	var b bytes.Buffer
	if err := long.LaTeX(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "long.tex"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// An article's own text width (345 pt): every table must fit it, also
	// with several tables in one document.
	doc := "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n" +
		"\\begin{document}\n\\input{table.tex}\n\\input{long.tex}\n\\end{document}\n"
	if err := os.WriteFile(filepath.Join(dir, "doc.tex"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pdflatex: %v\n%s", err, out)
	}
	// Every table stays within the text width.
	log, err := os.ReadFile(filepath.Join(dir, "doc.log"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), "Overfull \\hbox") {
		t.Errorf("table.tex has an overfull box:\n%s", log)
	}
}

// browserProbe runs first in the page (the start of <head>): it records
// uncaught errors, failed resource loads and console.error calls, and on
// load writes into <pre id="mkpoe-probe"> a JSON account of the page: its
// errors, each <img>'s natural width (-1: not complete), each top-level
// <svg>'s rendered size, and the hover <title>s of the map's points.
const browserProbe = `<script>
(() => {
  const errors = [];
  const text = v => { try { return String(v && v.stack || v); } catch (e) { return "?"; } };
  window.addEventListener("error", e => {
    const t = e.target;
    errors.push(t && t !== window && t.tagName ? "failed to load <" + t.tagName.toLowerCase() + "> " + String(t.src || t.href || "").slice(0, 80) : "uncaught: " + text(e.message));
  }, true);
  window.addEventListener("unhandledrejection", e => errors.push("unhandled rejection: " + text(e.reason)));
  const ce = console.error.bind(console);
  console.error = (...args) => { errors.push("console.error: " + args.map(text).join(" ")); ce(...args); };
  window.addEventListener("load", () => {
    const svgs = Array.from(document.querySelectorAll("svg")).filter(s => !s.parentElement.closest("svg"));
    const out = {
      errors,
      images: Array.from(document.images).map(i => i.complete ? i.naturalWidth : -1),
      svgs: svgs.map(s => { const r = s.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; }),
      titles: Array.from(document.querySelectorAll("svg g.hover circle > title")).map(t => t.textContent),
      height: document.documentElement.scrollHeight,
    };
    const pre = document.createElement("pre");
    pre.id = "mkpoe-probe";
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  });
})();
</script>`

// pageReport is what browserProbe found.
type pageReport struct {
	Errors []string `json:"errors"`
	Images []int    `json:"images"`
	SVGs   [][2]int `json:"svgs"`
	Titles []string `json:"titles"`
	Height int      `json:"height"` // of the whole page, CSS pixels
}

// problems lists what is wrong with the page as loaded: errors, images
// that did not load, SVGs with an empty box.
func (p *pageReport) problems() []string {
	out := append([]string(nil), p.Errors...)
	for i, w := range p.Images {
		if w <= 0 {
			out = append(out, fmt.Sprintf("image %d did not load (natural width %d)", i, w))
		}
	}
	for i, s := range p.SVGs {
		if s[0] <= 0 || s[1] <= 0 {
			out = append(out, fmt.Sprintf("svg %d has an empty box %d×%d", i, s[0], s[1]))
		}
	}
	return out
}

// chromiumArgs are the flags of every headless Chromium run: no sandbox
// (CI runs as root), no network, a fresh profile.
func chromiumArgs(t *testing.T) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir=" + t.TempDir()}
}

// loadInBrowser opens page (with browserProbe added at the start of its
// <head>) in headless Chromium and returns what the probe found.
func loadInBrowser(t *testing.T, chromium, page string) *pageReport {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	probed := filepath.Join(filepath.Dir(page), "probed-"+filepath.Base(page))
	if !bytes.Contains(b, []byte("<head>")) {
		t.Fatalf("%s has no <head>", page)
	}
	if err := os.WriteFile(probed, bytes.Replace(b, []byte("<head>"), []byte("<head>\n"+browserProbe), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(chromium, append(chromiumArgs(t), "--virtual-time-budget=3000", "--dump-dom", "file://"+probed)...).Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	m := regexp.MustCompile(`<pre id="mkpoe-probe">([^<]*)</pre>`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no probe result in the DOM (did the load event fire?):\n%.2000s", out)
	}
	var rep pageReport
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &rep); err != nil {
		t.Fatalf("probe result: %v\n%s", err, m[1])
	}
	return &rep
}

// TestHTMLInBrowser opens report.html in headless Chromium (issue 6, 42):
// no console errors, every image loads, the map's inline SVG renders with
// a hover title per point, and a screenshot of the whole page (1280 wide,
// at least 2000 high) is saved as report-html.png into
// $MKPOE_SCREENSHOT_DIR (CI keeps it) or the test's temporary directory.
// A deliberately broken page must fail the same checks.
func TestHTMLInBrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("no headless browser: install Debian's chromium package (apt-get install chromium) to check report.html in it")
	}
	if testing.Short() {
		t.Skip("short")
	}
	dir := writeBuild(t, "html")
	page := filepath.Join(dir, "report.html")
	rep, err := NewReport(loadFixture(t), Options{Source: "testdata/run"})
	if err != nil {
		t.Fatal(err)
	}
	height := 2000
	t.Run("report", func(t *testing.T) {
		got := loadInBrowser(t, chromium, page)
		height = max(height, got.Height)
		for _, p := range got.problems() {
			t.Error(p)
		}
		if len(got.Images) != len(rep.Figures)-1 || len(got.SVGs) != 1 {
			t.Errorf("%d images and %d SVGs, want %d and 1 (the map)", len(got.Images), len(got.SVGs), len(rep.Figures)-1)
		}
		if len(got.Titles) != len(rep.Map.X) || got.Titles[2] != "gamma & co (class 1)" {
			t.Errorf("hover titles %q, want %d, the third \"gamma & co (class 1)\"", got.Titles, len(rep.Map.X))
		}
	})
	t.Run("broken page fails", func(t *testing.T) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		broken := strings.Replace(string(b), "</body>", `<img src="missing.png" alt="x"><svg width="0" height="0"></svg>`+
			`<script>console.error("deliberate");</script><script>undefinedFunction();</script></body>`, 1)
		bad := filepath.Join(t.TempDir(), "broken.html")
		if err := os.WriteFile(bad, []byte(broken), 0o644); err != nil {
			t.Fatal(err)
		}
		problems := strings.Join(loadInBrowser(t, chromium, bad).problems(), "\n")
		for _, want := range []string{"failed to load <img> file://", "console.error: deliberate", "uncaught: Uncaught ReferenceError: undefinedFunction is not defined",
			fmt.Sprintf("image %d did not load (natural width 0)", len(rep.Figures)-1), "svg 1 has an empty box 0×0"} {
			if !strings.Contains(problems, want) {
				t.Errorf("the checks missed %q; they found:\n%s", want, problems)
			}
		}
	})
	t.Run("screenshot", func(t *testing.T) {
		shots := os.Getenv("MKPOE_SCREENSHOT_DIR")
		if shots == "" {
			shots = t.TempDir()
		} else if err := os.MkdirAll(shots, 0o755); err != nil {
			t.Fatal(err)
		}
		shot, err := filepath.Abs(filepath.Join(shots, "report-html.png"))
		if err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(chromium, append(chromiumArgs(t), "--hide-scrollbars", fmt.Sprintf("--window-size=1280,%d", height), "--virtual-time-budget=3000",
			"--screenshot="+shot, "file://"+page)...).CombinedOutput(); err != nil {
			t.Fatalf("chromium --screenshot: %v\n%s", err, out)
		}
		f, err := os.Open(shot)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatalf("%s: %v", shot, err)
		}
		if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != height {
			t.Errorf("screenshot %d×%d, want 1280×%d", b.Dx(), b.Dy(), height)
		}
		if frac := inkFraction(img); frac < 0.02 {
			t.Errorf("screenshot nearly blank: %.4f of the pixels inked", frac)
		}
		t.Logf("screenshot: %s", shot)
	})
}

// TestClaimsInReport: the summary's claims appear, with their interval or
// the reason there is none, in table.md and report.html.
func TestClaimsInReport(t *testing.T) {
	run := loadFixture(t)
	run.Summary.Claims = []results.Claim{
		{Claim: "K4 beats the sum", Better: "MKPOE K4 diag", Worse: "sum native", Paper: "Table 2", Reproduced: true,
			Interval: &stats.Interval{Diff: 0.0412, Lo: 0.0101, Hi: 0.0733, Level: 0.95, Reps: 2000, N: 100, Strata: 2}},
		{Claim: "full beats diag", Better: "MKPOE K4 full", Worse: "MKPOE K4 diag", Note: "row \"MKPOE K4 full\": its task files predate test_outcomes"},
	}
	files, err := Build(run, Options{Formats: []string{"md", "html", "tex", "ipynb"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Name == "fig-map.tsv" { // the notebook's map data comes with it
			continue
		}
		text := string(f.Data)
		if f.Name == "report.html" {
			text = html.UnescapeString(text) // html/template writes + as &#43;
		}
		for _, want := range []string{"K4 beats the sum", "+0.041", "[+0.010, +0.073]", "yes", "predate test\\_outcomes"} {
			if f.Name == "report.html" {
				want = strings.ReplaceAll(want, `\_`, "_")
			}
			if f.Name == "report.ipynb" {
				want = strings.ReplaceAll(want, `\_`, `\\_`) // JSON escapes the backslash
			}
			if f.Name == "table.tex" && strings.Contains(want, "test") {
				want = `predate test\_outcomes`
			}
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q", f.Name, want)
			}
		}
	}
}
