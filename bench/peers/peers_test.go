package main

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/data"
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
	if _, err := parseFlags([]string{"-estimators", "SOE,MDS"}); err == nil {
		t.Error("unknown estimator accepted")
	}
}

func TestWriteTable(t *testing.T) {
	rows := []row{
		{Size: size{100, 20000}, Method: "mkpoe", Seconds: []float64{12.34, 10}, Refit: []float64{1.5, 1.7}, Accuracy: []float64{0.9, 0.8}, Rank: "7", Gap: "1.0e-03"},
		{Size: size{100, 20000}, Method: "cblearn", Note: "skipped: no python"},
	}
	var b strings.Builder
	if err := writeTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| 100 × 16000 | mkpoe | 11.2 s (10.0–12.3 s), refit 1.60 s | 0.8500 | 7 | 1.0e-03 |",
		"| 100 × 16000 | cblearn | skipped: no python | — | — | — |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
