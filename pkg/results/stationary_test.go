package results

import (
	"bytes"
	"encoding/csv"
	"testing"
)

// TestStationaryFits: a task's stationary fits are those whose recorded
// status is "stationary"; a task file from before fit_status counts its
// converged fits above tol (they can only have stopped so); certified and
// unconverged fits never count, and unconverged ones stay Convergence's.
func TestStationaryFits(t *testing.T) {
	for _, tc := range []struct {
		name        string
		r           TaskResult
		stationary  int
		unconverged int
	}{
		{"recorded", TaskResult{Objectives: []float64{1, 2, 3}, Gaps: []float64{1e-4, 0.4, 0.5}, Converged: []bool{true, true, false},
			FitStatus: []string{"certified", "stationary", "not_converged"}}, 1, 1},
		{"recorded, all certified", TaskResult{Objectives: []float64{1, 2}, Gaps: []float64{1e-4, 2e-4}, Converged: []bool{true, true},
			FitStatus: []string{"certified", "certified"}}, 0, 0},
		{"before fit_status: converged above tol", TaskResult{Objectives: []float64{1, 2, 3}, Gaps: []float64{1e-4, 0.4, 0.5}, Converged: []bool{true, true, false}}, 1, 1},
		{"before fit_status: converged within tol", TaskResult{Objectives: []float64{1}, Gaps: []float64{1e-3}, Converged: []bool{true}}, 0, 0},
		{"before converged", TaskResult{Objectives: []float64{1}, Gaps: []float64{0.5}}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.StationaryFits(1e-3); got != tc.stationary {
				t.Errorf("StationaryFits = %d, want %d", got, tc.stationary)
			}
			if _, bad, _, _ := tc.r.Convergence(); len(bad) != tc.unconverged {
				t.Errorf("%d unconverged, want %d", len(bad), tc.unconverged)
			}
			note := tc.r.StationaryNote(1e-3)
			if want := tc.stationary > 0; (note != "") != want {
				t.Errorf("StationaryNote %q, want one: %v", note, want)
			}
			if tc.stationary > 0 && note != "stationary, not certified (1 of 3 fits, max gap 4.0e-01)" {
				t.Errorf("StationaryNote %q", note)
			}
		})
	}
}

// TestStationaryCSV: table.csv's stationary_fits is the row's count (0
// when known and none, empty when unknown) and fits.csv's status each
// fit's recorded status.
func TestStationaryCSV(t *testing.T) {
	ip := func(v int) *int { return &v }
	s := &Summary{Splits: 1, BetaGrid: []float64{1, 10}, Rows: []Row{
		{Label: "convex", Method: "k4", Mode: "full", Fits: ip(3), UnconvergedFits: ip(0)},
		{Label: "rank 2", Method: "k4", Mode: "full", Fits: ip(3), UnconvergedFits: ip(0), StationaryFits: ip(2)},
		{Label: "old", Method: "k4", Mode: "full"},
	}}
	var b bytes.Buffer
	if err := WriteTableCSV(&b, s); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range recs[0] {
		if h == "stationary_fits" {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("table.csv header %v lacks stationary_fits", recs[0])
	}
	for i, want := range []string{"0", "2", ""} {
		if got := recs[i+1][col]; got != want {
			t.Errorf("%s: stationary_fits %q, want %q", s.Rows[i].Label, got, want)
		}
	}
	tasks := []TaskResult{{Task: Task{ID: "cv-a", Kind: KindCV, Row: 1}, Status: "ok", Betas: []float64{1, 10}, Objectives: []float64{1, 2},
		Gaps: []float64{1e-4, 0.4}, Iterations: []int{5, 9}, Converged: []bool{true, true}, FitStatus: []string{"certified", "stationary"}}}
	b.Reset()
	if err := WriteFitsCSV(&b, s, tasks); err != nil {
		t.Fatal(err)
	}
	if recs, err = csv.NewReader(&b).ReadAll(); err != nil {
		t.Fatal(err)
	}
	col = -1
	for i, h := range recs[0] {
		if h == "status" {
			col = i
		}
	}
	if col < 0 || len(recs) != 3 || recs[1][col] != "certified" || recs[2][col] != "stationary" {
		t.Errorf("fits.csv status column %d of %v", col, recs)
	}
}
