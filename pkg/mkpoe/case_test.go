package mkpoe

import "testing"

// TestParseCaseAside: modes, combinations and solvers are read case aside.
func TestParseCaseAside(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Mode
	}{{"full", Full}, {"Full", Full}, {"diag", Diag}, {"Diag", Diag}, {"DIAGONAL", Diag}} {
		if got, err := ParseMode(tc.in); err != nil || got != tc.want {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	if _, err := ParseMode("sparse"); err == nil {
		t.Error(`ParseMode("sparse"): want an error`)
	}
	for _, tc := range []struct {
		in   string
		want Solver
	}{{"", Auto}, {"Accelerated", Accelerated}, {"LowRank", LowRank}, {"AUTO", Auto}, {"Subgradient", Subgradient}} {
		if got, err := ParseSolver(tc.in); err != nil || got != tc.want {
			t.Errorf("ParseSolver(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want Combine
	}{{"separate", Separate}, {"Separate", Separate}, {"K4", Separate}, {"sum", Sum}, {"SUM", Sum}, {"k1", Sum}} {
		if got, err := ParseCombine(tc.in); err != nil || got != tc.want {
			t.Errorf("ParseCombine(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	if _, err := ParseSolver("newton"); err == nil {
		t.Error(`ParseSolver("newton"): want an error`)
	}
}
