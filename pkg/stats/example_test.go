package stats_test

import (
	"fmt"

	"github.com/mkpoe/mkpoe/pkg/stats"
)

// Two methods scored on the same 8 held-out comparisons of one split (1:
// right). The learned space gets 2 more right; the interval says how sure
// that is with so few comparisons.
func ExamplePairedBootstrap() {
	learned := [][]float64{{1, 1, 1, 0, 1, 1, 1, 0}}
	native := [][]float64{{1, 0, 1, 0, 1, 0, 1, 0}}
	iv, err := stats.PairedBootstrap(learned, native, 2000, 0.95, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("difference %.3f, 95%% interval [%.3f, %.3f]\n", iv.Diff, iv.Lo, iv.Hi)
	// Output: difference 0.250, 95% interval [0.000, 0.503]
}

// Eight comparisons from only two anchor items (4 each), the learned
// space's two gains both on anchor 1. Resampling anchors, not
// comparisons, widens the interval; Holm adjusts the p-values of a
// config's claims together.
func ExampleClusteredBootstrap() {
	learned := [][]float64{{1, 1, 1, 1, 1, 0, 1, 0}}
	native := [][]float64{{1, 0, 1, 0, 1, 0, 1, 0}}
	anchors := [][]int{{1, 1, 1, 1, 2, 2, 2, 2}}
	iv, err := stats.ClusteredBootstrap(learned, native, anchors, 2000, 0.95, false, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("difference %.3f, 95%% interval [%.3f, %.3f], p %.2f\n", iv.Diff, iv.Lo, iv.Hi, iv.P)
	fmt.Println("Holm:", stats.Holm([]float64{iv.P, 0.01}))
	// Output:
	// difference 0.250, 95% interval [0.000, 0.500], p 0.52
	// Holm: [0.515 0.02]
}
