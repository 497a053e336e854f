package eval_test

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/eval"
)

// The corners of a 3×4 rectangle, a = (0,0), b = (3,0), c = (0,4),
// d = (3,4), and its centre e = (1.5,2). Squared distances by hand: a–b
// and c–d 9, a–c and b–d 16, a–d and b–c 25 (the 3-4-5 triangle), and the
// centre is 2.5 from every corner: 6.25.
var rect = mat.NewDense(5, 2, []float64{0, 0, 3, 0, 0, 4, 3, 4, 1.5, 2})

func TestNearestHandComputed(t *testing.T) {
	const a, b, c, d, e = 0, 1, 2, 3, 4
	nb := func(item int, sq float64) eval.Neighbor { return eval.Neighbor{Item: item, Squared: sq} }
	for _, test := range []struct {
		name    string
		q, k    int
		want    []eval.Neighbor
		wantTie int
	}{
		{"a, k=2", a, 2, []eval.Neighbor{nb(e, 6.25), nb(b, 9)}, 0},
		{"b, k=3", b, 3, []eval.Neighbor{nb(e, 6.25), nb(a, 9), nb(d, 16)}, 0},
		{"a, every item (k=0)", a, 0, []eval.Neighbor{nb(e, 6.25), nb(b, 9), nb(c, 16), nb(d, 25)}, 0},
		{"a, k larger than the items", a, 10, []eval.Neighbor{nb(e, 6.25), nb(b, 9), nb(c, 16), nb(d, 25)}, 0},
		// All four corners tie at 6.25: by index, and two more are tied.
		{"centre, k=2 cuts a tie", e, 2, []eval.Neighbor{nb(a, 6.25), nb(b, 6.25)}, 2},
		{"centre, k=4", e, 4, []eval.Neighbor{nb(a, 6.25), nb(b, 6.25), nb(c, 6.25), nb(d, 6.25)}, 0},
		// From d: e 6.25, c 9, b 16, a 25.
		{"d, k=1", d, 1, []eval.Neighbor{nb(e, 6.25)}, 0},
		{"d, k=2", d, 2, []eval.Neighbor{nb(e, 6.25), nb(c, 9)}, 0},
	} {
		t.Run(test.name, func(t *testing.T) {
			got, tied := eval.Nearest(eval.EmbeddingDistance(rect), 5, test.q, test.k)
			if fmt.Sprint(got) != fmt.Sprint(test.want) || tied != test.wantTie {
				t.Errorf("got %v (tied %d), want %v (tied %d)", got, tied, test.want, test.wantTie)
			}
		})
	}
}

func TestNearestNaNLastAndDistance(t *testing.T) {
	sq := []float64{math.NaN(), 4, -1e-16, 1}
	got, _ := eval.Nearest(func(_, j int) float64 { return sq[j] }, 4, 9, 0)
	want := []int{2, 3, 1, 0}
	for r, nb := range got {
		if nb.Item != want[r] {
			t.Fatalf("order %v, want items %v (NaN last)", got, want)
		}
	}
	// A round-off negative squared distance is distance 0; 4 is 2.
	if got[0].Distance() != 0 || got[2].Distance() != 2 {
		t.Errorf("distances %v, %v; want 0 and 2", got[0].Distance(), got[2].Distance())
	}
}

func TestNativeDistanceNew(t *testing.T) {
	// The linear kernel of the rectangle, K = XXᵀ, whose native distances
	// are the Euclidean ones, and a new item x = (3, 0.5): k(x, ·) = x·p,
	// k(x, x) = 9.25. By hand: d(x,a) = 9.25, d(x,b) = 0.25,
	// d(x,c) = 9 + 12.25 = 21.25, d(x,d) = 12.25, d(x,e) = 2.25 + 2.25 = 4.5.
	var k mat.SymDense
	k.SymOuterK(1, rect)
	x := mat.NewVecDense(2, []float64{3, 0.5})
	var rows mat.Dense
	rows.Mul(x.T(), rect.T())
	d := eval.NativeDistanceNew(&k, &rows, []float64{9.25})
	got, tied := eval.Nearest(d, 5, 5, 0)
	want := "[{1 0.25} {4 4.5} {0 9.25} {3 12.25} {2 21.25}]"
	if fmt.Sprint(got) != want || tied != 0 {
		t.Errorf("neighbours of the new item %v (tied %d), want %s", got, tied, want)
	}
	// Among the kernel's items it is NativeDistance: d(a,d) = 25, d(e,c) = 6.25.
	if d(0, 3) != 25 || d(4, 2) != 6.25 || d(3, 5) != 12.25 || d(5, 5) != 0 {
		t.Errorf("d(a,d)=%v d(e,c)=%v d(d,x)=%v d(x,x)=%v; want 25, 6.25, 12.25, 0", d(0, 3), d(4, 2), d(3, 5), d(5, 5))
	}
	// Two new items: their kernel value is not given.
	d2 := eval.NativeDistanceNew(&k, mat.NewDense(2, 5, nil), []float64{1, 1})
	if !math.IsNaN(d2(5, 6)) {
		t.Errorf("distance between two new items %v, want NaN", d2(5, 6))
	}
}

func ExampleNearest() {
	// Corners of a 3×4 rectangle and its centre (the last row).
	x := mat.NewDense(5, 2, []float64{0, 0, 3, 0, 0, 4, 3, 4, 1.5, 2})
	nn, tied := eval.Nearest(eval.EmbeddingDistance(x), 5, 0, 3)
	for r, nb := range nn {
		fmt.Printf("%d. item %d at distance %.2f\n", r+1, nb.Item, nb.Distance())
	}
	fmt.Println("tied beyond k:", tied)
	// Output:
	// 1. item 4 at distance 2.50
	// 2. item 1 at distance 3.00
	// 3. item 2 at distance 4.00
	// tied beyond k: 0
}
