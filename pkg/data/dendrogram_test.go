package data

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestAverageLinkage checks the merges on points of a line, computed by
// hand: 0, 1, 5, 6, 20 merge as (0,1) at 1 and (5,6) at 1 (the tie goes to
// the smaller indices first), the two pairs at mean distance
// (5+6+4+5)/4 = 5, and 20 last at (20+19+15+14)/4 = 17.
func TestAverageLinkage(t *testing.T) {
	x := mat.NewDense(5, 1, []float64{0, 1, 5, 6, 20})
	got := AverageLinkage(x)
	want := []Merge{{0, 1, 1}, {2, 3, 1}, {5, 6, 5}, {4, 7, 17}}
	if !slices.Equal(got, want) {
		t.Errorf("merges %v, want %v", got, want)
	}
	if s := DendrogramString(got, []int{1, 2, 3, 4, 5}); s != "(5, ((1, 2)@1.00, (3, 4)@1.00)@5.00)@17.00" {
		t.Errorf("DendrogramString = %q", s)
	}
	if m := AverageLinkage(mat.NewDense(1, 1, []float64{3})); m != nil {
		t.Errorf("one point: merges %v, want none", m)
	}
}

// TestCutTaxonomy cuts the dendrogram of TestAverageLinkage at several
// cluster counts (trees written by hand).
func TestCutTaxonomy(t *testing.T) {
	merges := AverageLinkage(mat.NewDense(5, 1, []float64{0, 1, 5, 6, 20}))
	labels := []int{1, 2, 3, 4, 5}
	cases := []struct {
		levels []int
		want   string
		err    bool
	}{
		{[]int{2}, "[[1,2,3,4],5]", false},
		{[]int{3}, "[[1,2],[3,4],5]", false},
		{[]int{2, 3}, "[[[1,2],[3,4]],5]", false},
		{[]int{2, 4}, "[[[1,2],3,4],5]", false}, // one merge undone: 3 and 4 apart
		{[]int{2, 3, 4}, "[[[1,2],[3,4]],5]", false},
		{[]int{4}, "[[1,2],3,4,5]", false},
		{nil, "", true},
		{[]int{1}, "", true},
		{[]int{5}, "", true},
		{[]int{3, 2}, "", true},
		{[]int{3, 3}, "", true},
	}
	for _, c := range cases {
		tax, err := CutTaxonomy(merges, labels, c.levels)
		if c.err {
			if err == nil {
				t.Errorf("levels %v: taxonomy %v, want an error", c.levels, tax)
			}
			continue
		}
		if err != nil {
			t.Errorf("levels %v: %v", c.levels, err)
			continue
		}
		if tax.String() != c.want {
			t.Errorf("levels %v: %v, want %s", c.levels, tax, c.want)
		}
		if err := tax.Validate(); err != nil {
			t.Errorf("levels %v: %v", c.levels, err)
		}
	}
	if _, err := CutTaxonomy(merges[:2], labels, []int{2}); err == nil {
		t.Error("too few merges: want an error")
	}
	if _, err := CutTaxonomy([]Merge{{0, 0, 1}, {2, 3, 1}, {5, 6, 5}, {4, 7, 17}}, labels, []int{2}); err == nil {
		t.Error("a merge of a cluster with itself: want an error")
	}
}

// TestClassTaxonomyALOI rebuilds the shipped ALOI taxonomy
// (configs/taxonomies/aloi10.yaml) from all 1079 images as docs/datasets.md
// describes it: the merge heights documented there and the tree of the
// cut into 3, 5 and 7 clusters.
func TestClassTaxonomyALOI(t *testing.T) {
	d, err := LoadALOI(fetchedData(t, "aloi10"))
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, len(d.Labels))
	for i := range all {
		all[i] = i
	}
	tax, merges, classes, err := ClassTaxonomy(d.Views, d.Labels, all, []int{3, 5, 7})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[[1,[2,[4,7]],[3,[5,6,10]]],8,9]"; tax.String() != want {
		t.Errorf("taxonomy %v, want %s", tax, want)
	}
	wantHeights := []float64{0.68, 0.77, 1.01, 1.17, 1.32, 1.53, 2.02, 2.91, 3.54}
	for k, m := range merges {
		if math.Abs(m.Height-wantHeights[k]) > 0.005 {
			t.Errorf("merge %d at %.4f, want %.2f (docs/datasets.md)", k, m.Height, wantHeights[k])
		}
	}
	t.Logf("dendrogram %s", DendrogramString(merges, classes))
}
