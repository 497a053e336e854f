package experiments

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mkpoe/mkpoe/pkg/cv"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
)

// BenchmarkAset400FoldPath fits the warm-started β path of one inner fold
// of a paper config's row, as a cv task does (docs/notes/solver-log.md,
// the table of the interior-point stage's cost rule): full W, K4 on ST+CF+genre (split
// 0, fold 2 of configs/aset400_kernel_groups.yaml) and K1 on unprocessed ST
// (split 0, fold 0 of configs/aset400_graph_processing.yaml), K4 on
// ST+genre (fold 5 of kernel groups) and K1 on ST (fold 0 of single
// kernels), whose cold fits hand over quickly (docs/solver.md, "When it
// runs"); diagonal W,
// K4 on ST+CF+genre (fold 7 of kernel groups, the costliest diagonal cv
// task of the 135109f rerun) and K1 on CF (fold 8 of
// configs/aset400_single_kernels.yaml). It reports each β's seconds
// (from β = 100) and the path's largest certified gap; with -v it logs
// every fit's time, iterations and gap.
func BenchmarkAset400FoldPath(b *testing.B) {
	if _, err := os.Stat(filepath.Join("..", "data", "lastfm-hetrec2011")); err != nil {
		b.Skip("no data/ (scripts/fetch_aset400.sh --mirror ../shared/data)")
	}
	for _, bc := range []struct {
		name, config, row string
		fold              int
	}{
		{"K4full_all", "aset400_kernel_groups.yaml", "all K4 full", 2},
		{"K1full_unprocessed", "aset400_graph_processing.yaml", "Full full", 0},
		// Full problems whose interior-point stage is estimated just
		// below quickStageIters (pkg/mkpoe/fit.go: 277 and 261).
		{"K4full_STgenre", "aset400_kernel_groups.yaml", "ST+genre K4 full", 5},
		{"K1full_ST", "aset400_single_kernels.yaml", "ST K1 full", 0},
		{"K4diag_all", "aset400_kernel_groups.yaml", "all K4 diag", 7},
		{"K1diag_CF", "aset400_single_kernels.yaml", "CF K1 diag", 8},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := LoadConfig(filepath.Join("..", "configs", bc.config))
			if err != nil {
				b.Fatal(err)
			}
			ds, err := loadDataset(c)
			if err != nil {
				b.Fatal(err)
			}
			var row *RowConfig
			for i := range c.Rows {
				if c.Rows[i].Label == bc.row {
					row = &c.Rows[i]
				}
			}
			if row == nil {
				b.Fatalf("%s has no row %q", bc.config, bc.row)
			}
			kidx := c.rowKernels(*row)
			f, err := taskFold(c, ds, *row, kidx, cv.FoldID{Split: 0, Fold: bc.fold})
			if err != nil {
				b.Fatal(err)
			}
			seconds := make([]float64, len(c.BetaGrid.Values))
			worst := 0.0
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				var prev *mkpoe.Model
				for i, beta := range c.BetaGrid.Values {
					start := time.Now()
					m, err := (&rowTrial{c: c, row: *row, f: f, kidx: kidx}).Fit(b.Context(), beta, prev)
					if err != nil {
						b.Fatal(err)
					}
					elapsed := time.Since(start).Seconds()
					seconds[i] += elapsed
					if testing.Verbose() {
						b.Logf("β = %g: %.2f s, %d iterations, gap %.2g", beta, elapsed, m.Stats.Iterations, m.Stats.RelativeGap)
					}
					if !m.Stats.Converged {
						b.Errorf("β = %g: not converged (gap %.3g)", beta, m.Stats.RelativeGap)
					}
					worst = max(worst, m.Stats.RelativeGap)
					prev = m
				}
			}
			for i, beta := range c.BetaGrid.Values {
				if beta >= 100 {
					b.ReportMetric(seconds[i]/float64(b.N), fmt.Sprintf("s@β=%g", beta))
				}
			}
			b.ReportMetric(worst, "max_gap")
			b.ReportMetric(float64(len(f.trainCs)), "comparisons")
		})
	}
}
