package experiments

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// TestRecheckClaims: the claims recomputed from a finished run's summary
// alone (refits at the recorded β, no cv or task file) are the run's,
// digit for digit; a summary whose tally of one split differs by one
// comparison is refused, naming the row and split.
func TestRecheckClaims(t *testing.T) {
	c := loadTiny(t, t.TempDir())
	c.Claims = []ClaimConfig{
		{Claim: "K4 full beats the sum's native space", Better: c.Rows[4].Label, Worse: c.Rows[1].Label},
		{Claim: "K4 diag beats K1 diag", Better: c.Rows[3].Label, Worse: c.Rows[2].Label},
	}
	s, err := Run(context.Background(), c, RunOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := RecheckClaims(context.Background(), c, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cs, s.Claims) {
		t.Errorf("recomputed claims differ from the run's:\n%+v\n%+v", cs, s.Claims)
	}
	for _, cl := range cs {
		if cl.Clustered == nil || cl.Clustered.Design == "" || cl.HolmM != 2 {
			t.Errorf("claim %q: clustered %+v, Holm m %d; want a design and m = 2", cl.Claim, cl.Clustered, cl.HolmM)
		}
	}
	s.Rows[3].TestTallies[1].Right++
	s.Rows[3].TestTallies[1].Wrong--
	if _, err := RecheckClaims(context.Background(), c, s, nil); err == nil || !strings.Contains(err.Error(), c.Rows[3].Label+"\" split 1") {
		t.Errorf("a tally off by one: error %v, want one naming row %q split 1", err, c.Rows[3].Label)
	}
}
