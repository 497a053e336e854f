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
	fmt.Printf("certified within 1e-3: %v\n", m.Stats.Converged && m.Stats.RelativeGap <= 1e-3)
	fmt.Printf("training accuracy: %.2f\n", eval.Accuracy(cs, eval.EmbeddingDistance(m.Train)))
	fmt.Printf("weight on the identity kernel: %.3f\n", mat.Trace(m.Metric(1)))
	// Output:
	// certified within 1e-3: true
	// training accuracy: 1.00
	// weight on the identity kernel: 0.000
}
