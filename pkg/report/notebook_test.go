package report

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mkpoe/mkpoe/internal/nbtest"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestNotebookPyCells: notebook.py has every cell Notebook uses, and the
// written notebook has no placeholder left.
func TestNotebookPyCells(t *testing.T) {
	for _, name := range []string{"run_dir", "setup", "table", "shares", "details", "tasks", "fig-validation", "fig-objective",
		"fig-weights", "fig-map", "timings", "versions"} {
		if strings.TrimSpace(pyCells[name]) == "" {
			t.Errorf("notebook.py has no cell %q", name)
		}
	}
	rep, err := NewReport(loadFixture(t), Options{NotebookRunDir: "../x"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.Notebook(&b); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"__RUN_DIR__", "__CONFIG_HASH__", "__MAP_ROW__", "__MAP_SPLIT__"} {
		if bytes.Contains(b.Bytes(), []byte(p)) {
			t.Errorf("placeholder %s left in the notebook", p)
		}
	}
	for _, want := range []string{`RUN_DIR = \"../x\"\n`, `WRITTEN_FOR = \"0123456789abcdef\"`, `MAP_ROW, MAP_SPLIT = 5, 0\n`,
		`show(plot_weights(5, 1))  # MKPOE K4 diag, split 1\n`, `"run_dir": "../x"`} {
		if !bytes.Contains(b.Bytes(), []byte(want)) {
			t.Errorf("notebook lacks %s", want)
		}
	}
}

// TestNotebookPyHelpers runs the notebook's number formatting (the setup
// cell's go_g, fmt3, round3, md_escape, html_escape) under python3 and
// compares it with the Go report's (strconv 'g' -1, format, round3,
// mdEscape, html.EscapeString).
func TestNotebookPyHelpers(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	floats := []float64{0, 1, 10, 1000, 1e5, 1e6, 2.5e6, 123456, 1234567, 0.1, 0.001, 1e-4, 1.25e-4, 1e-5, 0.000123456,
		1.0 / 3, 2.0 / 3, 0.0005, 0.0015, 0.9995, 0.12345, 0.1235, -0.0004, -2.5, 1e21, 1e-300, 5e-324, math.NaN(), 0.72, 0.8125}
	strs := []string{"plain", "a|b*c_d`e", `back\slash`, "<b> & 'q' \"d\"", "Céline ‡"}
	// The helpers are taken out of the setup cell by name, so that the
	// cell's loading code does not run.
	script := `import ast, json, math, sys
from decimal import Decimal
src = sys.stdin.read()
defs = [n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name in ("known", "go_g", "fmt3", "round3", "md_escape", "html_escape")]
ns = {"math": math, "Decimal": Decimal}
exec(compile(ast.Module(body=defs, type_ignores=[]), "setup", "exec"), ns)
xs = [float(x) for x in sys.argv[1].split(",")]
out = {"g": [ns["go_g"](x) for x in xs], "f3": [ns["fmt3"](x) for x in xs],
       "r3": [repr(ns["round3"](x)) if not math.isnan(x) else "nan" for x in xs]}
ss = json.loads(sys.argv[2])
out["md"] = [ns["md_escape"](s) for s in ss]
out["html"] = [ns["html_escape"](s) for s in ss]
print(json.dumps(out))
`
	args := make([]string, len(floats))
	for i, x := range floats {
		args[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	sj, _ := json.Marshal(strs)
	cmd := exec.Command(py, "-c", script, strings.Join(args, ","), string(sj))
	cmd.Stdin = strings.NewReader(pyCells["setup"])
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var got struct{ G, F3, R3, MD, HTML []string }
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	for i, x := range floats {
		if want := strconv.FormatFloat(x, 'g', -1, 64); got.G[i] != want {
			t.Errorf("go_g(%v) = %q, Go %%g %q", x, got.G[i], want)
		}
		if want := format(x); got.F3[i] != want {
			t.Errorf("fmt3(%v) = %q, Go %q", x, got.F3[i], want)
		}
		if math.IsNaN(x) {
			continue
		}
		if r, err := strconv.ParseFloat(got.R3[i], 64); err != nil || r != round3(x) {
			t.Errorf("round3(%v) = %s, Go %v", x, got.R3[i], round3(x))
		}
	}
	for i, s := range strs {
		if got.MD[i] != mdEscape(s) {
			t.Errorf("md_escape(%q) = %q, Go %q", s, got.MD[i], mdEscape(s))
		}
		if want := strings.NewReplacer("&", "&amp;", "'", "&#39;", "<", "&lt;", ">", "&gt;", `"`, "&#34;").Replace(s); got.HTML[i] != want {
			t.Errorf("html_escape(%q) = %q, want %q", s, got.HTML[i], want)
		}
	}
}

// editSummary rewrites dir/summary.json through edit (on the decoded JSON).
func editSummary(t *testing.T, dir string, edit func(s map[string]any, rows []map[string]any)) {
	t.Helper()
	p := filepath.Join(dir, "summary.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	for _, r := range s["rows"].([]any) {
		rows = append(rows, r.(map[string]any))
	}
	edit(s, rows)
	if b, err = json.MarshalIndent(s, "", " "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNotebookExecutes writes the notebook of three run directories made
// from the fixture, executes each with jupyter nbconvert and checks that
// no cell fails, that the tables the Python code prints equal the stored
// Go ones (nbtest.Compare), that every figure cell draws a PNG, and that
// the printed numbers are summary.json's (nbtest.CheckNumbers). The runs:
// the fixture as is (convergence not recorded, as in older summaries); one
// with unconverged fits, a NaN accuracy, a band across inner folds (with a
// NaN β) and β values printed in exponent
// form; one written by an older mkpoe (no table_row, kernel_share,
// items.json, env.json, timings.json or config). It skips without
// jupyter-nbconvert, pandas or matplotlib, and under -short.
func TestNotebookExecutes(t *testing.T) {
	if ok, why := nbtest.Available(); !ok {
		t.Skip(why)
	}
	if testing.Short() {
		t.Skip("short")
	}
	variants := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  []string // in the executed details output
	}{
		{"fixture", func(*testing.T, string) {}, []string{"| A K1 diag | K1 diag | A | 0.800, 0.840 | — | — | 10, 100 | 40, 42 | 10, 11 |  | not recorded |"}},
		{"unconverged and NaN", func(t *testing.T, dir string) {
			editSummary(t, dir, func(s map[string]any, rows []map[string]any) {
				s["solver_tol"] = 0.001
				for _, r := range rows {
					if r["method"] != "native" {
						r["fits"], r["unconverged_fits"], r["max_gap"] = 12, 0, 0.0004
					}
				}
				rows[1]["unconverged_fits"], rows[1]["max_gap"], rows[1]["max_iterations"] = 3, 0.0123, 250
				rows[1]["val_zero_folds"] = []any{[]any{1, 0, 0}, []any{0, 0, 0}}
				// Spread across inner folds, with a β where every fold was NaN.
				rows[1]["val_fold_min"] = []any{[]any{0.5, 0.7, 0.65}, []any{0.55, 0.6, nil}}
				rows[1]["val_fold_max"] = []any{[]any{0.7, 0.8, 0.75}, []any{0.55, 0.8, nil}}
				// Ties ½: (7 + 1)/10 and (8 + 1)/11, mean 0.809, sd 0.013;
				// tie rate 4/21.
				rows[0]["test_tallies"] = []any{map[string]any{"right": 7, "ties": 2, "wrong": 1}, map[string]any{"right": 8, "ties": 2, "wrong": 1}}
				rows[0]["test_missing"] = []any{1, 2}
				rows[2]["accuracy"], rows[2]["mean"], rows[2]["std"] = []any{nil, 0.52}, nil, nil
				rows[3]["beta"] = []any{1e-5, 2.5e6}
			})
		}, []string{"| A K1 diag | K1 diag | A | 0.800, 0.840 | — | — | 10, 100 | 40, 42 | 10, 11 |  | † 3 of 12 fits not converged (max gap 1.2e-02, ≤ 250 iterations) |",
			"| A native | native | A | 0.700, 0.740 | 0.809 ± 0.013 | 0.190 |  | 40, 42 | 10, 11 (with an item a kernel lacks: 1, 2) |  | — |",
			"| B\\_1 native | native | B\\_1 | n/a, 0.520 |", "| 1e-05, 2.5e+06 |"}},
		{"older run", func(t *testing.T, dir string) {
			editSummary(t, dir, func(s map[string]any, rows []map[string]any) {
				for _, r := range rows {
					delete(r, "table_row")
					delete(r, "kernel_share")
				}
			})
			for _, f := range []string{"items.json", "env.json", "timings.json", "config.resolved.yaml"} {
				if err := os.Remove(filepath.Join(dir, f)); err != nil {
					t.Fatal(err)
				}
			}
		}, []string{"| sum native | native | A + B\\_1 | 0.600, 0.620 |"}},
	}
	var notebooks []string
	for _, v := range variants {
		dir := filepath.Join(t.TempDir(), "run")
		if err := nbtest.CopyDir("testdata/run", dir); err != nil {
			t.Fatal(err)
		}
		v.setup(t, dir)
		run, err := Load(os.DirFS(dir))
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		files, err := Build(run, Options{Formats: []string{"ipynb"}, Source: dir})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(dir, "report"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, "report", f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		notebooks = append(notebooks, filepath.Join(dir, "report", "report.ipynb"))
	}
	start := time.Now()
	executed, err := nbtest.Execute(context.Background(), 5*time.Minute, notebooks...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("executed %d notebooks in %.1f s", len(notebooks), time.Since(start).Seconds())
	for i, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			stored, err := nbtest.Read(notebooks[i])
			if err != nil {
				t.Fatal(err)
			}
			got, err := nbtest.Read(executed[i])
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range nbtest.Compare(stored, got) {
				t.Error(p)
			}
			b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(notebooks[i])), "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			s, err := results.DecodeSummary(b, "summary.json")
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range nbtest.CheckNumbers(got, s) {
				t.Error(p)
			}
			details := got.Cell("details")
			if details == nil || len(details.Outputs) == 0 {
				t.Fatal("no details output")
			}
			for _, want := range v.want {
				if !strings.Contains(details.Outputs[0].Data["text/markdown"], want) {
					t.Errorf("details lack %q:\n%s", want, details.Outputs[0].Data["text/markdown"])
				}
			}
			if got.Cell("fig-map") == nil {
				t.Error("no map cell")
			}
		})
	}
}

// TestMapTSV: fig-map.tsv holds the map's points as drawn: the training
// items of split 0 then its held-out items (global indices, names, class
// labels from items.json), the coordinates in shortest round-trip form,
// and the names the figure shows.
func TestMapTSV(t *testing.T) {
	run := loadFixture(t)
	rep, err := NewReport(run, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Map == nil || run.Summary.Rows[rep.MapRow].Label != "MKPOE K4 diag" {
		t.Fatalf("map of row %d", rep.MapRow)
	}
	var b bytes.Buffer
	if err := rep.MapTSV(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if lines[0] != "item\tname\tlabel\tx\ty\theld\tnamed" {
		t.Errorf("header %q", lines[0])
	}
	sp := run.Items.Splits[0]
	ids := append(append([]int(nil), sp.Train...), sp.Test...)
	if len(lines)-1 != len(rep.Map.X) {
		t.Fatalf("%d points, the map has %d", len(lines)-1, len(rep.Map.X))
	}
	named := 0
	for i, line := range lines[1:] {
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			t.Fatalf("line %d: %q", i+1, line)
		}
		held := i >= len(sp.Train)
		if i < len(ids) {
			g := ids[i]
			want := []string{strconv.Itoa(g), run.Items.Names[g], strconv.Itoa(run.Items.Labels[g])}
			if f[0] != want[0] || f[1] != want[1] || f[2] != want[2] {
				t.Errorf("line %d: %q, want item %v", i+1, f[:3], want)
			}
		}
		x, _ := strconv.ParseFloat(f[3], 64)
		y, _ := strconv.ParseFloat(f[4], 64)
		if x != rep.Map.X[i] || y != rep.Map.Y[i] {
			t.Errorf("line %d: (%s, %s), the map (%v, %v)", i+1, f[3], f[4], rep.Map.X[i], rep.Map.Y[i])
		}
		if f[5] != map[bool]string{false: "0", true: "1"}[held] {
			t.Errorf("line %d: held %s, want %v", i+1, f[5], held)
		}
		if f[6] == "1" {
			named++
		}
	}
	if want := len(mapNamed(rep.Map, rep.Theme)); named != want || named == 0 {
		t.Errorf("%d named points, the figure names %d", named, want)
	}
	// Names with tabs or line breaks stay on one line and field.
	rep.Map.Names[0] = "a\tb\nc"
	b.Reset()
	if err := rep.MapTSV(&b); err != nil {
		t.Fatal(err)
	}
	if l := strings.Split(b.String(), "\n")[1]; !strings.HasPrefix(l, "0\ta b c\t") {
		t.Errorf("first line %q", l)
	}
}
