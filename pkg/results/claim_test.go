package results

import (
	"slices"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/stats"
)

// TestClaimCells: the verdict (Holds: clustered interval and Holm p) comes
// before the i.i.d. columns, a bootstrap p of 0 prints as "< 2m/reps" (a
// two-sided p below 2/reps, Holm-adjusted over m claims; m = 1 when not
// recorded), and a claim without intervals shows its note once.
func TestClaimCells(t *testing.T) {
	p0, p3 := 0.0, 0.0312
	iid := &stats.Interval{Diff: 0.04, Lo: 0.01, Hi: 0.07, Reps: 2000}
	for _, tc := range []struct {
		name  string
		claim Claim
		want  []string
	}{
		{"holds, p below the resolution", Claim{Claim: "c", Better: "b", Worse: "w", Paper: "T2", Interval: iid, Reproduced: true,
			Clustered: &stats.Interval{Diff: 0.04, Lo: 0.002, Hi: 0.081, Reps: 2000}, HolmP: &p0, Holds: true},
			[]string{"c", "b", "w", "T2", "+0.040", "[+0.002, +0.081]", "< 0.001", "yes", "[+0.010, +0.070]", "yes"}},
		{"holds, p below the resolution, 10 claims", Claim{Claim: "c", Better: "b", Worse: "w", Paper: "T2", Interval: iid, Reproduced: true,
			Clustered: &stats.Interval{Diff: 0.04, Lo: 0.002, Hi: 0.081, Reps: 2000}, HolmP: &p0, HolmM: 10, Holds: true},
			[]string{"c", "b", "w", "T2", "+0.040", "[+0.002, +0.081]", "< 0.01", "yes", "[+0.010, +0.070]", "yes"}},
		{"i.i.d. above 0, clustered not", Claim{Claim: "c", Better: "b", Worse: "w", Interval: iid, Reproduced: true,
			Clustered: &stats.Interval{Diff: 0.04, Lo: -0.003, Hi: 0.085, Reps: 2000, P: 0.0104}, HolmP: &p3},
			[]string{"c", "b", "w", "", "+0.040", "[-0.003, +0.085]", "0.0312", "no", "[+0.010, +0.070]", "yes"}},
		{"no anchors", Claim{Claim: "c", Better: "b", Worse: "w", Interval: iid, Reproduced: true, ClusteredNote: "task files without test_anchors"},
			[]string{"c", "b", "w", "", "+0.040", "task files without test_anchors", "—", "—", "[+0.010, +0.070]", "yes"}},
		{"no intervals", Claim{Claim: "c", Better: "b", Worse: "w", Note: "row \"b\": its task files predate test_outcomes"},
			[]string{"c", "b", "w", "", "—", "row \"b\": its task files predate test_outcomes", "—", "—", "—", "—"}},
	} {
		got := tc.claim.Cells(3)
		if len(got) != len(ClaimHeader) || !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
