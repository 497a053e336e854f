package data_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/mkpoe/mkpoe/pkg/data"
)

// ExampleReadIndicesFile reads a subset of items, as the ALOI-10 data set's
// subset_10x20_row_indices.tsv lists one: one 0-based index a line, '#'
// comments allowed, each index in [0, n) and given once.
func ExampleReadIndicesFile() {
	dir, err := os.MkdirTemp("", "indices")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "subset.tsv")
	if err := os.WriteFile(path, []byte("# three of five items\n4\n0\n2\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	idx, err := data.ReadIndicesFile(path, 5)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(idx)
	_, err = data.ReadIndicesFile(path, 4)
	fmt.Println(err != nil)
	// Output:
	// [4 0 2]
	// true
}
