package experiments

import (
	"strings"
	"testing"
)

// TestValidateOrder breaks one field of every section of the tiny config
// and checks that Validate reports each problem once, in the order of the
// sections (data set, kernels, groups, constraint steps, protocol and its
// bounds, subsampling, β grid, solver, rows, claims): the order users see
// in `mkpoe check`, kept when Validate was split into one function per
// section.
func TestValidateOrder(t *testing.T) {
	c := loadTiny(t, t.TempDir())
	c.Dataset.Type = "nope"
	c.Kernels[0].Normalize = "bad"
	c.Groups = append(c.Groups, GroupConfig{Name: "g2", Kernels: []string{"missing"}})
	c.Constraints.Train = []string{"bogus"}
	c.Constraints.Test = []string{"bogus"}
	c.Protocol.Holdout = "x"
	c.Protocol.InnerFolds = 101
	c.Protocol.MaxTestComparisons = -1
	c.BetaGrid.Values = []float64{10, 1}
	c.Solver.Tol = 2
	c.Rows[len(c.Rows)-1].Mode = "x"
	c.Rows[0].TrainSteps = &[]string{"bogus"}
	c.Claims = []ClaimConfig{{Claim: "c", Better: "nolabel", Worse: c.Rows[0].Label}}
	err := c.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	var paths []string
	for _, line := range strings.Split(err.Error(), "\n") {
		paths = append(paths, line[:strings.Index(line, ":")])
	}
	want := []string{
		"dataset.type",
		"kernels[0].normalize",
		"groups[1].kernels[0]",
		"constraints.train[0]",
		"constraints.test[0]",
		"protocol.holdout",
		"protocol.inner_folds",
		"protocol.max_test_comparisons",
		"beta_grid[1]",
		"solver.tol",
		"rows[0].train_steps[0]",
		"rows[4].mode",
		"claims[0].better",
	}
	if strings.Join(paths, "\n") != strings.Join(want, "\n") {
		t.Errorf("Validate reported\n%v\nwant the paths\n%v", err, want)
	}
}
