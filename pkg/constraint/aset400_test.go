package constraint_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/constraint"
	"github.com/mkpoe/mkpoe/pkg/data"
)

// aset400 is the aset400 triplets file (McFee & Lanckriet 2011, Sec. 5.2)
// where scripts/fetch_aset400.sh puts it (data/aset400/SOURCE.txt cites
// the source).
var aset400 = filepath.Join("..", "..", "data", "aset400", "triplets.tsv")

// TestAset400 runs the paper's graph processing (Sec. 5.2.4, Table 5) on the
// whole aset400 set and logs the per-step counts. The paper's figures are for
// an 80% training split (7915 → 6583 after length-2 pruning → 4401
// processed), so they are not compared here.
func TestAset400(t *testing.T) {
	if _, err := os.Stat(aset400); err != nil {
		t.Skipf("aset400 triplets not found at %s (run scripts/fetch_aset400.sh): %v", aset400, err)
	}
	f, err := data.ReadComparisonsFile(aset400, data.ComparisonOptions{OneBased: true})
	if err != nil {
		t.Fatal(err)
	}
	// SOURCE.txt: 9107 rows, 9107 distinct, 0 directly contradictory pairs,
	// and the comparison graph has cycles.
	if len(f.Comparisons) != 9107 {
		t.Fatalf("read %d comparisons, want 9107", len(f.Comparisons))
	}
	s, err := constraint.Stats(f.Comparisons)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("input: %+v", s)
	if !s.Cyclic {
		t.Fatal("aset400 graph should have cycles")
	}
	kept, reports, err := constraint.Run(f.Comparisons, constraint.PaperSteps, 1)
	if err != nil {
		t.Fatal(err)
	}
	removed := map[string]int{}
	for _, r := range reports {
		t.Logf("%-8s in %5d removed %5d out %5d", r.Step, r.In, r.Removed, r.Out)
		removed[r.Step] = r.Removed
	}
	if removed["length2"] != 0 {
		t.Errorf("length2 removed %d, SOURCE.txt says there are no directly contradictory pairs", removed["length2"])
	}
	if removed["acyclic"] == 0 {
		t.Error("acyclic removed nothing from a cyclic graph")
	}
	out, err := constraint.Stats(kept)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("processed: %+v", out)
	if out.Cyclic || out.Edges != out.DistinctEdges || out.Diameter < 1 {
		t.Errorf("processed set is not a reduced partial order: %+v", out)
	}
	// Appendix A certificate: after dropping the unsatisfiable (i,j,m,m)
	// comparisons, the embedding of the 412 artists satisfies all of it.
	ok, bad, _ := constraint.Degenerate(kept)
	t.Logf("degenerate: removed %v", bad)
	x, err := constraint.Embed(ok, 412)
	if err != nil {
		t.Fatal(err)
	}
	if m := minMargin(x, ok); m < 1-1e-6 {
		t.Errorf("aset400 certificate embedding: squared margin %g < 1", m)
	}
	// And it satisfies the comparisons the reduction removed as well.
	full, _, _ := constraint.Degenerate(reports[len(reports)-1].RemovedComparisons)
	if m := minMargin(x, full); m < 1-1e-6 {
		t.Errorf("embedding violates a comparison implied by the reduction: margin %g", m)
	}
}
