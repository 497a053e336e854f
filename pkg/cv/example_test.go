package cv_test

import (
	"context"
	"fmt"
	"log"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/cv"
	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/kernels"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
)

// Nested cross-validation of MKPOE on a synthetic data set with a clean
// view, a noisy one and a pure-noise one: comparisons from the class
// taxonomy, linear kernels fitted on each fold's training items, β chosen by
// 3-fold inner cross-validation, the refit scored on held-out items.
func ExampleNested() {
	syn, _ := data.GenerateSynthetic(data.SyntheticSpec{Seed: 1, Views: []data.SyntheticView{
		{Name: "clean", Noise: 0.3}, {Name: "blurry", Noise: 2}, {Name: "noise", Random: true}}})
	var views []cv.View
	for _, x := range syn.Views {
		views = append(views, cv.View{Kernel: kernels.Linear{}, Input: kernels.Input{Features: x}})
	}
	learner := &cv.KernelLearner{Views: views, Settings: mkpoe.Settings{Mode: mkpoe.Diag},
		Comparisons: cv.FromTaxonomy{Taxonomy: syn.Taxonomy, Labels: syn.Labels}}
	res, err := cv.Nested(context.Background(), learner, len(syn.Labels),
		cv.Protocol{Splits: 1, TestFraction: 0.2, InnerFolds: 3, BetaGrid: []float64{0.1, 10, 1000}, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("β = %g, test accuracy %.2f\n", res.Splits[0].Beta, res.Mean)
	// Output: β = 1000, test accuracy 0.99
}

// sixOnALine is the fixture of ExampleSweep and
// ExampleNested_comparisonHoldout: six items at 0, 1, …, 5 on a line, their
// linear kernel as a Gram matrix, and every triplet (i, j, k) with j nearer
// to i than k is (54 of them).
func sixOnALine() (*mat.SymDense, cv.Fixed) {
	x := []float64{0, 1, 2, 3, 4, 5}
	gram := mat.NewSymDense(6, nil)
	for i := range x {
		for j := range x {
			gram.SetSym(i, j, x[i]*x[j])
		}
	}
	var cs cv.Fixed
	for i := range x {
		for j := range x {
			for k := range x {
				if i != j && i != k && math.Abs(x[i]-x[j]) < math.Abs(x[i]-x[k]) {
					cs = append(cs, data.Comparison{I: i, J: j, K: i, L: k})
				}
			}
		}
	}
	return gram, cs
}

// One fold by hand, as the harness runs it: six items on a line (a linear
// kernel given as its Gram matrix), triplets saying nearer items are more
// similar, items 0–3 for training and 4, 5 held out. Trial fits the kernel
// block of the training items and keeps the held-out items' rows; Sweep
// fits the β grid with warm starts and scores each fit on the held-out
// triplets (at the smallest β the model is zero, every triplet a tie, and
// ties count as errors); Scores is the validation curve that MeanCurve
// averages over folds.
func ExampleSweep() {
	gram, cs := sixOnALine()
	learner := &cv.KernelLearner{Views: []cv.View{{Gram: gram}}, Comparisons: cs, Settings: mkpoe.Settings{Mode: mkpoe.Diag}}
	tr, err := learner.Trial(cv.Outer(0), []int{0, 1, 2, 3}, []int{4, 5})
	if err != nil {
		log.Fatal(err)
	}
	pts, err := cv.Sweep(context.Background(), tr, []float64{0.01, 1, 100})
	if err != nil {
		log.Fatal(err)
	}
	for i, s := range cv.Scores(pts) {
		fmt.Printf("β = %g: held-out accuracy %.2f\n", pts[i].Beta, s)
	}
	// Output:
	// β = 0.01: held-out accuracy 0.00
	// β = 1: held-out accuracy 1.00
	// β = 100: held-out accuracy 1.00
}

// Comparison holdout (Protocol.HoldOut = HoldOutComparisons): every item
// is a training item and the comparisons are split, so Nested builds its
// trials with KernelLearner.ComparisonTrial.
func ExampleNested_comparisonHoldout() {
	gram, cs := sixOnALine()
	learner := &cv.KernelLearner{Views: []cv.View{{Gram: gram}}, Comparisons: cs, Settings: mkpoe.Settings{Mode: mkpoe.Diag}}
	res, err := cv.Nested(context.Background(), learner, len(cs),
		cv.Protocol{HoldOut: cv.HoldOutComparisons, Splits: 2, TestFraction: 0.25, InnerFolds: 2, BetaGrid: []float64{0.01, 1, 100}, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	for s, sr := range res.Splits {
		fmt.Printf("split %d: %d comparisons fitted, %d scored, β = %g, accuracy %.2f\n", s, len(sr.Train), len(sr.Test), sr.Beta, sr.Score)
	}
	// Output:
	// split 0: 40 comparisons fitted, 14 scored, β = 1, accuracy 1.00
	// split 1: 40 comparisons fitted, 14 scored, β = 1, accuracy 1.00
}
