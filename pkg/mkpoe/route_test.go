package mkpoe

import (
	"strings"
	"testing"
)

// TestRoute covers every row of the route table (methods): which method a
// fit of each shape runs, for every Solver a user can name, with and
// without a rank bound; and that at β ≤ β_min every row answers at once.
func TestRoute(t *testing.T) {
	tune := defaultTuning().route
	big, small := tune.autoMinItems, tune.autoMinItems-1
	const minBeta = 10.0
	for _, tc := range []struct {
		name     string
		s        Settings
		n        int
		diag     bool
		want     Solver
		identity bool
	}{
		{"default: auto, kernels near β_min", Settings{Beta: 20}, big, false, LowRank, false},
		{"default: auto, kernels on few items", Settings{Beta: 20}, small, false, Accelerated, false},
		{"default: auto, diagonal", Settings{Beta: 20}, small, true, Accelerated, false},
		{"accelerated, diagonal", Settings{Beta: 20, Solver: Accelerated}, big, true, Accelerated, false},
		{"lowrank", Settings{Beta: 1e6, Solver: LowRank}, small, false, LowRank, false},
		{"lowrank on a diagonal W runs the default", Settings{Beta: 20, Solver: LowRank}, big, true, Accelerated, false},
		{"subgradient", Settings{Beta: 20, Solver: Subgradient}, big, false, Subgradient, false},
		{"subgradient, diagonal", Settings{Beta: 20, Solver: Subgradient}, big, true, Subgradient, false},
		{"auto: kernels on many items, large β", Settings{Beta: 1e6, Solver: Auto}, big, false, Accelerated, false},
		{"auto: kernels on many items near β_min", Settings{Beta: tune.autoMaxMultiple * minBeta, Solver: Auto}, big, false, LowRank, false},
		{"auto: kernels on few items", Settings{Beta: 15, Solver: Auto}, small, false, Accelerated, false},
		{"auto: diagonal", Settings{Beta: 15, Solver: Auto}, big, true, Accelerated, false},
		{"auto: GNMDS on many items", Settings{Beta: 1e6, Solver: Auto}, big, false, ALM, true},
		{"auto: GNMDS on few items", Settings{Beta: 15, Solver: Auto}, small, false, ALM, true},
		{"auto: GNMDS on a tiny set", Settings{Beta: 15, Solver: Auto}, tune.almMinItems - 1, false, Accelerated, true},
		{"alm", Settings{Beta: 20, Solver: ALM}, small, false, ALM, false},
		{"alm on a diagonal W runs the default", Settings{Beta: 20, Solver: ALM}, big, true, Accelerated, false},
		{"rank bound, alm", Settings{Beta: 1e6, Rank: 2, Solver: ALM}, big, false, LowRank, false},
		{"rank bound, default solver", Settings{Beta: 1e6, Rank: 2}, small, false, LowRank, false},
		{"rank bound, auto", Settings{Beta: 1e6, Rank: 2, Solver: Auto}, small, false, LowRank, false},
		{"rank bound, accelerated", Settings{Beta: 1e6, Rank: 2, Solver: Accelerated}, small, false, LowRank, false},
		{"default at β_min", Settings{Beta: minBeta}, big, false, LowRank, false},
		{"accelerated at β_min", Settings{Beta: minBeta, Solver: Accelerated}, big, false, Accelerated, false},
		{"diagonal below β_min", Settings{Beta: 1}, big, true, Accelerated, false},
		{"subgradient below β_min", Settings{Beta: 1, Solver: Subgradient}, big, false, Subgradient, false},
		{"auto: GNMDS below β_min", Settings{Beta: 1, Solver: Auto}, big, false, ALM, true},
		{"rank bound below β_min", Settings{Beta: 1, Rank: 2}, big, false, LowRank, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.s.withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			row := route(shape{s: s, n: tc.n, diag: tc.diag, identity: tc.identity, tune: tune, minBeta: func() float64 { return minBeta }})
			if row.name != tc.want || row.method == nil {
				t.Errorf("route: %q (method %T), want %q", row.name, row.method, tc.want)
			}
			if _, zero := row.method.(atMinBeta); zero != (tc.s.Beta <= minBeta) {
				t.Errorf("route: method %T at β = %g, β_min = %g", row.method, tc.s.Beta, minBeta)
			}
			if row.eigenbasis != formulationRow(s).eigenbasis {
				t.Errorf("%q runs on eigenbasis=%v but the fit built eigenbasis=%v", row.name, row.eigenbasis, formulationRow(s).eigenbasis)
			}
		})
	}
}

// TestRouteTable: every row has a name ParseSolver accepts, a summary, and
// a method (Auto aside), and SolverNames lists them in order.
func TestRouteTable(t *testing.T) {
	names := SolverNames()
	if len(names) != len(methods) {
		t.Fatalf("SolverNames %v, want one per row (%d)", names, len(methods))
	}
	for i, r := range methods {
		if names[i] != string(r.name) {
			t.Errorf("SolverNames[%d] = %q, want %q", i, names[i], r.name)
		}
		if got, err := ParseSolver(string(r.name)); err != nil || got != r.name {
			t.Errorf("ParseSolver(%q) = %q, %v", r.name, got, err)
		}
		if r.summary == "" || SolverSummary(r.name) != r.summary {
			t.Errorf("%q: summary %q", r.name, SolverSummary(r.name))
		}
		if (r.method == nil) != (r.name == Auto) {
			t.Errorf("%q: method %T; only Auto has none", r.name, r.method)
		}
		if r.applies == nil {
			t.Errorf("%q: no applies rule", r.name)
		}
	}
	if _, err := ParseSolver("newton"); err == nil || !strings.Contains(err.Error(), strings.Join(names, ", ")) {
		t.Errorf("ParseSolver(newton) = %v, want an error listing %v", err, names)
	}
	if def, _ := ParseSolver(""); def != DefaultSolver || DefaultSolver != Auto {
		t.Errorf(`ParseSolver("") = %q, want the default %q (Auto)`, def, DefaultSolver)
	}
}
