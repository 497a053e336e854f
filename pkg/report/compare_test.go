package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/results"
	"github.com/mkpoe/mkpoe/pkg/stats"
)

// copySummary returns a deep copy of s (through its JSON form).
func copySummary(t testing.TB, s *results.Summary) *results.Summary {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	c, err := results.DecodeSummary(b, "copy")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rowByLabel returns the row of s labelled label (exactly), or fails.
func rowByLabel(t testing.TB, s *results.Summary, label string) *results.Row {
	t.Helper()
	for i := range s.Rows {
		if s.Rows[i].Label == label {
			return &s.Rows[i]
		}
	}
	t.Fatalf("no row %q", label)
	return nil
}

// comparePair returns the fixture run ("base") and an edited copy
// ("edited") from another config and build: A K1 diag scores 0.85 and
// 0.83, B_1 native is gone, MKPOE K4 diag is spelled "mkpoe k4 DIAG" and
// scores 0.9, a row C native (0.4) is new; the two share one claim (in
// different case) and the edited run has a second. The edited run records
// fold bands for A K1 diag.
func comparePair(t testing.TB) (base, edited CompareRun) {
	t.Helper()
	r1 := loadFixture(t)
	r1.Summary.Claims = []results.Claim{{Claim: "K4 beats native", Better: "MKPOE K4 diag", Worse: "sum native",
		Interval: &stats.Interval{Diff: 0.27, Lo: 0.2, Hi: 0.31}, Reproduced: true,
		Clustered: &stats.Interval{Diff: 0.27, Lo: 0.15, Hi: 0.36, P: 0.005}, HolmP: ptr(0.01), Holds: true}}
	s := copySummary(t, r1.Summary)
	s.ConfigHash = "fedcba9876543210"
	a := rowByLabel(t, s, "A K1 diag")
	a.Accuracy = []float64{0.85, 0.83}
	a.Mean, a.Std = stats.MeanStd(a.Accuracy)
	a.ValFoldMin = [][]float64{{0.5, 0.7, 0.6}, {0.5, 0.6, 0.7}}
	a.ValFoldMax = [][]float64{{0.7, 0.8, 0.8}, {0.6, 0.8, 0.9}}
	k4 := rowByLabel(t, s, "MKPOE K4 diag")
	k4.Label, k4.Accuracy, k4.Mean, k4.Std = "mkpoe k4 DIAG", []float64{0.9, 0.9}, 0.9, 0
	var rows []results.Row
	for _, r := range s.Rows {
		if r.Label != "B_1 native" {
			rows = append(rows, r)
		}
	}
	s.Rows = append(rows, results.Row{Label: "C native", Method: "native", Kernels: []string{"C"}, Accuracy: []float64{0.4, 0.4}, Mean: 0.4})
	s.Claims = []results.Claim{
		{Claim: " k4 BEATS native", Better: "mkpoe k4 DIAG", Worse: "sum native", Interval: &stats.Interval{Diff: 0.29, Lo: -0.01, Hi: 0.5}},
		{Claim: "A learns", Better: "A K1 diag", Worse: "A native", Note: "no test outcomes"},
	}
	r2 := &Run{Summary: s, Env: map[string]string{"linalg_backend": "openblas"}}
	return CompareRun{Name: "base", Source: "testdata/run", Run: r1}, CompareRun{Name: "edited", Source: "edited", Run: r2}
}

func TestComparisonTable(t *testing.T) {
	base, edited := comparePair(t)
	c, err := NewComparison([]CompareRun{base, edited}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(c.header(), " | "), "Row | base accuracy | base β | edited accuracy | edited β | Δ edited − base"; got != want {
		t.Errorf("header:\n got %s\nwant %s", got, want)
	}
	s1, s2 := base.Run.Summary, edited.Run.Summary
	for _, test := range []struct {
		label, l1, l2 string // l1, l2: the row's label in each run ("" absent)
		cells         string
	}{
		{"A native", "A native", "A native", "A native | 0.720 ± 0.028 | — | 0.720 ± 0.028 | — | +0.000"},
		{"A K1 diag", "A K1 diag", "A K1 diag", "A K1 diag | 0.820 ± 0.028 | 10, 100 | 0.840 ± 0.014 | 10, 100 | +0.020"},
		{"B_1 native", "B_1 native", "", "B_1 native | 0.510 ± 0.014 | — | — | — | —"},
		{"B_1 K1 full", "B_1 K1 full", "B_1 K1 full", "B_1 K1 full | 0.560 ± 0.014 | 1, 1 | 0.560 ± 0.014 | 1, 1 | +0.000"},
		{"sum native", "sum native", "sum native", "sum native | 0.610 ± 0.014 | — | 0.610 ± 0.014 | — | +0.000"},
		{"MKPOE K4 diag", "MKPOE K4 diag", "mkpoe k4 DIAG", "MKPOE K4 diag | 0.880 ± 0.028 | 100, 100 | 0.900 ± 0.000 | 100, 100 | +0.020"},
		{"MKPOE K4 full", "MKPOE K4 full", "MKPOE K4 full", "MKPOE K4 full | 0.880 ± 0.000 | 10, 10 | 0.880 ± 0.000 | 10, 10 | +0.000"},
		{"C native", "", "C native", "C native | — | — | 0.400 ± 0.000 | — | —"},
	} {
		var row *CompareRow
		var line []string
		for i := range c.Rows {
			if c.Rows[i].Label == test.label {
				row, line = &c.Rows[i], c.cells()[i]
			}
		}
		if row == nil {
			t.Errorf("no comparison row %q", test.label)
			continue
		}
		if got := strings.Join(line, " | "); got != test.cells {
			t.Errorf("%s:\n got %s\nwant %s", test.label, got, test.cells)
		}
		// The difference is exactly the difference of the summaries' means.
		d := row.Diff(1)
		if test.l1 == "" || test.l2 == "" {
			if !math.IsNaN(d) {
				t.Errorf("%s: Diff = %v, want NaN (row missing)", test.label, d)
			}
			continue
		}
		if want := rowByLabel(t, s2, test.l2).Mean - rowByLabel(t, s1, test.l1).Mean; d != want {
			t.Errorf("%s: Diff = %v, want %v", test.label, d, want)
		}
	}
	if len(c.Rows) != 8 || c.Rows[7].Label != "C native" {
		t.Errorf("rows: %d, last %q; want 8 with the new row last", len(c.Rows), c.Rows[len(c.Rows)-1].Label)
	}
	wantNotes := []string{`row "B_1 native" is absent from edited (shown as —)`, `row "C native" is absent from base (shown as —)`}
	if strings.Join(c.Notes, "\n") != strings.Join(wantNotes, "\n") {
		t.Errorf("notes:\n got %q\nwant %q", c.Notes, wantNotes)
	}
	var md bytes.Buffer
	if err := c.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| A K1 diag | 0.820 ± 0.028 | 10, 100 | 0.840 ± 0.014 | 10, 100 | +0.020 |",
		"| C native | — | — | 0.400 ± 0.000 | — | — |",
		"**Missing rows**", "- row \"B\\_1 native\" is absent from edited",
		"| base | testdata/run | fixture\\_50% | 0123456789abcdef | not recorded |",
		"![Validation accuracy against β, runs overlaid](compare-validation.png)",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("compare.md lacks %q:\n%s", want, md.String())
		}
	}
	var txt bytes.Buffer
	if err := c.Text(&txt); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^A K1 diag +0\.820 ± 0\.028 +10, 100 +0\.840 ± 0\.014 +10, 100 +\+0\.020$`).MatchString(txt.String()) {
		t.Errorf("printed table:\n%s", txt.String())
	}
}

func TestComparisonWarnings(t *testing.T) {
	base, edited := comparePair(t)
	same := base
	same.Name = "again"
	relative := edited
	rs := copySummary(t, edited.Run.Summary)
	rs.BetaRelative = true
	relative.Run = &Run{Summary: rs, Env: edited.Run.Env}
	resplit := same
	resplit.Name = "resplit"
	items := *base.Run.Items
	items.Splits = slices.Clone(items.Splits)
	sp := &items.Splits[1] // item 0 trains, item 2 is held out
	sp.Train, sp.Test = slices.Clone(sp.Train), slices.Clone(sp.Test)
	sp.Train[0], sp.Test[0] = sp.Test[0], sp.Train[0]
	resplitRun := *base.Run
	resplitRun.Items = &items
	resplit.Run = &resplitRun
	// A committed results/<config>/ folder records its build in
	// provenance.json only: the same as a fresh run's env.json.
	committed, fresh := base, base
	committed.Name, fresh.Name = "base", "fresh" // "base": the edge warning below names it
	committed.Run = &Run{Summary: base.Run.Summary, Items: base.Run.Items, Provenance: &results.Provenance{LinalgBackend: "openblas"}}
	fresh.Run = &Run{Summary: base.Run.Summary, Items: base.Run.Items, Env: map[string]string{"linalg_backend": "openblas"}}
	configs := `the runs are of different configs (base: config "fixture_50%", hash 0123456789abcdef; edited: config "fixture_50%", hash fedcba9876543210); rows are matched by label`
	builds := "the runs come from different builds (linalg_backend: base: not recorded; edited: openblas)"
	for _, test := range []struct {
		name string
		runs []CompareRun
		want []string
	}{
		{"same run twice", []CompareRun{base, same}, nil},
		{"build from provenance.json", []CompareRun{committed, fresh}, nil},
		{"other config and build", []CompareRun{base, edited}, []string{configs, builds}},
		{"relative grid", []CompareRun{base, relative}, []string{configs, builds,
			"the β grids are of different kinds (base: absolute β; edited: multiples of β_min); the validation figure's x axes do not mean the same"}},
		{"other splits", []CompareRun{base, resplit}, []string{"the outer splits of base and resplit differ (items.json): their accuracies are measured on different test items, so Δ is not a paired difference"}},
		{"run warnings", []CompareRun{base, {Name: "w", Run: base.Run, Warnings: []string{"task x: result file missing"}}},
			[]string{"w: task x: result file missing"}},
	} {
		t.Run(test.name, func(t *testing.T) {
			c, err := NewComparison(test.runs, nil)
			if err != nil {
				t.Fatal(err)
			}
			// The summaries' own warnings (β at the grid's edge) follow,
			// prefixed with the run's name.
			var got []string
			for _, w := range c.Warnings {
				if !strings.Contains(w, ": row \"") {
					got = append(got, w)
				}
			}
			if strings.Join(got, "\n") != strings.Join(test.want, "\n") {
				t.Errorf("warnings:\n got %q\nwant %q", got, test.want)
			}
			edge := `base: row "A K1 diag": β chosen at the largest value of the grid (100) on split(s) 1`
			if !strings.Contains(strings.Join(c.Warnings, "\n"), edge) {
				t.Errorf("warnings lack the first run's own %q", edge)
			}
			var md, page bytes.Buffer
			if err := c.Markdown(&md); err != nil {
				t.Fatal(err)
			}
			if err := c.HTML(&page); err != nil {
				t.Fatal(err)
			}
			for _, w := range test.want {
				if !strings.Contains(md.String(), "- "+mdEscape(w)+"\n") {
					t.Errorf("compare.md lacks warning %q", w)
				}
				if !strings.Contains(page.String(), htmlEscape(w)) {
					t.Errorf("compare.html lacks warning %q", w)
				}
			}
		})
	}
}

// htmlEscape escapes s as html/template does in text.
func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

func TestComparisonClaims(t *testing.T) {
	base, edited := comparePair(t)
	c, err := NewComparison([]CompareRun{base, edited}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"K4 beats native", "+0.270 [+0.150, +0.360]", "holds yes; i.i.d. above 0 yes", "+0.290 [-0.010, +0.500] i.i.d.", "holds —; i.i.d. above 0 no"},
		{"A learns", "—", "—", "— (no test outcomes)", "holds —; i.i.d. above 0 —"},
	}
	got := c.claimCells()
	if len(got) != len(want) {
		t.Fatalf("claims: got %q, want %q", got, want)
	}
	for i := range want {
		if strings.Join(got[i], " | ") != strings.Join(want[i], " | ") {
			t.Errorf("claim %d:\n got %q\nwant %q", i, got[i], want[i])
		}
	}
}

func TestComparisonCSV(t *testing.T) {
	base, edited := comparePair(t)
	c, err := NewComparison([]CompareRun{base, edited}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := c.CSV(&b); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != strings.Join(CompareCSVHeader, ",") {
		t.Fatalf("header %q", recs[0])
	}
	if len(recs) != 1+2*8 {
		t.Fatalf("%d lines, want a header and 16 (2 runs × 8 rows)", len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	line := func(run, row string) []string {
		for _, r := range recs[1:] {
			if r[col["run"]] == run && r[col["row"]] == row {
				return r
			}
		}
		t.Fatalf("no line for %s, %s", run, row)
		return nil
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("not a number: %q", s)
		}
		return v
	}
	s1, s2 := base.Run.Summary, edited.Run.Summary
	a2 := line("edited", "A K1 diag")
	if num(a2[col["mean_accuracy"]]) != 0.84 || a2[col["accuracy_per_split"]] != "0.85;0.83" || a2[col["beta_per_split"]] != "10;100" ||
		a2[col["method"]] != "k1" || a2[col["mode"]] != "diag" || a2[col["present"]] != "true" || a2[col["run_dir"]] != "edited" {
		t.Errorf("edited A K1 diag: %q", a2)
	}
	if got, want := num(a2[col["diff_vs_first"]]), rowByLabel(t, s2, "A K1 diag").Mean-rowByLabel(t, s1, "A K1 diag").Mean; got != want {
		t.Errorf("diff_vs_first = %v, want %v", got, want)
	}
	if got, want := num(line("edited", "MKPOE K4 diag")[col["diff_vs_first"]]), rowByLabel(t, s2, "mkpoe k4 DIAG").Mean-rowByLabel(t, s1, "MKPOE K4 diag").Mean; got != want {
		t.Errorf("K4 diag diff_vs_first = %v, want %v", got, want)
	}
	if l := line("base", "A K1 diag"); l[col["diff_vs_first"]] != "" || num(l[col["std_accuracy"]]) != rowByLabel(t, s1, "A K1 diag").Std {
		t.Errorf("base A K1 diag: %q", l)
	}
	for _, missing := range [][2]string{{"edited", "B_1 native"}, {"base", "C native"}} {
		l := line(missing[0], missing[1])
		if l[col["present"]] != "false" || l[col["mean_accuracy"]] != "" || l[col["diff_vs_first"]] != "" || l[col["splits"]] != "2" {
			t.Errorf("%s lacks %s: %q", missing[0], missing[1], l)
		}
	}
}

func TestMeanValidation(t *testing.T) {
	_, edited := comparePair(t)
	s := edited.Run.Summary
	betas, mean, lo, hi, chosen := MeanValidation(s, rowByLabel(t, s, "A K1 diag"))
	// val_curve [[0.6, 0.75, 0.7], [0.55, 0.7, 0.78]]; fold bands as set in comparePair.
	want := [][]float64{{1, 10, 100}, {0.575, 0.725, 0.74}, {0.5, 0.6, 0.6}, {0.7, 0.8, 0.9}}
	for i, got := range [][]float64{betas, mean, lo, hi} {
		for j := range want[i] {
			if j >= len(got) || math.Abs(got[j]-want[i][j]) > 1e-12 {
				t.Errorf("series %d: got %v, want %v", i, got, want[i])
				break
			}
		}
	}
	if len(chosen) != 2 || chosen[0] != 1 || chosen[1] != 2 {
		t.Errorf("chosen = %v, want [1 2]", chosen)
	}
	// Without recorded bands: no band; a native row: no curve.
	if _, _, lo, hi, _ := MeanValidation(s, rowByLabel(t, s, "B_1 K1 full")); lo != nil || hi != nil {
		t.Errorf("band without val_fold_min: %v %v", lo, hi)
	}
	if _, mean, _, _, _ := MeanValidation(s, rowByLabel(t, s, "A native")); mean != nil {
		t.Errorf("native row has a curve: %v", mean)
	}
}

func TestCompareFigure(t *testing.T) {
	base, edited := comparePair(t)
	third := edited
	third.Name = "third"
	ts := copySummary(t, edited.Run.Summary)
	ts.Rows = ts.Rows[:2] // A native, A K1 diag only
	third.Run = &Run{Summary: ts}
	c, err := NewComparison([]CompareRun{base, edited, third}, nil)
	if err != nil {
		t.Fatal(err)
	}
	files, err := c.Files(nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var svg []byte
	for _, f := range files {
		names = append(names, f.Name)
		if f.Name == "compare-validation.svg" {
			svg = f.Data
		}
	}
	if got := strings.Join(names, " "); got != "compare.md compare.html compare-validation.png compare-validation.svg compare.csv" {
		t.Errorf("files: %s", got)
	}
	// Learned rows: A K1 diag (3 runs), B_1 K1 full, MKPOE K4 diag, MKPOE
	// K4 full (2 runs each): 4 panels. Each run's curve is a line in its
	// colour at the theme's line width, drawn once in the panel and once
	// in the legend, and the legend names it.
	th := DefaultTheme()
	for k, want := range []int{4, 4, 1} {
		r, g, b, _ := th.Color(k).RGBA()
		stroke := strings.ToUpper(strconv.FormatInt(int64(r>>8)<<16|int64(g>>8)<<8|int64(b>>8), 16))
		pat := "stroke:#" + strings.Repeat("0", 6-len(stroke)) + stroke + ";stroke-width:1.2"
		if got := strings.Count(string(svg), pat); got != 2*want {
			t.Errorf("run %d: %d lines %s, want %d (one curve per panel and its legend sample)", k, got, pat, 2*want)
		}
		name := c.Runs[k].Name
		if got := strings.Count(string(svg), ">"+name+"</text>"); got != want {
			t.Errorf("legend names %s %d times, want %d", name, got, want)
		}
	}
	var page bytes.Buffer
	if err := c.HTML(&page); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<img src="data:image/png;base64,`, `<td class="up">&#43;0.020</td>`, `<td class="missing">—</td>`, "Δ third − base"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("compare.html lacks %q", want)
		}
	}
}

func TestComparisonErrors(t *testing.T) {
	base, edited := comparePair(t)
	dup := edited
	dup.Name = "BASE"
	for _, test := range []struct {
		name    string
		runs    []CompareRun
		formats []string
		msg     string
	}{
		{"one run", []CompareRun{base}, nil, "at least 2 runs, got 1"},
		{"duplicate names", []CompareRun{base, dup}, nil, `two runs are named "BASE"`},
		{"empty name", []CompareRun{base, {Name: " ", Run: edited.Run}}, nil, "run 2 has an empty name"},
		{"no summary", []CompareRun{base, {Name: "x", Run: &Run{}}}, nil, `run "x" has no summary`},
		{"bad format", []CompareRun{base, edited}, []string{"md", "tex"}, `format must be one of md,html,png,svg,csv, got "tex"`},
	} {
		t.Run(test.name, func(t *testing.T) {
			c, err := NewComparison(test.runs, nil)
			if err == nil {
				_, err = c.Files(test.formats)
			}
			if err == nil || !strings.Contains(err.Error(), test.msg) {
				t.Errorf("error %v, want one containing %q", err, test.msg)
			}
		})
	}
}

// FuzzCompare compares two decoded summaries: whatever summary.json holds
// (once it decodes), the comparison and its files build without a panic,
// and compare.csv has one line per run and row label.
func FuzzCompare(f *testing.F) {
	base, edited := comparePair(f)
	b1, _ := json.Marshal(base.Run.Summary)
	b2, _ := json.Marshal(edited.Run.Summary)
	f.Add(b1, b2)
	f.Add([]byte(`{"rows":[{"label":"x","method":"k1","accuracy":[0.5],"mean":0.5,"val_curve":[[0.5]]}],"beta_grid":[1]}`),
		[]byte(`{"rows":[{"label":"X","method":"native","accuracy":[NaN]}],"claims":[{"claim":"c"}]}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		s1, err1 := results.DecodeSummary(a, "a")
		s2, err2 := results.DecodeSummary(b, "b")
		if err1 != nil || err2 != nil {
			return
		}
		c, err := NewComparison([]CompareRun{{Name: "a", Run: &Run{Summary: s1}}, {Name: "b", Run: &Run{Summary: s2}}}, nil)
		if err != nil {
			return // e.g. a curve gonum/plot cannot draw
		}
		files, err := c.Files([]string{"md", "html", "csv"})
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(bytes.NewReader(files[2].Data)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 1+2*len(c.Rows) {
			t.Errorf("compare.csv has %d lines for %d rows", len(recs), len(c.Rows))
		}
	})
}
