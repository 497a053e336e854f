package data

import (
	"fmt"
	"slices"
	"testing"
)

func TestSplitComparisons(t *testing.T) {
	// Items 0..5; training 1, 3, 4 (numbered 0, 1, 2), held out 0, 5 (3, 4);
	// item 2 belongs to neither side.
	train, test := []int{1, 3, 4}, []int{0, 5}
	cases := []struct {
		name        string
		c           Comparison
		train, held bool
		want        Comparison
	}{
		{"all training", Comparison{I: 1, J: 3, K: 4, L: 1}, true, false, Comparison{I: 0, J: 1, K: 2, L: 0}},
		{"held-out anchor triplet", Triplet(5, 1, 4), false, true, Triplet(4, 0, 2)},
		{"held-out anchor, other held-out item", Triplet(5, 0, 4), false, false, Comparison{}},
		{"held-out item not the anchor", Triplet(1, 5, 4), false, false, Comparison{}},
		{"held-out quadruple", Comparison{I: 0, J: 1, K: 5, L: 3}, false, false, Comparison{}},
		{"item outside the split", Comparison{I: 1, J: 2, K: 3, L: 4}, false, false, Comparison{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, he := SplitComparisons([]Comparison{tc.c}, train, test)
			if got := len(tr) == 1; got != tc.train {
				t.Fatalf("training: got %v, want %v", tr, tc.train)
			}
			if got := len(he) == 1; got != tc.held {
				t.Fatalf("held out: got %v, want %v", he, tc.held)
			}
			if got := slices.Concat(tr, he); len(got) == 1 && got[0] != tc.want {
				t.Errorf("renumbered to %v, want %v", got[0], tc.want)
			}
		})
	}
}

func TestSplitComparisonsKeepsOrder(t *testing.T) {
	cs := []Comparison{Triplet(2, 0, 1), Triplet(0, 1, 2), Triplet(3, 0, 2), Triplet(1, 2, 0)}
	tr, he := SplitComparisons(cs, []int{0, 1, 2}, []int{3})
	if fmt.Sprint(tr) != fmt.Sprint([]Comparison{Triplet(2, 0, 1), Triplet(0, 1, 2), Triplet(1, 2, 0)}) {
		t.Errorf("training comparisons %v", tr)
	}
	if fmt.Sprint(he) != fmt.Sprint([]Comparison{Triplet(3, 0, 2)}) {
		t.Errorf("held-out comparisons %v", he)
	}
}

func ExampleSplitComparisons() {
	// Items 0..3; item 3 is held out. Training items keep their order and
	// are numbered 0..2; the held-out item becomes 3 + its position.
	cs := []Comparison{Triplet(0, 1, 2), Triplet(3, 0, 2), Triplet(0, 3, 1)}
	train, held := SplitComparisons(cs, []int{0, 1, 2}, []int{3})
	fmt.Println(train, held)
	// Output: [(0,1,2)] [(3,0,2)]
}
