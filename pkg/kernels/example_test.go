package kernels_test

import (
	"fmt"
	"log"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/kernels"
)

// Collaborative filtering (Sec. 5.2.1): four artists given by the ids of
// their listeners; artist 3 is absent from the listening data and gets an
// identity row and column. A new artist gets a row against the training
// artists.
func Example() {
	train := kernels.Input{
		Sets:    [][]int{{0, 1, 2}, {1, 2, 3, 4}, {5}, nil},
		Missing: []bool{false, false, false, true},
	}
	k, err := kernels.New("cf", nil)
	if err != nil {
		log.Fatal(err)
	}
	m, err := kernels.Fit(k, train, kernels.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.4g\n", mat.Formatted(m.Gram()))
	rows, err := m.Rows(kernels.Input{Sets: [][]int{{2, 5}}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.4g\n", mat.Formatted(rows))
	// Output:
	// ⎡     1  0.5774       0       0⎤
	// ⎢0.5774       1       0       0⎥
	// ⎢     0       0       1       0⎥
	// ⎣     0       0       0       1⎦
	// [0.4082  0.3536  0.7071       0]
}
