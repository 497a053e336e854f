package report_test

import (
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/report"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// A summary of two kernels, each in its native space and after learning a
// full K1 metric, laid out as the paper's Table 3.
func ExampleTable_Markdown() {
	paper := 0.796
	s := &results.Summary{Name: "tiny", Splits: 2, Rows: []results.Row{
		{Label: "ST native", Method: "native", Kernels: []string{"ST"}, Mean: 0.752, Std: 0.01},
		{Label: "ST K1 full", Method: "k1", Mode: "full", Kernels: []string{"ST"}, Mean: 0.801, Std: 0.02, Paper: &paper},
		{Label: "CF native", Method: "native", Kernels: []string{"CF"}, Mean: 0.704, Std: 0.03},
		{Label: "CF K1 full", Method: "k1", Mode: "full", Kernels: []string{"CF"}, Mean: 0.776, Std: 0.01},
	}}
	if err := report.NewTable(s).Markdown(os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// | Kernel | Native | K1 full |
	// |---|---:|---:|
	// | ST | **0.752 ± 0.010** | **0.801 ± 0.020** (0.796) |
	// | CF | 0.704 ± 0.030 | 0.776 ± 0.010 |
	//
	// tiny: test accuracy (fraction of held-out comparisons satisfied), mean ± sample standard deviation over 2 outer splits. Bold: best mean of each column. In parentheses: the value reported by McFee & Lanckriet (2011) for the corresponding row. Empty cells were not run.
}

// Two runs of one experiment on different β grids, side by side: the
// wider grid loses the native row and changes the K1 row's accuracy.
func ExampleComparison_Text() {
	run := func(hash string, betas []float64, rows ...results.Row) *report.Run {
		return &report.Run{Summary: &results.Summary{Name: "sweep", ConfigHash: hash, Splits: 1, BetaGrid: betas, Rows: rows}}
	}
	native := results.Row{Label: "ST native", Method: "native", Accuracy: []float64{0.75}, Mean: 0.75}
	narrow := results.Row{Label: "ST K1 full", Method: "k1", Mode: "full", Accuracy: []float64{0.80}, Mean: 0.80, Beta: []float64{10}}
	wide := results.Row{Label: "st k1 full", Method: "k1", Mode: "full", Accuracy: []float64{0.83}, Mean: 0.83, Beta: []float64{1000}}
	c, err := report.NewComparison([]report.CompareRun{
		{Name: "narrow", Run: run("aaaa", []float64{1, 10}, native, narrow)},
		{Name: "wide", Run: run("bbbb", []float64{1, 10, 100, 1000}, wide)},
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := c.Text(os.Stdout); err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.Warnings[0])
	// Output:
	// Row         narrow accuracy  narrow β  wide accuracy  wide β  Δ wide − narrow
	// ST native   0.750            —         —              —       —
	// ST K1 full  0.800            10        0.830          1000    +0.030
	// note: row "ST native" is absent from wide (shown as —)
	// the runs are of different configs (narrow: config "sweep", hash aaaa; wide: config "sweep", hash bbbb); rows are matched by label
}

// ExampleBuild makes the tables of the run directory in testdata/run (a
// small run of the harness) in memory; the caller writes the files where
// it likes. mkpoe report does the same through NewReport, which also
// gives the report's warnings.
func ExampleBuild() {
	run, err := report.Load(os.DirFS("testdata/run"))
	if err != nil {
		log.Fatal(err)
	}
	files, err := report.Build(run, report.Options{Formats: []string{"md", "tex"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		first, _, _ := strings.Cut(string(f.Data), "\n")
		fmt.Printf("%s: %s\n", f.Name, first)
	}
	// Output:
	// table.md: # fixture\_50%
	// table.tex: % mkpoe report: \input{table.tex} needs \usepackage{booktabs} and \usepackage{graphicx}
}
