package mkpoe

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/data"
	"gonum.org/v1/gonum/mat"
)

// checkStatus holds a model's Status to its own figures: Converged exactly
// when the status is not StatusNotConverged, and StatusCertified exactly
// when a converged fit's certificate holds at tol (Objective − DualBound ≤
// tol·Objective, the test every method stops on). A fit whose gap is
// above tol is never reported certified, whatever stopped it.
func checkStatus(t *testing.T, m *Model, tol float64) {
	t.Helper()
	st := m.Stats
	if st.Converged != (st.Status != StatusNotConverged) {
		t.Errorf("status %q with Converged %v", st.Status, st.Converged)
	}
	holds := m.Objective-st.DualBound <= tol*m.Objective
	if (st.Status == StatusCertified) != (st.Converged && holds) {
		t.Errorf("status %q, converged %v, gap %.3g at tol %g: certified must mean the certificate holds", st.Status, st.Converged, st.RelativeGap, tol)
	}
}

// squareProblem is the square of Sec. 6, Fig. 7 (ExampleFit_square): four items on the
// identity kernel, each side closer than each diagonal. No embedding of
// rank 1 satisfies it, so a rank-1 fit stops at a stationary point far
// from the convex optimum (gap about 0.67); rank 2 reaches it.
func squareProblem() ([]mat.Symmetric, []data.Comparison) {
	id := mat.NewSymDense(4, nil)
	for i := range 4 {
		id.SetSym(i, i, 1)
	}
	var cs []data.Comparison
	for _, s := range [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}} {
		for _, d := range [][2]int{{0, 2}, {1, 3}} {
			cs = append(cs, data.Comparison{I: s[0], J: s[1], K: d[0], L: d[1]})
		}
	}
	return []mat.Symmetric{id}, cs
}

// TestFitStatus: a fixed-rank fit that stops at a stationary point above
// Tol is StatusStationary (Converged, not certified), never
// StatusCertified; convex fits and a fixed rank whose certificate holds
// are certified; a fit stopped by MaxIter is not converged.
func TestFitStatus(t *testing.T) {
	t.Parallel()
	ks, cs := squareProblem()
	for _, tc := range []struct {
		name    string
		s       Settings
		want    FitStatus
		gapOver float64 // the gap must exceed it (0: no check)
	}{
		{"convex, default solver", Settings{Beta: 10}, StatusCertified, 0},
		{"convex, lowrank", Settings{Beta: 10, Solver: LowRank}, StatusCertified, 0},
		{"convex, alm", Settings{Beta: 10, Solver: ALM}, StatusCertified, 0},
		{"convex, diagonal", Settings{Beta: 10, Mode: Diag}, StatusCertified, 0},
		{"convex at β ≤ β_min", Settings{Beta: 1}, StatusCertified, 0},
		{"rank 1: stationary far from the convex optimum", Settings{Beta: 10, Rank: 1}, StatusStationary, 0.5},
		{"rank 1 at a tight Tol", Settings{Beta: 10, Rank: 1, Tol: 1e-6}, StatusStationary, 0.5},
		{"rank 2: the convex certificate holds", Settings{Beta: 10, Rank: 2}, StatusCertified, 0},
		{"rank 4 (the order): the convex certificate holds", Settings{Beta: 10, Rank: 4}, StatusCertified, 0},
		{"rank 1 stopped by MaxIter", Settings{Beta: 10, Rank: 1, MaxIter: 1}, StatusNotConverged, 0},
		{"convex stopped by MaxIter", Settings{Beta: 10, MaxIter: 1}, StatusNotConverged, 0},
		{"subgradient", Settings{Beta: 10, Solver: Subgradient}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Fit(ks, cs, &tc.s)
			if err != nil {
				t.Fatal(err)
			}
			tol := tc.s.Tol
			if tol == 0 {
				tol = DefaultTol
			}
			checkStatus(t, m, tol)
			if tc.want != "" && m.Stats.Status != tc.want {
				t.Errorf("status %q (converged %v, gap %.3g after %d iterations), want %q", m.Stats.Status, m.Stats.Converged, m.Stats.RelativeGap, m.Stats.Iterations, tc.want)
			}
			if m.Stats.RelativeGap <= tc.gapOver && tc.gapOver > 0 {
				t.Errorf("gap %.3g, want above %g (the rank bound's cost)", m.Stats.RelativeGap, tc.gapOver)
			}
		})
	}
}

// TestStatusJSON: a model file keeps the status; a file written before it
// was recorded reads as "" (unknown, not certified); an unknown value is
// an error naming the file.
func TestStatusJSON(t *testing.T) {
	t.Parallel()
	ks, cs := squareProblem()
	m, err := Fit(ks, cs, &Settings{Beta: 10, Rank: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"status":"stationary"`) {
		t.Errorf("model file lacks \"status\":\"stationary\"")
	}
	back, err := ReadJSON(bytes.NewReader(b.Bytes()), "m.json")
	if err != nil {
		t.Fatal(err)
	}
	if back.Stats.Status != StatusStationary || !back.Stats.Converged {
		t.Errorf("read back status %q, converged %v; want stationary, true", back.Stats.Status, back.Stats.Converged)
	}
	edit := func(status any) []byte {
		var j map[string]any
		if err := json.Unmarshal(b.Bytes(), &j); err != nil {
			t.Fatal(err)
		}
		if status == nil {
			delete(j, "status")
		} else {
			j["status"] = status
		}
		out, _ := json.Marshal(j)
		return out
	}
	old, err := ReadJSON(bytes.NewReader(edit(nil)), "old.json")
	if err != nil {
		t.Fatal(err)
	}
	if old.Stats.Status != "" {
		t.Errorf("a file without status reads as %q, want \"\" (unknown)", old.Stats.Status)
	}
	if _, err := ReadJSON(bytes.NewReader(edit("done")), "bad.json"); err == nil || !strings.Contains(err.Error(), "bad.json") || !strings.Contains(err.Error(), `got "done"`) {
		t.Errorf("status \"done\": error %v, want one naming bad.json and the value", err)
	}
}
