package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mkpoe/mkpoe/experiments"
	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// runCost implements "mkpoe cost CONFIG --rows A,B[,C,D…]": the CPU time
// of the rows' cv tasks, run one at a time and interleaved over repeats
// (experiments.MeasureCost), written to --out as cost.json, and each pair
// of rows (A against B, C against D, …) compared: the first of a pair is
// the one claimed cheaper (results.CompareCost).
func runCost(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var rows *string
	var split, folds, repeats *int
	path, out, err := pathAndOut("cost", args, stderr, "cost.json to write (results.CostReport)", func(fs *flagSet) {
		rows = fs.String("rows", "", "learned rows in pairs, comma-separated: each pair's first row is the one claimed cheaper")
		split = fs.Int("split", 0, "the outer split whose cv tasks run")
		folds = fs.Int("folds", 1, "how many inner folds (0 … N−1) of the split run per row and repeat")
		repeats = fs.Int("repeats", 3, "how often each task runs; odd repeats run the rows in reverse order")
	})
	if err != nil {
		return err
	}
	if path == "" {
		return usagef("usage: mkpoe cost CONFIG --rows A,B[,C,D...] [--split S] [--folds N] [--repeats R] [--out FILE]")
	}
	labels := strings.Split(*rows, ",")
	for i := range labels {
		labels[i] = strings.TrimSpace(labels[i])
	}
	if *rows == "" || len(labels)%2 != 0 {
		return usagef("--rows must name rows in pairs (cheaper,dearer[,cheaper,dearer...]), got %q", *rows)
	}
	c, err := loadConfigFile(path, "")
	if err != nil {
		return err
	}
	rep, err := experiments.MeasureCost(ctx, c, experiments.CostOptions{Rows: labels, Split: *split, Folds: *folds, Repeats: *repeats, Log: stderr})
	if err != nil {
		return err
	}
	for i := 0; i < len(labels); i += 2 {
		cut, err := results.CompareCost(rep, labels[i], labels[i+1])
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, costLine(cut))
	}
	if out != "" {
		if err := results.WriteFile(out, rep); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", out)
	}
	fmt.Fprintf(stdout, "backend %s\n", linalg.Describe())
	return nil
}

// costLine is a CostCut on one line: the two rows' CPU time per repeat,
// the ratios and whether every repeat has the first row cheaper.
func costLine(c *results.CostCut) string {
	f := func(x []float64) string {
		s := make([]string, len(x))
		for i, v := range x {
			s[i] = fmt.Sprintf("%.2f", v)
		}
		return strings.Join(s, " ")
	}
	return fmt.Sprintf("%s against %s: CPU s per repeat %s against %s; ratios %s; cut %.1f%%; cheaper in every repeat: %v",
		c.Cheaper, c.Dearer, f(c.CPU[0]), f(c.CPU[1]), f(c.Ratios), 100*c.Cut, c.Holds)
}
