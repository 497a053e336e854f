package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
)

func TestFoldIndicesPartition(t *testing.T) {
	const m, k = 10, 3
	folds := foldIndices(m, k, 7)
	if len(folds) != k {
		t.Fatalf("got %d folds, want %d", len(folds), k)
	}
	seen := make([]int, m)
	for f, idx := range folds {
		if n := len(idx); n < m/k || n > m/k+1 {
			t.Errorf("fold %d has %d indices, want %d or %d", f, n, m/k, m/k+1)
		}
		for i, x := range idx {
			seen[x]++
			if i > 0 && idx[i-1] >= x {
				t.Errorf("fold %d not sorted: %v", f, idx)
			}
		}
	}
	for x, c := range seen {
		if c != 1 {
			t.Errorf("index %d is in %d folds, want 1", x, c)
		}
	}
	if again := foldIndices(m, k, 7); !reflect.DeepEqual(again, folds) {
		t.Errorf("same seed, different folds: %v and %v", folds, again)
	}
	if other := foldIndices(m, k, 8); reflect.DeepEqual(other, folds) {
		t.Errorf("seeds 7 and 8 gave the same folds %v", folds)
	}
}

func TestFoldSplit(t *testing.T) {
	cs := []data.Comparison{data.Triplet(0, 1, 2), data.Triplet(1, 2, 0), data.Triplet(2, 0, 1), data.Triplet(0, 2, 1)}
	folds := [][]int{{0, 3}, {1}, {2}}
	fit, score := foldSplit(cs, folds, 0)
	if want := []data.Comparison{cs[1], cs[2]}; !reflect.DeepEqual(fit, want) {
		t.Errorf("fit = %v, want %v", fit, want)
	}
	if want := []data.Comparison{cs[0], cs[3]}; !reflect.DeepEqual(score, want) {
		t.Errorf("score = %v, want %v", score, want)
	}
}

func TestSplitTrainTest(t *testing.T) {
	cs := make([]data.Comparison, 11)
	train, test := splitTrainTest(cs)
	if len(train) != 8 || len(test) != 3 {
		t.Errorf("split 11 into %d + %d, want 8 + 3", len(train), len(test))
	}
}

// TestAccuracyHandComputed scores four triplets on three points on a line,
// x = (0, 1, 3), through the Gram matrix W = xxᵀ: d(0,1) = 1, d(0,2) = 9,
// d(1,2) = 4.
func TestAccuracyHandComputed(t *testing.T) {
	x := []float64{0, 1, 3}
	w := mat.NewSymDense(3, nil)
	for i := range x {
		for j := i; j < 3; j++ {
			w.SetSym(i, j, x[i]*x[j])
		}
	}
	dist := gramDist(w.At)
	if got := dist(1, 2); got != 4 {
		t.Fatalf("d(1,2) = %v, want 4", got)
	}
	cs := []data.Comparison{
		data.Triplet(0, 1, 2), // 1 < 9: right
		data.Triplet(2, 1, 0), // 4 < 9: right
		data.Triplet(1, 2, 0), // 4 < 1: wrong
		data.Triplet(0, 2, 1), // 9 < 1: wrong
	}
	if got := accuracy(cs, dist); got != 0.5 {
		t.Errorf("accuracy = %v, want 0.5", got)
	}
	// A tie is wrong: W = 0 learned nothing.
	zero := gramDist(mat.NewSymDense(3, nil).At)
	if got := accuracy(cs, zero); got != 0 {
		t.Errorf("accuracy with all distances equal = %v, want 0", got)
	}
	if got := accuracy(nil, dist); !math.IsNaN(got) {
		t.Errorf("accuracy of no comparisons = %v, want NaN", got)
	}
}

func TestParseSizes(t *testing.T) {
	got, err := parseSizes("100, 300,40:2000")
	if err != nil {
		t.Fatal(err)
	}
	want := []size{{100, 20000}, {300, 10000}, {40, 2000}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseSizes = %v, want %v", got, want)
	}
	for _, bad := range []string{"", "50", "x", "40:0", "2:10"} {
		if _, err := parseSizes(bad); err == nil {
			t.Errorf("parseSizes(%q) succeeded", bad)
		}
	}
}

func TestParseFlagsDefaults(t *testing.T) {
	cfg, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.sizes, []size{{100, 20000}, {300, 10000}}) || !reflect.DeepEqual(cfg.dims, []int{2, 5, 10}) || cfg.reps != 1 {
		t.Errorf("defaults = %+v", cfg)
	}
	if want := []float64{1.25, 1.5, 2, 3, 5, 10, 30, 100, 300, 1000}; !reflect.DeepEqual(cfg.grid, want) {
		t.Errorf("default grid = %v, want %v", cfg.grid, want)
	}
	if cfg.solver != mkpoe.DefaultSolver {
		t.Errorf("default solver = %q, want the library's default %q", cfg.solver, mkpoe.DefaultSolver)
	}
	if want := []int{0, 2, 5, 10}; !reflect.DeepEqual(cfg.ranks, want) {
		t.Errorf("default ranks = %v, want %v", cfg.ranks, want)
	}
	if cfg.warm != defaultWarm {
		t.Errorf("default warm = %v, want %v", cfg.warm, defaultWarm)
	}
	if cfg.folds != cvFolds {
		t.Errorf("default folds at once = %d, want all %d", cfg.folds, cvFolds)
	}
	if cfg.peerCV {
		t.Error("-peer-cv is on by default")
	}
	if cfg, err = parseFlags([]string{"-peer-cv"}); err != nil || !cfg.peerCV {
		t.Errorf("-peer-cv: peerCV %v, error %v", cfg.peerCV, err)
	}
}

// TestParseFlagsSolvers accepts every solver of the route table, by name
// and case aside, and refuses others.
func TestParseFlagsSolvers(t *testing.T) {
	for _, name := range mkpoe.SolverNames() {
		for _, arg := range []string{name, strings.ToUpper(name)} {
			cfg, err := parseFlags([]string{"-solver", arg})
			if err != nil {
				t.Errorf("-solver %s: %v", arg, err)
			} else if string(cfg.solver) != name {
				t.Errorf("-solver %s gave %q", arg, cfg.solver)
			}
		}
	}
	if _, err := parseFlags([]string{"-solver", "newton"}); err == nil {
		t.Error("-solver newton accepted")
	}
}

func TestParseFlags(t *testing.T) {
	tests := []struct {
		args  []string
		grid  []float64
		ranks []int
		warm  bool
		bad   string // a substring of the error, "" if none
	}{
		{args: []string{"-grid", "1.5, 10,1e3"}, grid: []float64{1.5, 10, 1000}, ranks: []int{0, 2, 5, 10}, warm: defaultWarm},
		{args: []string{"-ranks", "5", "-warm=false"}, grid: defaultGrid, ranks: []int{5}, warm: false},
		{args: []string{"-ranks", "0,3", "-warm"}, grid: defaultGrid, ranks: []int{0, 3}, warm: true},
		{args: []string{"-grid", "2,1.5"}, bad: "must increase"},
		{args: []string{"-grid", "1,1"}, bad: "must increase"},
		{args: []string{"-grid", "0,1"}, bad: "not a positive multiple"},
		{args: []string{"-grid", "-1"}, bad: "not a positive multiple"},
		{args: []string{"-grid", "Inf"}, bad: "not a positive multiple"},
		{args: []string{"-grid", ","}, bad: "no multiples"},
		{args: []string{"-ranks", "-1"}, bad: "not an integer ≥ 0"},
		{args: []string{"-ranks", "2,x"}, bad: "not an integer ≥ 0"},
		{args: []string{"-ranks", "2,2"}, bad: "given twice"},
		{args: []string{"-ranks", ""}, bad: "no ranks"},
		{args: []string{"-estimators", "SOE,MDS"}, bad: "unknown"},
		{args: []string{"-folds", "0"}, bad: "-folds must be 1 to 3"},
		{args: []string{"-folds", "4"}, bad: "-folds must be 1 to 3"},
	}
	for _, tc := range tests {
		cfg, err := parseFlags(tc.args)
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("%v: error %v, want one containing %q", tc.args, err, tc.bad)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		if !reflect.DeepEqual(cfg.grid, tc.grid) || !reflect.DeepEqual(cfg.ranks, tc.ranks) || cfg.warm != tc.warm {
			t.Errorf("%v: grid %v ranks %v warm %v, want %v %v %v", tc.args, cfg.grid, cfg.ranks, cfg.warm, tc.grid, tc.ranks, tc.warm)
		}
	}
}

func TestJoinFloatsRoundTrip(t *testing.T) {
	if got := joinFloats(defaultGrid); got != "1.25,1.5,2,3,5,10,30,100,300,1000" {
		t.Errorf("joinFloats = %q", got)
	}
	back, err := parseGrid(joinFloats(defaultGrid))
	if err != nil || !reflect.DeepEqual(back, defaultGrid) {
		t.Errorf("parseGrid(joinFloats) = %v, %v", back, err)
	}
}

// TestCertCount counts convex fits only when certified (gap ≤ 1e-3),
// rank-bounded ones when certified or stationary whatever their distance
// to the convex bound, never one stopped at the iteration limit, and
// keeps the worst convex gap.
func TestCertCount(t *testing.T) {
	var c certCount
	c.add(mkpoe.Stats{Converged: true, Status: mkpoe.StatusCertified, RelativeGap: 9e-4}, 0, true)
	c.add(mkpoe.Stats{Converged: true, Status: mkpoe.StatusStationary, RelativeGap: 2e-3}, 0, true) // gap above Tol
	c.add(mkpoe.Stats{Converged: false, Status: mkpoe.StatusNotConverged, RelativeGap: 5e-4}, 0, true)
	c.add(mkpoe.Stats{Converged: true, Status: mkpoe.StatusStationary, RelativeGap: 0.4}, 5, true)
	c.add(mkpoe.Stats{Converged: false, Status: mkpoe.StatusNotConverged, RelativeGap: 0.3}, 5, false)
	c.add(mkpoe.Stats{Converged: true, Status: mkpoe.StatusCertified, RelativeGap: 1e-4}, 0, false)
	want := certCount{CVFits: 4, CVOK: 2, Refits: 2, RefitOK: 1, Worst: 2e-3}
	if c != want {
		t.Errorf("counts %+v, want %+v", c, want)
	}
	c.merge(certCount{CVFits: 30, CVOK: 30, Refits: 1, RefitOK: 1, Worst: 5e-3})
	if want := (certCount{CVFits: 34, CVOK: 32, Refits: 3, RefitOK: 2, Worst: 5e-3}); c != want {
		t.Errorf("merged %+v, want %+v", c, want)
	}
}

func TestArgmax(t *testing.T) {
	tests := []struct {
		xs   []float64
		want int
	}{
		{[]float64{0.5}, 0},
		{[]float64{0.1, 0.3, 0.2}, 1},
		{[]float64{0.3, 0.1, 0.3}, 0}, // the smallest multiple on ties
		{[]float64{0.1, 0.2, 0.4}, 2},
	}
	for _, tc := range tests {
		if got := argmax(tc.xs); got != tc.want {
			t.Errorf("argmax(%v) = %d, want %d", tc.xs, got, tc.want)
		}
	}
}

func TestWriteTable(t *testing.T) {
	all := &certCount{CVFits: 30, CVOK: 30, Refits: 1, RefitOK: 1, Worst: 9.9e-4}
	some := &certCount{CVFits: 30, CVOK: 28, Refits: 1, RefitOK: 1, Worst: 3.1e-3}
	tests := []struct {
		name string
		r    row
		want string
	}{
		{"convex, all certified",
			row{Size: size{100, 20000}, Method: "mkpoe", Seconds: []float64{12.34, 10}, Refit: []float64{1.5, 1.7}, Accuracy: []float64{0.9, 0.8},
				Rank: "7", Gap: "1.0e-03", Betas: []string{betaText(1234.5, 10), betaText(1234.5, 10)}, Certs: all},
			"| 100 × 16000 | mkpoe | 1234 (10×) | 11.2 s (10.0–12.3 s) | 1.60 s | 0.8500 | 7 | 30/30 CV + 1/1 refit certified, worst convex gap 9.9e-04 | 1.0e-03 |"},
		{"convex, two CV fits uncertified, two choices",
			row{Size: size{300, 10000}, Method: "mkpoe", Seconds: []float64{250}, Refit: []float64{0.25}, Accuracy: []float64{0.7},
				Rank: "30", Gap: "8.0e-04", Betas: []string{betaText(50, 2), betaText(75, 3)}, Certs: some},
			"| 300 × 8000 | mkpoe | 50 (2×); 75 (3×) | 250 s | 0.25 s | 0.7000 | 30 | 28/30 CV + 1/1 refit certified, **2 not certified**, worst convex gap 3.1e-03 | 8.0e-04 |"},
		{"rank-bounded",
			row{Size: size{40, 2000}, Method: "rank ≤ 5", Seconds: []float64{0.29}, Refit: []float64{0.01}, Accuracy: []float64{0.7975},
				Rank: "5", Gap: "9.5e-01 to the convex bound", Betas: []string{betaText(2592.3, 100)}, Bounded: true,
				Certs: &certCount{CVFits: 30, CVOK: 29, Refits: 1, RefitOK: 1}},
			"| 40 × 1600 | rank ≤ 5 | 2592 (100×) | 0.29 s | 0.01 s | 0.7975 | 5 | 29/30 CV + 1/1 refit stationary, **1 not stationary** | 9.5e-01 to the convex bound |"},
		{"choice among ranks",
			row{Size: size{40, 2000}, Method: "choice", Seconds: []float64{7.06}, Refit: []float64{0.01}, Accuracy: []float64{0.8},
				Rank: "5 (rank ≤ 5)", Gap: "0.95", Betas: []string{"x"}, Mixed: true, Certs: &certCount{CVFits: 120, CVOK: 120, Refits: 4, RefitOK: 4, Worst: 1e-3}},
			"| 40 × 1600 | choice | x | 7.06 s | 0.01 s | 0.8000 | 5 (rank ≤ 5) | 120/120 CV + 4/4 refit certified (convex) or stationary (rank ≤ d), worst convex gap 1.0e-03 | 0.95 |"},
		{"cblearn",
			row{Size: size{100, 20000}, Method: "cblearn SOE d=5", Seconds: []float64{9.02}, Accuracy: []float64{0.84}, Rank: "5", Gap: "—"},
			"| 100 × 16000 | cblearn SOE d=5 | — | 9.02 s | — | 0.8400 | 5 | — | — |"},
		{"skipped",
			row{Size: size{100, 20000}, Method: "cblearn", Note: "skipped: no python"},
			"| 100 × 16000 | cblearn | — | skipped: no python | — | — | — | — | — |"},
	}
	for _, tc := range tests {
		var b strings.Builder
		if err := writeTable(&b, []row{tc.r}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(b.String()), "\n")
		if len(lines) != 3 || lines[2] != tc.want {
			t.Errorf("%s: table\n%s\nwant the row\n%s", tc.name, b.String(), tc.want)
		}
		if got, want := strings.Count(lines[2], "|"), strings.Count(lines[0], "|"); got != want {
			t.Errorf("%s: %d cells, header has %d", tc.name, got, want)
		}
	}
}

// TestMkpoeRows makes one row per rank and, with several, the choice row.
func TestMkpoeRows(t *testing.T) {
	tests := []struct {
		ranks   []int
		methods []string
		mixed   bool
	}{
		{[]int{0}, []string{"mkpoe GNMDS convex (alm)"}, false},
		{[]int{0, 5}, []string{"mkpoe GNMDS convex (alm)", "mkpoe GNMDS rank ≤ 5 (lowrank)", "mkpoe GNMDS, CV's choice of rank ∈ {0, 5} and β (all rows' time)"}, true},
		{[]int{2, 5}, []string{"mkpoe GNMDS rank ≤ 2 (lowrank)", "mkpoe GNMDS rank ≤ 5 (lowrank)", "mkpoe GNMDS, CV's choice of rank ∈ {2, 5} and β (all rows' time)"}, false},
	}
	for _, tc := range tests {
		rows := mkpoeRows(config{ranks: tc.ranks, solver: mkpoe.ALM}, size{40, 2000})
		var got []string
		for _, r := range rows {
			got = append(got, r.Method)
			if r.Certs == nil {
				t.Errorf("ranks %v: row %q has no certificate counts", tc.ranks, r.Method)
			}
		}
		if !reflect.DeepEqual(got, tc.methods) {
			t.Errorf("ranks %v: rows %q, want %q", tc.ranks, got, tc.methods)
		}
		if last := rows[len(rows)-1]; len(rows) > 1 && last.Mixed != tc.mixed {
			t.Errorf("ranks %v: choice row Mixed = %v, want %v", tc.ranks, last.Mixed, tc.mixed)
		}
	}
}

func TestMkpoeSetup(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "mkpoe solver auto, ranks {0, 2, 5, 10}, 3-fold CV over {1.25, 1.5, 2, 3, 5, 10, 30, 100, 300, 1000}·β_min (3 folds at once), warm along the grid"},
		{[]string{"-solver", "lowrank", "-ranks", "0", "-grid", "1.5,2", "-warm=false", "-folds", "1"}, "mkpoe solver lowrank, ranks {0}, 3-fold CV over {1.5, 2}·β_min (1 fold at once), cold"},
	}
	for _, tc := range tests {
		cfg, err := parseFlags(tc.args)
		if err != nil {
			t.Fatal(err)
		}
		if got := mkpoeSetup(cfg); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestRunMkpoeCountsEveryFit runs the CV and refit on a tiny planted set
// and checks that every fit is counted: 3 folds × 2 multiples and one
// refit per rank, all certified (convex) or stationary (rank ≤ 2), warm
// or cold; with the folds fitted at once (fitSpec.Folds 3), every number
// but the times is the same as one after the other.
func TestRunMkpoeCountsEveryFit(t *testing.T) {
	pl, err := data.GeneratePlanted(data.PlantedSpec{N: 20, Dim: 2, Triplets: 600, Flip: 0.1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	train, test := splitTrainTest(pl.Triplets)
	bmin, err := minBeta(20, train)
	if err != nil {
		t.Fatal(err)
	}
	grid := []float64{1.5, 3}
	for _, spec := range []fitSpec{
		{Solver: mkpoe.ALM, Warm: true},
		{Solver: mkpoe.ALM},
		{Solver: mkpoe.ALM, Rank: 2, Warm: true},
	} {
		res, err := runMkpoe(context.Background(), 20, train, test, grid, spec, 1)
		if err != nil {
			t.Fatalf("%+v: %v", spec, err)
		}
		want := certCount{CVFits: 6, CVOK: 6, Refits: 1, RefitOK: 1, Worst: res.Certs.Worst}
		if res.Certs != want {
			t.Errorf("%+v: counts %+v, want %+v", spec, res.Certs, want)
		}
		if spec.Rank == 0 && !(res.Certs.Worst > 0 && res.Certs.Worst <= mkpoe.DefaultTol) {
			t.Errorf("%+v: worst convex gap %g, want in (0, 1e-3]", spec, res.Certs.Worst)
		}
		if spec.Rank > 0 && (res.Certs.Worst != 0 || res.Rank > 2) {
			t.Errorf("%+v: worst convex gap %g and rank %d, want 0 and ≤ 2", spec, res.Certs.Worst, res.Rank)
		}
		if !slices.Contains(grid, res.Multiple) || len(res.CVScores) != len(grid) || math.Abs(res.Beta-res.Multiple*bmin) > 1e-12*res.Beta {
			t.Errorf("%+v: multiple %g, scores %v, β %g", spec, res.Multiple, res.CVScores, res.Beta)
		}
		if !(res.Accuracy > 0.5 && res.Accuracy <= 1) {
			t.Errorf("%+v: held-out accuracy %g", spec, res.Accuracy)
		}
		at := spec
		at.Folds = cvFolds
		together, err := runMkpoe(context.Background(), 20, train, test, grid, at, 1)
		if err != nil {
			t.Fatalf("%+v: %v", at, err)
		}
		together.Total, together.Refit = res.Total, res.Refit
		if !reflect.DeepEqual(together, res) {
			t.Errorf("%+v: folds at once gave %+v, one after the other %+v", at, together, res)
		}
	}
}

// TestParseSets reads material and perceptual entries; a perceptual folder
// stands for its 12 files in palette × task order.
func TestParseSets(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "color-tm.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := parseSets("material:m, perceptual:" + dir + "/color-tm.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []problem{{Kind: kindMaterial, Path: "m", Name: "material"}, {Kind: kindPerceptual, Path: dir + "/color-tm.txt", Name: "perceptual color-tm"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseSets = %+v, want %+v", got, want)
	}
	all, err := parseSets("perceptual:" + dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 12 || all[1].Name != "perceptual color-td" || all[11].Path != filepath.Join(dir, "sizecolor-td.txt") {
		t.Errorf("a folder gave %+v", all)
	}
	for _, bad := range []struct{ in, want string }{
		{"material", "is not kind:PATH"},
		{"material:", "is not kind:PATH"},
		{"planted:x", "unknown kind"},
		{"perceptual:" + dir + "/none", "no such file"},
		{",", "no sets"},
	} {
		if _, err := parseSets(bad.in); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("parseSets(%q): %v, want an error containing %q", bad.in, err, bad.want)
		}
	}
}

// TestParseFlagsSets: -sets alone runs no planted size; with -sizes given
// too, both.
func TestParseFlagsSets(t *testing.T) {
	cfg, err := parseFlags([]string{"-sets", "material:m"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.sizes) != 0 || len(cfg.problems()) != 1 || cfg.problems()[0].Kind != kindMaterial {
		t.Errorf("-sets alone: sizes %v, problems %+v", cfg.sizes, cfg.problems())
	}
	cfg, err = parseFlags([]string{"-sets", "material:m", "-sizes", "40:2000"})
	if err != nil {
		t.Fatal(err)
	}
	if ps := cfg.problems(); len(ps) != 2 || ps[0].Kind != kindPlanted || ps[0].Size != (size{40, 2000}) || ps[1].Kind != kindMaterial {
		t.Errorf("-sets and -sizes: problems %+v", ps)
	}
	if _, err := parseFlags([]string{"-sets", "x:y"}); err == nil {
		t.Error("-sets x:y accepted")
	}
}

// TestShuffleSplit: a seeded shuffle, 80% train, every comparison once,
// the input untouched.
func TestShuffleSplit(t *testing.T) {
	var cs []data.Comparison
	for i := range 10 {
		cs = append(cs, data.Triplet(i, i+1, i+2))
	}
	orig := slices.Clone(cs)
	train, test := shuffleSplit(cs, 3)
	if len(train) != 8 || len(test) != 2 || !reflect.DeepEqual(cs, orig) {
		t.Fatalf("split %d + %d, input changed %v", len(train), len(test), !reflect.DeepEqual(cs, orig))
	}
	all := append(slices.Clone(train), test...)
	if reflect.DeepEqual(all, cs) {
		t.Error("not shuffled")
	}
	slices.SortFunc(all, func(a, b data.Comparison) int { return a.I - b.I })
	if !reflect.DeepEqual(all, cs) {
		t.Errorf("split lost or repeated comparisons: %v", all)
	}
	if tr2, _ := shuffleSplit(cs, 3); !reflect.DeepEqual(tr2, train) {
		t.Error("same seed, different split")
	}
}

// TestLoadProblems loads a small material folder and a perceptual file.
func TestLoadProblems(t *testing.T) {
	dir := t.TempDir()
	mat := `{"answers": [[0,1,2],[3,4,0],[4,2,1]], "agreement": [[3,1],[2,2],[0,2]]}`
	for _, f := range []string{data.MaterialTrainFile, data.MaterialTestFile} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(mat), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n, train, test, err := problem{Kind: kindMaterial, Path: dir}.load(1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []data.Comparison{data.Triplet(0, 1, 2), data.Triplet(4, 1, 2)}; n != 100 || !reflect.DeepEqual(train, want) || !reflect.DeepEqual(test, want) {
		t.Errorf("material: n %d, train %v, test %v; want 100, %v twice", n, train, test, want)
	}
	// One subject in the univariate layout: 8 practice triplets, then the
	// 10 palette triplets (p, p+1, p+2) and 120 catch trials.
	var v []string
	for range 8 {
		v = append(v, "0", "1", "2")
	}
	for p := range 10 {
		v = append(v, fmt.Sprint(4+p), fmt.Sprint(4+(p+1)%10), fmt.Sprint(4+(p+2)%10))
	}
	for range 120 {
		v = append(v, "4", "4", "5")
	}
	path := filepath.Join(dir, "color-tm.txt")
	if err := os.WriteFile(path, []byte(strings.Join(v, ",")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n, train, test, err = problem{Kind: kindPerceptual, Path: path}.load(1)
	if err != nil {
		t.Fatal(err)
	}
	if n != 10 || len(train) != 8 || len(test) != 2 {
		t.Errorf("perceptual: n %d, %d + %d triplets; want 10, 8 + 2", n, len(train), len(test))
	}
}

// TestSummaryLines compares the CV's choice with the best cblearn row of
// its set, in standard errors √(p(1−p)/m) at the cblearn accuracy.
func TestSummaryLines(t *testing.T) {
	sz := size{100, 24144}
	rows := []row{
		{Size: sz, Set: "material", Method: "mkpoe convex", Accuracy: []float64{0.84}, Certs: &certCount{}, Test: 2500},
		{Size: sz, Set: "material", Method: "choice", Accuracy: []float64{0.85}, Certs: &certCount{}, Choice: true, Test: 2500},
		{Size: sz, Set: "material", Method: "cblearn SOE d=2", Accuracy: []float64{0.86}, Test: 2500},
		{Size: sz, Set: "material", Method: "cblearn TSTE d=5", Accuracy: []float64{0.9}, Test: 2500},
		{Size: sz, Set: "material", Method: "cblearn GNMDS d=5", Note: "failed: x", Test: 2500},
		{Size: sz, Set: "material", Method: "cblearn, CV's choice", Accuracy: []float64{0.95}, PeerCV: true, Chosen: []string{"SOE d=2"}, Test: 2500},
		{Size: size{10, 2400}, Set: "perceptual color-tm", Method: "choice", Accuracy: []float64{0.7}, Certs: &certCount{}, Choice: true, Test: 480},
		{Size: size{10, 2400}, Set: "perceptual color-tm", Method: "cblearn", Note: "skipped: -python none"},
	}
	got := summaryLines(rows)
	// SE = √(0.9·0.1/2500) = 0.006; (0.85 − 0.9)/0.006 = −8.3. The CV
	// row (0.95 here, to show it is not taken for a fit) has SE
	// √(0.95·0.05/2500) = 0.00436, (0.85 − 0.95)/0.00436 = −22.9.
	want := []string{"material: CV's choice 0.8500, best cblearn (TSTE d=5) 0.9000, difference -0.0500 = -8.3 SE (SE √(p(1−p)/m) = 0.0060 at the cblearn p, m = 2500 held out)" +
		"; cblearn's CV choice (SOE d=2) 0.9500, difference -0.1000 = -22.9 SE (SE 0.0044)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summaryLines =\n%q\nwant\n%q", got, want)
	}
	// A cblearn accuracy of exactly 1 has no standard error: the line
	// says so instead of dividing by zero.
	perfect := []row{
		{Size: sz, Set: "s", Method: "choice", Accuracy: []float64{0.99}, Certs: &certCount{}, Choice: true, Test: 100},
		{Size: sz, Set: "s", Method: "cblearn SOE d=2", Accuracy: []float64{1}, Test: 100},
	}
	wantPerfect := []string{"s: CV's choice 0.9900, best cblearn (SOE d=2) 1.0000, difference -0.0100 = no SE (cblearn p is 0 or 1) (SE √(p(1−p)/m) = 0.0000 at the cblearn p, m = 100 held out)"}
	if got := summaryLines(perfect); !reflect.DeepEqual(got, wantPerfect) {
		t.Errorf("summaryLines at p = 1 =\n%q\nwant\n%q", got, wantPerfect)
	}
	var b strings.Builder
	if err := writeTable(&b, rows[1:2]); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| material: 100 × 0 | choice |") {
		t.Errorf("table row of a crowd set:\n%s", b.String())
	}
}

// TestPeerPairs orders cblearn's settings as its rows: estimators, then
// dimensions.
func TestPeerPairs(t *testing.T) {
	got := peerPairs([]string{"SOE", "TSTE"}, []int{2, 10})
	want := []pair{{"SOE", 2}, {"SOE", 10}, {"TSTE", 2}, {"TSTE", 10}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("peerPairs = %v, want %v", got, want)
	}
	if s := got[3].String(); s != "TSTE d=10" {
		t.Errorf("String = %q", s)
	}
	if n := peerCVFits(9); n != 28 {
		t.Errorf("peerCVFits(9) = %d, want 28 (27 CV fits and the refit)", n)
	}
}

// TestBestPair picks the best mean CV accuracy, the first in order on
// ties, and skips pairs whose CV failed.
func TestBestPair(t *testing.T) {
	fail := errors.New("timeout")
	tests := []struct {
		name string
		cv   []pairCV
		want int
	}{
		{"clear best", []pairCV{{Acc: []float64{0.7, 0.8, 0.9}}, {Acc: []float64{0.9, 0.8, 0.85}}, {Acc: []float64{0.6, 0.6, 0.6}}}, 1},
		{"best mean, not best fold", []pairCV{{Acc: []float64{0.95, 0.6, 0.6}}, {Acc: []float64{0.75, 0.75, 0.75}}}, 1},
		{"tie: the first", []pairCV{{Acc: []float64{0.5, 0.5, 0.5}}, {Acc: []float64{0.6, 0.7, 0.8}, Seconds: 9}, {Acc: []float64{0.6, 0.7, 0.8}, Seconds: 1}}, 1},
		{"failed pair skipped", []pairCV{{Acc: []float64{0.9, 0.9}, Err: fail}, {Acc: []float64{0.6, 0.6}}, {Err: fail}}, 1},
		{"failed first, tie after", []pairCV{{Err: fail}, {Acc: []float64{0.7}}, {Acc: []float64{0.7}}}, 1},
		{"all failed", []pairCV{{Err: fail}, {Err: fail}}, -1},
		{"none", nil, -1},
	}
	for _, tc := range tests {
		if got := bestPair(tc.cv); got != tc.want {
			t.Errorf("%s: bestPair = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestPairCVMean(t *testing.T) {
	tests := []struct {
		c    pairCV
		want float64
	}{
		{pairCV{Acc: []float64{0.6, 0.75, 0.9}}, 0.75},
		{pairCV{Acc: []float64{0.5}}, 0.5},
		{pairCV{}, math.NaN()},
		{pairCV{Acc: []float64{0.6}, Err: errors.New("x")}, math.NaN()},
	}
	for _, tc := range tests {
		got := tc.c.mean()
		if math.IsNaN(tc.want) != math.IsNaN(got) || !math.IsNaN(got) && math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("mean of %+v = %v, want %v", tc.c, got, tc.want)
		}
	}
}

// TestAddPeerCV fills the CV-choice row: the chosen pair's own fit as the
// refit, the time of every CV fit and the refit, one rank cell per
// distinct choice, and a note when the choice cannot be refit.
func TestAddPeerCV(t *testing.T) {
	pairs := []pair{{"SOE", 5}, {"GNMDS", 5}, {"TSTE", 10}}
	refits := []peerResult{{Seconds: 3, Accuracy: 0.80}, {Seconds: 0.5, Accuracy: 0.85}, {Seconds: 1.25, Accuracy: 0.83}}
	all := []bool{true, true, true}
	cvA := []pairCV{{Acc: []float64{0.7, 0.7, 0.7}, Seconds: 6}, {Acc: []float64{0.72, 0.7, 0.7}, Seconds: 1}, {Acc: []float64{0.8, 0.8, 0.8}, Seconds: 2}}
	cvB := []pairCV{{Acc: []float64{0.7, 0.7, 0.7}, Seconds: 6}, {Acc: []float64{0.9, 0.9, 0.9}, Seconds: 1}, {Acc: []float64{0.8, 0.8, 0.8}, Seconds: 2}}

	r := peerCVRow(size{100, 20000}, len(pairs))
	if r.Method != "cblearn, CV's choice of estimator and d (all 10 fits' time)" || !r.PeerCV || r.Certs != nil {
		t.Fatalf("empty row %+v", r)
	}
	addPeerCV(&r, pairs, cvA, refits, all)
	// TSTE d=10: 6 + 1 + 2 CV seconds + 1.25 refit.
	if !reflect.DeepEqual(r.Seconds, []float64{10.25}) || !reflect.DeepEqual(r.Refit, []float64{1.25}) ||
		!reflect.DeepEqual(r.Accuracy, []float64{0.83}) || r.Rank != "10 (TSTE)" || r.Note != "" {
		t.Errorf("first repetition: %+v", r)
	}
	addPeerCV(&r, pairs, cvB, refits, all)
	if !reflect.DeepEqual(r.Seconds, []float64{10.25, 9.5}) || !reflect.DeepEqual(r.Accuracy, []float64{0.83, 0.85}) ||
		r.Rank != "10 (TSTE); 5 (GNMDS)" || !reflect.DeepEqual(r.Chosen, []string{"TSTE d=10", "GNMDS d=5"}) {
		t.Errorf("second repetition: %+v", r)
	}
	addPeerCV(&r, pairs, cvA, refits, all)
	if r.Rank != "10 (TSTE); 5 (GNMDS)" || len(r.Seconds) != 3 {
		t.Errorf("third repetition, a choice seen before: %+v", r)
	}
	var b strings.Builder
	if err := writeTable(&b, []row{r}); err != nil {
		t.Fatal(err)
	}
	want := "| 100 × 16000 | cblearn, CV's choice of estimator and d (all 10 fits' time) | — | 10.2 s (9.50–10.2 s) | 1.25 s | 0.8367 | 10 (TSTE); 5 (GNMDS) | — | — |"
	if lines := strings.Split(strings.TrimSpace(b.String()), "\n"); lines[2] != want {
		t.Errorf("table row\n%s\nwant\n%s", lines[2], want)
	}

	notes := []struct {
		cv   []pairCV
		ok   []bool
		note string
	}{
		{cvA, []bool{true, true, false}, "failed: the refit of TSTE d=10 failed"},
		{[]pairCV{{Err: errors.New("x")}, {Err: errors.New("x")}, {Err: errors.New("x")}}, all, "failed: no setting completed its CV"},
	}
	for _, tc := range notes {
		r := peerCVRow(size{100, 20000}, len(pairs))
		addPeerCV(&r, pairs, tc.cv, refits, tc.ok)
		if r.Note != tc.note || len(r.Seconds) != 0 || len(r.Accuracy) != 0 {
			t.Errorf("row %+v, want only the note %q", r, tc.note)
		}
	}
}

// TestPeerFoldFiles writes cblearn's CV folds exactly as mkpoe's CV makes
// them: fold f's files hold foldSplit's fit and score parts, 0-based.
func TestPeerFoldFiles(t *testing.T) {
	pl, err := data.GeneratePlanted(data.PlantedSpec{N: 12, Dim: 2, Triplets: 50, Flip: 0.1, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	train := pl.Triplets
	p := &peer{dir: t.TempDir()}
	const seed = 9
	fits, scores, err := p.foldFiles("tag", train, seed)
	if err != nil {
		t.Fatal(err)
	}
	if len(fits) != cvFolds || len(scores) != cvFolds {
		t.Fatalf("%d fit and %d score files, want %d each", len(fits), len(scores), cvFolds)
	}
	folds := foldIndices(len(train), cvFolds, seed)
	total := 0
	for f := range folds {
		fit, score := foldSplit(train, folds, f)
		for _, c := range []struct {
			path string
			want []data.Comparison
		}{{fits[f], fit}, {scores[f], score}} {
			b, err := os.ReadFile(c.path)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, x := range c.want {
				lines = append(lines, fmt.Sprintf("%d %d %d", x.I, x.J, x.L))
			}
			if got, want := string(b), strings.Join(lines, "\n")+"\n"; got != want {
				t.Errorf("%s:\n%s\nwant\n%s", filepath.Base(c.path), got, want)
			}
		}
		if filepath.Base(fits[f]) != fmt.Sprintf("tag-fold%d-fit.txt", f+1) {
			t.Errorf("fold %d file %s", f, fits[f])
		}
		total += len(score)
		if len(fit)+len(score) != len(train) {
			t.Errorf("fold %d: %d + %d triplets, want %d", f, len(fit), len(score), len(train))
		}
	}
	if total != len(train) {
		t.Errorf("the score parts hold %d triplets, want all %d", total, len(train))
	}
}

func TestParseResults(t *testing.T) {
	tests := []struct {
		out  string
		want int
		res  []peerResult
		bad  string
	}{
		{"{\"seconds\": 1.5, \"accuracy\": 0.75}\n", 1, []peerResult{{1.5, 0.75}}, ""},
		{"{\"seconds\": 1, \"accuracy\": 0.5}\n\n{\"seconds\": 2, \"accuracy\": 0.25}\n{\"seconds\": 3, \"accuracy\": 1}\n", 3,
			[]peerResult{{1, 0.5}, {2, 0.25}, {3, 1}}, ""},
		{"{\"seconds\": 1, \"accuracy\": 0.5}\n", 3, nil, "printed 1 results, want 3"},
		{"warning: x\n", 1, nil, "cblearn_fit.py printed \"warning: x\""},
		{"", 1, nil, "printed 0 results, want 1"},
	}
	for _, tc := range tests {
		got, err := parseResults([]byte(tc.out), tc.want)
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("%q: error %v, want one containing %q", tc.out, err, tc.bad)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.res) {
			t.Errorf("%q: %v, %v; want %v", tc.out, got, err, tc.res)
		}
	}
}

// TestCblearnFoldMode checks that cblearn_fit.py's several-fits mode
// gives the second fit of a call what a separate call gives. It needs
// the interpreter of -python's default with cblearn (two calls, a few
// seconds) and is skipped without it.
func TestCblearnFoldMode(t *testing.T) {
	const python = "/opt/cblearn-venv/bin/python"
	if _, err := os.Stat(python); err != nil {
		t.Skip("no ", python)
	}
	ctx := context.Background()
	p, err := newPeer(ctx, python)
	if err != nil {
		t.Skip(err)
	}
	defer p.close()
	pl, err := data.GeneratePlanted(data.PlantedSpec{N: 15, Dim: 2, Triplets: 300, Flip: 0.05, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	fits, scores, err := p.foldFiles("t", pl.Triplets, 1)
	if err != nil {
		t.Fatal(err)
	}
	all, err := p.fitAll(ctx, "GNMDS", 2, 15, 1, fits[:2], scores[:2])
	if err != nil {
		t.Fatal(err)
	}
	// The second fit of a call, alone: it must not depend on the first.
	one, err := p.fit(ctx, "GNMDS", 2, 15, 1, fits[1], scores[1])
	if err != nil {
		t.Fatal(err)
	}
	if one.Accuracy != all[1].Accuracy {
		t.Errorf("fold 2: accuracy %v as a call's second fit, %v alone", all[1].Accuracy, one.Accuracy)
	}
	for f, r := range all {
		if r.Accuracy < 0.6 || r.Accuracy > 1 {
			t.Errorf("fold %d: accuracy %v on a 2-d set with 5%% flips, want 0.6 to 1", f+1, r.Accuracy)
		}
	}
}
