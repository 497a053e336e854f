package eval_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/eval"
	"gonum.org/v1/gonum/mat"
)

// Four points on a line at 0, 1, 3, 3 (items 2 and 3 coincide).
var line = mat.NewDense(4, 1, []float64{0, 1, 3, 3})

func TestAccuracyHandComputed(t *testing.T) {
	for _, test := range []struct {
		name string
		cs   []data.Comparison
		want float64
	}{
		// d(0,1)=1 < d(0,2)=9: satisfied.
		{"one satisfied", []data.Comparison{data.Triplet(0, 1, 2)}, 1},
		// d(0,2)=9 > d(0,1)=1: violated.
		{"one violated", []data.Comparison{data.Triplet(0, 2, 1)}, 0},
		// d(0,2) = d(0,3) = 9: a tie is an error (strict inequality, Eq. 18).
		{"tie", []data.Comparison{data.Triplet(0, 2, 3)}, 0},
		// d(2,3)=0 < d(0,1)=1 satisfied; d(1,2)=4 < d(0,1)=1 violated; tie; satisfied.
		{"mixed quadruples", []data.Comparison{{I: 2, J: 3, K: 0, L: 1}, {I: 1, J: 2, K: 0, L: 1}, data.Triplet(0, 2, 3), data.Triplet(1, 0, 2)}, 0.5},
		{"empty", nil, 0},
	} {
		t.Run(test.name, func(t *testing.T) {
			if got := eval.Accuracy(test.cs, eval.EmbeddingDistance(line)); got != test.want {
				t.Errorf("accuracy %v, want %v", got, test.want)
			}
		})
	}
}

func TestNativeAccuracy(t *testing.T) {
	// K = xxᵀ + 1 for x = (0, 1, 3): d(i,j) = (x_i − x_j)².
	k := mat.NewSymDense(3, []float64{1, 1, 1, 1, 2, 4, 1, 4, 10})
	cs := []data.Comparison{data.Triplet(0, 1, 2), data.Triplet(2, 0, 1), data.Triplet(1, 0, 2)}
	// d(0,1)=1<d(0,2)=9 ✓; d(2,0)=9<d(2,1)=4 ✗; d(1,0)=1<d(1,2)=4 ✓.
	acc, err := eval.NativeAccuracy(k, cs)
	if err != nil || math.Abs(acc-2.0/3) > 1e-15 {
		t.Errorf("accuracy %v (err %v), want 2/3", acc, err)
	}
	if _, err := eval.NativeAccuracy(k, []data.Comparison{data.Triplet(0, 1, 3)}); err == nil {
		t.Error("an index outside the kernel must be an error")
	}
}

func ExampleAccuracy() {
	// Items on a line at 0, 1 and 3: item 0 is closer to 1 than to 2, and
	// item 2 is closer to 1 than to 0; the second comparison says otherwise.
	x := mat.NewDense(3, 1, []float64{0, 1, 3})
	cs := []data.Comparison{data.Triplet(0, 1, 2), data.Triplet(2, 0, 1)}
	fmt.Printf("%.2f\n", eval.Accuracy(cs, eval.EmbeddingDistance(x)))
	// Output: 0.50
}

// TestOutcomesAndTally: four items on a line at 0, 1, 1, 3 (items 1 and 2
// coincide). By hand: (0,1,0,3) right (1 < 9); (0,1,0,2) tie (1 = 1);
// (1,3,0,1) wrong (4 > 1); (2,3,1,3) tie; (0,2,3,2) right (1 < 4).
func TestOutcomesAndTally(t *testing.T) {
	x := mat.NewDense(4, 1, []float64{0, 1, 1, 3})
	cs := []data.Comparison{{I: 0, J: 1, K: 0, L: 3}, {I: 0, J: 1, K: 0, L: 2}, {I: 1, J: 3, K: 0, L: 1}, {I: 2, J: 3, K: 1, L: 3}, {I: 0, J: 2, K: 3, L: 2}}
	got := eval.Outcomes(cs, eval.EmbeddingDistance(x))
	if string(got) != "rtwtr" {
		t.Errorf("outcomes %q, want %q", string(got), "rtwtr")
	}
	tl := eval.Count(got)
	if want := (eval.Tally{Right: 2, Ties: 2, Wrong: 1}); tl != want {
		t.Errorf("tally %+v, want %+v", tl, want)
	}
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"accuracy", tl.Accuracy(), 2.0 / 5},
		{"Accuracy agrees", eval.Accuracy(cs, eval.EmbeddingDistance(x)), 2.0 / 5},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if e := eval.Count(nil); !math.IsNaN(e.Accuracy()) {
		t.Error("an empty tally is not NaN")
	}
}
