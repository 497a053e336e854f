package experiments

import (
	"fmt"
	"os"
	"path/filepath"
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

// TestPathRule: a relative path written in a config (dataset paths and
// output) resolves against the config file's folder, whatever the working
// directory; without output the run directory is results/<name> in the
// working directory; the resolved config written into the run directory
// names the run directory absolutely.
func TestPathRule(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "cfg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	body := "name: rule\nseed: 1\ndataset: {type: synthetic}\n%skernels:\n  - {name: v0, source: clean, type: linear}\nrows:\n  - {method: native, kernel: v0}\n"
	for _, tc := range []struct {
		output, want string
	}{
		{"output: ../runs/rule\n", filepath.Join(dir, "runs", "rule")},
		{"output: " + filepath.Join(dir, "abs") + "\n", filepath.Join(dir, "abs")},
		{"", filepath.Join("results", "rule")},
	} {
		path := filepath.Join(sub, "rule.yaml")
		if err := os.WriteFile(path, []byte(fmt.Sprintf(body, tc.output)), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := LoadConfig(path)
		if err != nil {
			t.Fatal(err)
		}
		if c.Output != tc.want {
			t.Errorf("%q: output %q, want %q", tc.output, c.Output, tc.want)
		}
	}
}
