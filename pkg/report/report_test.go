package report

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

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
		"fig-map.png fig-map.svg report.html report.ipynb"
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
		{"missing model", fstest.MapFS{"summary.json": {Data: good}}, nil, "reading model of row \"A K1 diag\""},
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
}

// TestNotebookStructure checks the nbformat 4.5 shape without Python:
// unique valid cell IDs, outputs only on code cells, the table as
// text/markdown and text/html, and PNG outputs that decode.
func TestNotebookStructure(t *testing.T) {
	rep, err := NewReport(loadFixture(t), Options{})
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
		NBFormat      int `json:"nbformat"`
		NBFormatMinor int `json:"nbformat_minor"`
		Cells         []struct {
			ID       string   `json:"id"`
			CellType string   `json:"cell_type"`
			Source   []string `json:"source"`
			Outputs  []struct {
				OutputType string         `json:"output_type"`
				Data       map[string]any `json:"data"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b.Bytes(), &nb); err != nil {
		t.Fatal(err)
	}
	if nb.NBFormat != 4 || nb.NBFormatMinor != 5 {
		t.Errorf("nbformat %d.%d, want 4.5", nb.NBFormat, nb.NBFormatMinor)
	}
	idRE := regexp.MustCompile(`^[a-zA-Z0-9-_]{1,64}$`)
	ids := map[string]bool{}
	pngs, tables := 0, 0
	for _, c := range nb.Cells {
		if !idRE.MatchString(c.ID) || ids[c.ID] {
			t.Errorf("cell id %q invalid or repeated", c.ID)
		}
		ids[c.ID] = true
		if c.CellType == "markdown" && len(c.Outputs) > 0 {
			t.Errorf("markdown cell %s has outputs", c.ID)
		}
		for _, o := range c.Outputs {
			if s, ok := o.Data["image/png"].(string); ok {
				raw, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := png.Decode(bytes.NewReader(raw)); err != nil {
					t.Errorf("cell %s: %v", c.ID, err)
				}
				pngs++
			}
			if _, ok := o.Data["text/html"]; ok && o.Data["text/markdown"] != nil {
				tables++
			}
		}
	}
	if pngs != len(rep.Figures) || tables != 1 {
		t.Errorf("%d PNG outputs and %d tables, want %d and 1", pngs, tables, len(rep.Figures))
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
	if n := strings.Count(h, `src="data:image/png;base64,`); n != len(rep.Figures) {
		t.Errorf("%d embedded images, want %d", n, len(rep.Figures))
	}
	for _, want := range []string{"<b>0.720 ± 0.028</b>", "name: fixture_50%", "vcs.revision", "refit", "<code>testdata/run</code>"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if strings.Contains(h, "http://") || strings.Contains(h, "https://") {
		t.Error("HTML refers to external resources")
	}
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
	// does not know them: texEscape must).
	run := loadFixture(t)
	run.Summary.Claims = []results.Claim{{Claim: "σ = ½ median beats σ = median (K4)", Better: "MKPOE K4 diag", Worse: "sum native", Paper: "Table 2",
		Interval: &stats.Interval{Diff: -0.01, Lo: -0.02, Hi: 0.001, Level: 0.95, Reps: 2000, N: 10, Strata: 2}}}
	files, err := Build(run, Options{Formats: []string{"tex"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "table.tex"), files[0].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	doc := "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n\\usepackage{booktabs}\n" +
		"\\usepackage[paperwidth=24cm,paperheight=12cm,margin=1cm]{geometry}\n\\begin{document}\n\\input{table.tex}\n\\end{document}\n"
	if err := os.WriteFile(filepath.Join(dir, "doc.tex"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pdflatex: %v\n%s", err, out)
	}
}

func TestHTMLInBrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("no chromium (apt-get install chromium)")
	}
	if testing.Short() {
		t.Skip("short")
	}
	dir := writeBuild(t, "html")
	page := filepath.Join(dir, "report.html")
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	// A probe writes each image's natural width into the title once loaded.
	probe := `<script>window.addEventListener("load", () => { document.title = "widths:" + Array.from(document.images).map(i => i.complete ? i.naturalWidth : -1).join(","); });</script></body>`
	if err := os.WriteFile(page, bytes.Replace(b, []byte("</body>"), []byte(probe), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+t.TempDir(),
		"--virtual-time-budget=2000", "--dump-dom", "file://"+page)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	m := regexp.MustCompile(`<title>widths:([0-9,-]*)</title>`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no probe title in the DOM:\n%.2000s", out)
	}
	widths := strings.Split(string(m[1]), ",")
	if len(widths) != 5 {
		t.Errorf("%d images, want 5", len(widths))
	}
	for i, w := range widths {
		if w == "0" || w == "-1" || w == "" {
			t.Errorf("image %d did not load (natural width %q)", i, w)
		}
	}
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
	files, err := Build(run, Options{Formats: []string{"md", "html", "tex"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		text := string(f.Data)
		if f.Name == "report.html" {
			text = html.UnescapeString(text) // html/template writes + as &#43;
		}
		for _, want := range []string{"K4 beats the sum", "+0.041", "[+0.010, +0.073]", "yes", "predate test\\_outcomes"} {
			if f.Name == "report.html" {
				want = strings.ReplaceAll(want, `\_`, "_")
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
