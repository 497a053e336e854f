package report_test

import (
	"log"
	"os"

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
