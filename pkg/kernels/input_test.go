package kernels

import (
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestInputSubset(t *testing.T) {
	in := Input{
		Features: mat.NewDense(3, 2, []float64{0, 1, 10, 11, 20, 21}),
		Counts:   []map[int]float64{{0: 1}, {1: 2}, {2: 3}},
		Sets:     [][]int{{0}, {1}, {2}},
		Missing:  []bool{false, true, false},
	}
	got := in.Subset([]int{2, 1})
	if !mat.Equal(got.Features, mat.NewDense(2, 2, []float64{20, 21, 10, 11})) {
		t.Errorf("Features = %v", mat.Formatted(got.Features))
	}
	if !reflect.DeepEqual(got.Counts, []map[int]float64{{2: 3}, {1: 2}}) || !reflect.DeepEqual(got.Sets, [][]int{{2}, {1}}) || !reflect.DeepEqual(got.Missing, []bool{false, true}) {
		t.Errorf("Subset = %+v", got)
	}
	// The subset's Features are a copy: the original stays as it was.
	got.Features.Set(0, 0, -1)
	if in.Features.At(2, 0) != 20 {
		t.Error("Subset shares Features with its input")
	}
	// Kernels that read no data keep only a count.
	if n := (Input{N: 5}).Subset([]int{4, 0, 1}); n.N != 3 {
		t.Errorf("N = %d, want 3", n.N)
	}
}
