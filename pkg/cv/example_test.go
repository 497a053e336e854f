package cv_test

import (
	"context"
	"fmt"

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
