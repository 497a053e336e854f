package mkpoe_test

import (
	"fmt"
	"log"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/eval"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"gonum.org/v1/gonum/mat"
)

// ExampleFit learns MKPOE (Alg. 4) with diagonal metrics from two kernels
// over five items: the first kernel places the items on a line, the second
// is uninformative (the identity).
func ExampleFit() {
	x := []float64{0, 1, 2, 3, 4}
	line := mat.NewSymDense(5, nil)
	for i := range x {
		for j := i; j < 5; j++ {
			line.SetSym(i, j, x[i]*x[j]+1)
		}
	}
	id := mat.NewSymDense(5, nil)
	for i := 0; i < 5; i++ {
		id.SetSym(i, i, 1)
	}
	// "i is more similar to j than to k", consistent with the line.
	cs := []data.Comparison{data.Triplet(0, 1, 3), data.Triplet(4, 3, 1), data.Triplet(2, 1, 4), data.Triplet(2, 3, 0)}
	m, err := mkpoe.Fit([]mat.Symmetric{line, id}, cs, &mkpoe.Settings{Beta: 10, Mode: mkpoe.Diag})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("certified within 1e-3: %v\n", m.Stats.Status == mkpoe.StatusCertified)
	fmt.Printf("training accuracy: %.2f\n", eval.Accuracy(cs, eval.EmbeddingDistance(m.Train)))
	fmt.Printf("weight on the identity kernel: %.3f\n", mat.Trace(m.Metric(1)))
	// Output:
	// certified within 1e-3: true
	// training accuracy: 1.00
	// weight on the identity kernel: 0.000
}

// The square of the paper's Sec. 6 (its Fig. 7, a square's partial
// order): four items, no features (K = I, the multidimensional scaling
// case), and the comparisons "each side is shorter than each diagonal".
// No embedding on a line satisfies them (the paper: deciding whether one
// exists is NP-hard in general); two dimensions do. With Rank 1 the
// fit leaves comparisons violated and its certified gap to the convex
// problem's optimum (Stats.RelativeGap; `mkpoe fit --rank` prints it as
// convex_gap) says how far it is from the best any W can do: its Status
// is StatusStationary, a stationary point, not a certified optimum. With
// Rank 2 every comparison holds and the convex certificate holds too.
func ExampleFit_square() {
	id := mat.NewSymDense(4, nil)
	for i := 0; i < 4; i++ {
		id.SetSym(i, i, 1)
	}
	sides := [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}}
	diagonals := [][2]int{{0, 2}, {1, 3}}
	var cs []data.Comparison
	for _, s := range sides {
		for _, d := range diagonals {
			cs = append(cs, data.Comparison{I: s[0], J: s[1], K: d[0], L: d[1]}) // d(side) < d(diagonal)
		}
	}
	for _, rank := range []int{1, 2} {
		// β weighs the hinge losses against tr(W); at β ≤ β_min = 2 here,
		// W = 0 would be optimal (mkpoe.MinBeta).
		m, err := mkpoe.Fit([]mat.Symmetric{id}, cs, &mkpoe.Settings{Beta: 10, Mode: mkpoe.Full, Rank: rank})
		if err != nil {
			log.Fatal(err)
		}
		os := eval.Outcomes(cs, eval.EmbeddingDistance(m.Train))
		violated := map[[2]int]int{} // per side, its violated comparisons
		for n, o := range os {
			if o != eval.Right {
				violated[[2]int{cs[n].I, cs[n].J}]++
			}
		}
		held := len(cs)
		for _, v := range violated {
			held -= v
		}
		fmt.Printf("rank %d: %d of %d comparisons hold; objective %.2f, convex lower bound %.2f, convex gap %.2f, %s\n",
			rank, held, len(cs), m.Objective, m.Stats.DualBound, m.Stats.RelativeGap, m.Stats.Status)
		// The square is symmetric: which side a line folds onto its
		// diagonals depends on rounding, not on the data.
		for _, v := range violated {
			fmt.Printf("  violated: one side shorter than both diagonals (%d comparisons)\n", v)
		}
	}
	// Output:
	// rank 1: 6 of 8 comparisons hold; objective 6.00, convex lower bound 2.00, convex gap 0.67, stationary
	//   violated: one side shorter than both diagonals (2 comparisons)
	// rank 2: 8 of 8 comparisons hold; objective 2.00, convex lower bound 2.00, convex gap 0.00, certified
}

// ExampleFitFeatures learns LPOE (Alg. 2) with a diagonal metric on two
// features of five items: the first places the items on a line, the
// second is the same for every item but one, so only the first can order
// them.
func ExampleFitFeatures() {
	x := mat.NewDense(5, 2, []float64{
		0, 1,
		1, 1,
		2, 1,
		3, 1,
		4, 0,
	})
	cs := []data.Comparison{data.Triplet(0, 1, 3), data.Triplet(4, 3, 1), data.Triplet(2, 1, 4), data.Triplet(2, 3, 0)}
	m, err := mkpoe.FitFeatures(x, cs, &mkpoe.Settings{Beta: 10, Mode: mkpoe.Diag})
	if err != nil {
		log.Fatal(err)
	}
	w := m.Metric(0)
	fmt.Printf("training accuracy: %.2f\n", eval.Accuracy(cs, eval.EmbeddingDistance(m.Train)))
	fmt.Printf("weights on the features: %.2f, %.2f\n", w.At(0, 0), w.At(1, 1))
	// Output:
	// training accuracy: 1.00
	// weights on the features: 0.33, 0.00
}

// ExampleFitIdentity embeds four items from comparisons alone (GNMDS,
// K = I): the triplets of four points on a line, 0–1–2–3.
func ExampleFitIdentity() {
	var cs []data.Comparison
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			for k := 0; k < 4; k++ {
				if i != j && i != k && abs(i-j) < abs(i-k) {
					cs = append(cs, data.Triplet(i, j, k))
				}
			}
		}
	}
	m, err := mkpoe.FitIdentity(4, cs, &mkpoe.Settings{Beta: 100, Mode: mkpoe.Full})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d triplets, training accuracy %.2f\n", len(cs), eval.Accuracy(cs, eval.EmbeddingDistance(m.Train)))
	// Output: 10 triplets, training accuracy 1.00
}

func abs(a int) int { return max(a, -a) }
