package query_test

import (
	"fmt"
	"log"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/query"
)

// Four training items on a line and one new item, embedded out of sample
// at 3.5 (as mkpoe.Model.Embed would place it): its two nearest neighbours.
func ExampleSpace_Query() {
	emb := mat.NewDense(5, 1, []float64{0, 1, 2, 4, 3.5})
	sp := query.NewEmbedding(emb, 4, []string{"Alpha", "Beta", "Gamma", "Delta"})
	fmt.Printf("%d items, %d candidates\n", sp.Total(), sp.Candidates())
	out, err := sp.Query(nil, 2) // no queries: every new item
	if err != nil {
		log.Fatal(err)
	}
	for _, res := range out.Queries {
		fmt.Printf("%s (%s), ranked against %d items:\n", res.Name, res.Kind, res.Ranked)
		for _, nb := range res.Neighbors {
			fmt.Printf("  %d. %d %s at %.2f\n", nb.Rank, nb.Index, nb.Name, nb.Distance)
		}
	}
	// Output:
	// 5 items, 5 candidates
	// new:0 (new), ranked against 4 items:
	//   1. 3 Delta at 0.50
	//   2. 2 Gamma at 1.50
}
