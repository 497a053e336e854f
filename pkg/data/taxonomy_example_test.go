package data_test

import (
	"fmt"
	"log"

	"github.com/mkpoe/mkpoe/pkg/data"
)

// The taxonomy experiment of McFee & Lanckriet (2011, Sec. 5.1) synthesises
// comparisons from a label tree: lemon#1 is closer to lemon#2 than to the
// pear, and closer to the pear than to the sneaker. (0,2,3) is emitted but
// (0,1,3) is not: it follows from the other two by transitivity.
func ExampleTaxonomy_Comparisons() {
	// Four classes: 1 lemon, 2 pear (fruit), 3 sneaker, 4 boot (shoes).
	tax, err := data.ParseTaxonomy("[[1,2],[3,4]]")
	if err != nil {
		log.Fatal(err)
	}
	labels := []int{1, 1, 2, 3} // items: lemon#1, lemon#2, pear#1, sneaker#1
	all := []int{0, 1, 2, 3}
	cs, err := tax.Comparisons(labels, all[:1], all) // anchored at lemon#1
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range cs {
		fmt.Println(c)
	}
	// Output:
	// (0,1,2)
	// (0,2,3)
}
