package results

import (
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/floats/scalar"
)

// readCost reads testdata/cost.json, a hand-made report of two rows, two
// folds and three interleaved repeats. Its process CPU seconds per repeat,
// summed over the folds: "Processed full" 10+12, 11+11, 9+12 = 22, 22, 21;
// "Full full" 20+20, 30+14, 25+17 = 40, 44, 42; so the ratios are 0.55,
// 0.5, 0.5, their median 0.5. Iterations per repeat 100+120 = 220 and
// 200+250 = 450. "Processed full"'s stages per repeat: accelerated 80+100
// iterations in 6+7 s, interior-point 20+20 in 3+4 s.
func readCost(t *testing.T, edit func(string) string) (*CostReport, error) {
	t.Helper()
	b, err := os.ReadFile("testdata/cost.json")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if edit != nil {
		s = edit(s)
	}
	return DecodeCost([]byte(s), "cost.json")
}

func TestCompareCostHandMade(t *testing.T) {
	t.Parallel()
	r, err := readCost(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := CompareCost(r, "processed full", "Full full") // labels match case-insensitively
	if err != nil {
		t.Fatal(err)
	}
	if !floats.EqualApprox(c.CPU[0], []float64{22, 22, 21}, 1e-12) || !floats.EqualApprox(c.CPU[1], []float64{40, 44, 42}, 1e-12) {
		t.Errorf("CPU per repeat %v and %v, want [22 22 21] and [40 44 42]", c.CPU[0], c.CPU[1])
	}
	if !floats.EqualApprox(c.Ratios, []float64{0.55, 0.5, 0.5}, 1e-12) {
		t.Errorf("ratios %v, want [0.55 0.5 0.5]", c.Ratios)
	}
	if !scalar.EqualWithinAbsOrRel(c.Cut, 0.5, 1e-12, 1e-12) || !scalar.EqualWithinAbsOrRel(c.MaxRatio, 0.55, 1e-12, 1e-12) || !c.Holds {
		t.Errorf("cut %g, max ratio %g, holds %v; want 0.5, 0.55, true", c.Cut, c.MaxRatio, c.Holds)
	}
	if c.Iterations != [2]int{220, 450} {
		t.Errorf("iterations %v, want [220 450]", c.Iterations)
	}
	want := []StageCost{{"accelerated", 180, 13}, {"interior-point", 40, 7}}
	if len(c.Stages[0]) != 2 || c.Stages[1] != nil {
		t.Fatalf("stages %v and %v, want two for the first row and none for the second", c.Stages[0], c.Stages[1])
	}
	for i, w := range want {
		g := c.Stages[0][i]
		if g.Stage != w.Stage || g.Iterations != w.Iterations || !scalar.EqualWithinAbsOrRel(g.CPUSeconds, w.CPUSeconds, 1e-12, 1e-12) {
			t.Errorf("stage %d: %+v, want %+v", i, g, w)
		}
	}
	// The other way round the claim fails in every repeat.
	back, err := CompareCost(r, "Full full", "Processed full")
	if err != nil {
		t.Fatal(err)
	}
	if back.Holds || back.Cut >= 0 {
		t.Errorf("reversed: holds %v, cut %g; want false and a negative cut", back.Holds, back.Cut)
	}
}

func TestCompareCostFailures(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		name  string
		edit  func(string) string
		rows  [2]string
		holds bool
		err   string
	}{
		{name: "one repeat dearer", rows: [2]string{"Processed full", "Full full"},
			// Repeat 0's first "Full full" fold: 20 → 2 s, so 22/22 = 1: not cheaper.
			edit: func(s string) string {
				return strings.Replace(s, `"process_cpu_seconds": 20,`, `"process_cpu_seconds": 2,`, 1)
			}},
		{name: "iterations differ between repeats", rows: [2]string{"Processed full", "Full full"},
			edit: func(s string) string { return strings.Replace(s, `"iterations": 120`, `"iterations": 121`, 1) },
			err:  `row "Processed full" took 220 iterations in repeat 1 and 221 in repeat 0`},
		{name: "row not measured", rows: [2]string{"Length-2 full", "Full full"}, err: `row "Length-2 full" has 0 of 2 folds in repeat 0`},
	} {
		t.Run(test.name, func(t *testing.T) {
			t.Parallel()
			r, err := readCost(t, test.edit)
			if err != nil {
				t.Fatal(err)
			}
			c, err := CompareCost(r, test.rows[0], test.rows[1])
			if test.err != "" {
				if err == nil || !strings.Contains(err.Error(), test.err) {
					t.Fatalf("error %v, want %q", err, test.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Holds != test.holds {
				t.Errorf("holds %v (ratios %v), want %v", c.Holds, c.Ratios, test.holds)
			}
		})
	}
}

func TestDecodeCostRejects(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		name, old, new, err string
	}{
		{"format", `"mkpoe-cost/1"`, `"mkpoe-cost/9"`, "mkpoe-cost/9"},
		{"unknown row", `"row": "Full full"`, `"row": "Full ful"`, `runs[1]: row "Full ful" is not one of rows`},
		{"fold out of range", `"fold": 1`, `"fold": 2`, "fold must be in 0..1, got 2"},
		{"no process CPU", `"process_cpu_seconds": 10,`, ``, "runs[0]: process_cpu_seconds must be recorded"},
		{"unknown field", `"split": 0`, `"split": 0, "splat": 1`, "splat"},
	} {
		t.Run(test.name, func(t *testing.T) {
			t.Parallel()
			_, err := readCost(t, func(s string) string { return strings.Replace(s, test.old, test.new, 1) })
			if err == nil || !strings.Contains(err.Error(), test.err) || !strings.Contains(err.Error(), "cost.json") {
				t.Fatalf("error %v, want one naming cost.json and containing %q", err, test.err)
			}
		})
	}
}
