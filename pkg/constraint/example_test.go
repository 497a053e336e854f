package constraint_test

import (
	"fmt"
	"log"

	"github.com/mkpoe/mkpoe/pkg/constraint"
	"github.com/mkpoe/mkpoe/pkg/data"
)

// The comparisons of McFee & Lanckriet (2011, Fig. 1) over items i, j, k, l
// (0..3), plus a contradiction of (j,l,i,k) and a repeat written with the
// items of each pair swapped.
func Example() {
	const i, j, k, l = 0, 1, 2, 3
	cs := []data.Comparison{
		{I: j, J: k, K: j, L: l},
		{I: j, J: k, K: i, L: k},
		{I: j, J: l, K: i, L: k},
		{I: i, J: l, K: j, L: l},
		{I: i, J: l, K: i, L: j},
		{I: i, J: j, K: j, L: l},
		{I: i, J: k, K: j, L: l}, // contradicts (j,l,i,k)
		{I: k, J: j, K: l, L: j}, // repeats (j,k,j,l)
	}
	kept, reports, err := constraint.Run(cs, constraint.PaperSteps, 1)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range reports {
		fmt.Printf("%-8s in %d removed %d out %d\n", r.Step, r.In, r.Removed, r.Out)
	}
	fmt.Println("kept:", kept)
	s, err := constraint.Stats(kept)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("vertices %d, edges %d, cyclic %v, diameter %d\n", s.Vertices, s.Edges, s.Cyclic, s.Diameter)
	x, err := constraint.Embed(kept, 4)
	if err != nil {
		log.Fatal(err)
	}
	r, c := x.Dims()
	fmt.Printf("embedding %d×%d\n", r, c)
	// Output:
	// dedup    in 8 removed 1 out 7
	// length2  in 7 removed 2 out 5
	// acyclic  in 5 removed 0 out 5
	// reduce   in 5 removed 1 out 4
	// kept: [(1,2,3) (1,2,0,2) (0,3,1) (0,1,1,3)]
	// vertices 5, edges 4, cyclic false, diameter 2
	// embedding 4×3
}
