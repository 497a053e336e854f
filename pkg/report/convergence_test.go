package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestConvergenceMarks: entries with fits that did not converge carry a
// dagger and the caption a footnote, in Markdown, LaTeX and HTML; rows
// whose convergence is unknown (summaries of older runs: no fields) or
// converged carry none, and the details table tells the three apart.
func TestConvergenceMarks(t *testing.T) {
	ip := func(v int) *int { return &v }
	fp := func(v float64) *float64 { return &v }
	row := func(label, method, mode string, mean float64) results.Row {
		return results.Row{Label: label, Method: method, Mode: mode, Kernels: []string{"A", "B"}, Accuracy: []float64{mean}, Mean: mean}
	}
	native := row("sum native", "native", "", 0.61)
	conv := row("K4 diag", "k4", "diag", 0.70)
	conv.Fits, conv.UnconvergedFits, conv.MaxGap = ip(9), ip(0), fp(8e-4)
	notConv := row("K4 full", "k4", "full", 0.75)
	notConv.Fits, notConv.UnconvergedFits, notConv.MaxGap, notConv.MaxIterations = ip(9), ip(3), fp(2.34e-2), ip(400)
	unknown := row("K1 full", "k1", "full", 0.72) // an older summary.json: no fields

	for _, test := range []struct {
		name    string
		rows    []results.Row
		marked  bool     // the table has a dagger and the footnote
		details []string // convergence column of the details table, in row order
	}{
		{"not converged", []results.Row{native, conv, notConv}, true, []string{"—", "all converged (max gap 8.0e-04)", "† 3 of 9 fits not converged (max gap 2.3e-02, ≤ 400 iterations)"}},
		{"all converged", []results.Row{native, conv}, false, []string{"—", "all converged (max gap 8.0e-04)"}},
		{"unknown is not converged, nor marked", []results.Row{native, unknown}, false, []string{"—", "not recorded"}},
	} {
		t.Run(test.name, func(t *testing.T) {
			s := &results.Summary{Name: "conv", Splits: 1, SolverTol: 1e-3, Rows: test.rows}
			tab := NewTable(s)
			var md, tex, htm bytes.Buffer
			if err := tab.Markdown(&md); err != nil {
				t.Fatal(err)
			}
			if err := tab.LaTeX(&tex); err != nil {
				t.Fatal(err)
			}
			if err := tab.HTML(&htm); err != nil {
				t.Fatal(err)
			}
			for _, f := range []struct {
				name, text string
				want       []string
			}{
				{"markdown", md.String(), []string{"| 0.750† |", "† Not converged: certified gap above tolerance (0.001)"}},
				{"latex", tex.String(), []string{` 0.750$^\dagger$ `, `$^\dagger$ Not converged: certified gap above tolerance (0.001)`}},
				{"html", htm.String(), []string{`<td>0.750<sup class="unconverged" title="not converged: certified gap above tolerance">†</sup>`,
					"† Not converged: certified gap above tolerance (0.001)"}},
			} {
				for _, w := range f.want {
					if got := strings.Contains(f.text, w); got != test.marked {
						t.Errorf("%s: contains %q = %v, want %v:\n%s", f.name, w, got, test.marked, f.text)
					}
				}
				if !test.marked && (strings.Contains(f.text, "†") || strings.Contains(f.text, "dagger")) {
					t.Errorf("%s has a mark:\n%s", f.name, f.text)
				}
			}
			rep := &Report{Run: &Run{Summary: s}, Table: tab}
			var got []string
			for _, d := range rep.details() {
				got = append(got, d.Convergence)
			}
			if !equalStrings(got, test.details) {
				t.Errorf("details convergence %q, want %q", got, test.details)
			}
		})
	}
}

// TestStationaryMarks: entries with fixed-rank fits stopped at a
// stationary point carry a double dagger (‡) and the caption its
// footnote, never the dagger of unconverged fits; the details table counts
// them apart from the certified ones; tables of convex rows carry no ‡.
func TestStationaryMarks(t *testing.T) {
	ip := func(v int) *int { return &v }
	fp := func(v float64) *float64 { return &v }
	row := func(label, mode string, mean float64, fits, unconverged, stationary int, gap float64) results.Row {
		r := results.Row{Label: label, Method: "k4", Mode: mode, Kernels: []string{"A", "B"}, Accuracy: []float64{mean}, Mean: mean,
			Fits: ip(fits), UnconvergedFits: ip(unconverged), MaxGap: fp(gap)}
		if stationary > 0 {
			r.StationaryFits = ip(stationary)
		}
		return r
	}
	certified := row("K4 diag", "diag", 0.70, 9, 0, 0, 8e-4)
	stationary := row("K4 full rank 2", "full", 0.80, 9, 0, 4, 0.43)
	both := row("K1 full rank 2", "full", 0.75, 9, 2, 3, 0.85)
	for _, test := range []struct {
		name             string
		rows             []results.Row
		want, wantNot    []string // in the Markdown table
		tex, htm         []string
		details          []string
		ddagger, dagger2 bool // ‡ anywhere; † anywhere
	}{
		{"stationary", []results.Row{certified, stationary},
			[]string{"| 0.700 | 0.800‡ |", "‡ Stationary: fits stopped at a stationary point (a rank bound; the subgradient method's stall), not certified: their gap is the distance to the convex problem's optimum"},
			[]string{"0.700‡", "Not converged"},
			[]string{` 0.800$^\ddagger$ `, `$^\ddagger$ Stationary: `},
			[]string{`0.800<sup class="stationary" title="stationary: fits stopped at a stationary point (a rank bound; the subgradient method's stall), not certified">‡</sup>`},
			[]string{"all converged (max gap 8.0e-04)", "‡ 4 of 9 fits stationary, 5 certified (max gap 4.3e-01)"}, true, false},
		{"stationary and not converged", []results.Row{certified, both},
			[]string{"0.750†‡", "† Not converged", "‡ Stationary"}, nil, nil, nil,
			[]string{"all converged (max gap 8.0e-04)", "† 2 of 9 fits not converged, ‡ 3 stationary (max gap 8.5e-01)"}, true, true},
		{"convex only", []results.Row{certified}, []string{"| 0.700 |"}, nil, nil, nil, []string{"all converged (max gap 8.0e-04)"}, false, false},
	} {
		t.Run(test.name, func(t *testing.T) {
			s := &results.Summary{Name: "st", Splits: 1, SolverTol: 1e-3, Rows: test.rows}
			tab := NewTable(s)
			var md, tex, htm bytes.Buffer
			if err := tab.Markdown(&md); err != nil {
				t.Fatal(err)
			}
			if err := tab.LaTeX(&tex); err != nil {
				t.Fatal(err)
			}
			if err := tab.HTML(&htm); err != nil {
				t.Fatal(err)
			}
			for _, f := range []struct {
				name, text string
				want       []string
			}{{"markdown", md.String(), test.want}, {"latex", tex.String(), test.tex}, {"html", htm.String(), test.htm}} {
				for _, w := range f.want {
					if !strings.Contains(f.text, w) {
						t.Errorf("%s lacks %q:\n%s", f.name, w, f.text)
					}
				}
				if got := strings.Contains(f.text, "‡") || strings.Contains(f.text, "ddagger"); got != test.ddagger {
					t.Errorf("%s: has ‡ %v, want %v:\n%s", f.name, got, test.ddagger, f.text)
				}
				if got := strings.Contains(f.text, "†") || strings.Contains(f.text, `\dagger$`); got != test.dagger2 {
					t.Errorf("%s: has † %v, want %v:\n%s", f.name, got, test.dagger2, f.text)
				}
			}
			for _, w := range test.wantNot {
				if strings.Contains(md.String(), w) {
					t.Errorf("markdown holds %q:\n%s", w, md.String())
				}
			}
			rep := &Report{Run: &Run{Summary: s}, Table: tab}
			var got []string
			for _, d := range rep.details() {
				got = append(got, d.Convergence)
			}
			if !equalStrings(got, test.details) {
				t.Errorf("details convergence %q, want %q", got, test.details)
			}
		})
	}
}

// TestOldSummaryConvergenceUnknown: summary.json of a run directory written
// before convergence was recorded (testdata/run) reads as unknown, and
// its tables stay as they were (the golden files are unchanged).
func TestOldSummaryConvergenceUnknown(t *testing.T) {
	run := loadFixture(t)
	for _, r := range run.Summary.Rows {
		if r.ConvergenceKnown() || r.NotConverged() {
			t.Errorf("row %s: known %v, not converged %v; want unknown", r.Label, r.ConvergenceKnown(), r.NotConverged())
		}
	}
	// The fields round-trip and absent stays absent.
	b, err := json.Marshal(run.Summary.Rows[1])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "unconverged_fits") || strings.Contains(string(b), "max_gap") {
		t.Errorf("an unknown row marshals convergence fields: %s", b)
	}
	var r results.Row
	if err := json.Unmarshal([]byte(`{"label":"x","method":"k4","unconverged_fits":0,"fits":4,"max_gap":0.0004}`), &r); err != nil {
		t.Fatal(err)
	}
	if !r.ConvergenceKnown() || r.NotConverged() || *r.Fits != 4 {
		t.Errorf("a converged row reads as known %v, not converged %v", r.ConvergenceKnown(), r.NotConverged())
	}
}
