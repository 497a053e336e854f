package experiments

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mkpoe/mkpoe/pkg/cv"
	"github.com/mkpoe/mkpoe/pkg/data"
)

// Files of a run directory that record what each split and fold held out
// (results/README.md): the comparisons, for data sets with a fixed list of
// them, and the items, under item holdout.
const (
	heldoutFile      = "heldout.tsv"
	heldoutItemsFile = "heldout-items.tsv"
)

// heldOut returns the held-out comparisons of fold id in data set indices,
// in the order the fold has them: the comparisons its tasks score, before
// max_test_comparisons and constraints.test pick among them.
func heldOut(c *Config, ds *dataset, id cv.FoldID) ([]data.Comparison, error) {
	train, test, source := foldOf(c, ds, id)
	if b, ok := source.(cv.ByIndex); ok {
		// Comparison holdout: the held-out indices, without building the
		// fold's training list (millions of comparisons at scale).
		out := make([]data.Comparison, len(b.Held))
		for r, u := range b.Held {
			out[r] = b.All[u]
		}
		return out, nil
	}
	_, held, err := source.Split(train, test)
	if err != nil {
		return nil, err
	}
	items := append(append([]int(nil), train...), test...)
	out := make([]data.Comparison, len(held))
	for r, h := range held {
		out[r] = data.Comparison{I: items[h.I], J: items[h.J], K: items[h.K], L: items[h.L]}
	}
	return out, nil
}

// writeHeldout writes heldout.tsv (data sets with a fixed list of
// comparisons) and heldout-items.tsv (item holdout) into the run directory,
// and removes either that this config does not have. Both are tidy TSV
// files with a header: split, fold (−1 for the outer split's test set,
// else the inner fold's validation set), then i, j, k, l (a triplet
// (i,j,k) as i, j, i, k), or item; in data set indices (items.json), splits
// and folds in order. They depend on the config and the data alone: the
// same config writes the same bytes.
func writeHeldout(c *Config, ds *dataset) error {
	folds := func(yield func(s, f int) bool) {
		for s := 0; s < c.Protocol.Splits; s++ {
			for f := -1; f < c.Protocol.InnerFolds; f++ {
				if !yield(s, f) {
					return
				}
			}
		}
	}
	write := func(name string, wanted bool, rows func(w *bufio.Writer) error) error {
		path := filepath.Join(c.Output, name)
		if !wanted {
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			return nil
		}
		return writeFileAtomic(path, func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			if err := rows(bw); err != nil {
				return err
			}
			return bw.Flush()
		})
	}
	err := write(heldoutFile, ds.taxonomy == nil, func(w *bufio.Writer) error {
		fmt.Fprintln(w, "split\tfold\ti\tj\tk\tl")
		var err error
		folds(func(s, f int) bool {
			var held []data.Comparison
			if held, err = heldOut(c, ds, cv.FoldID{Split: s, Fold: f}); err != nil {
				err = fmt.Errorf("split %d, fold %d: %w", s, f, err)
				return false
			}
			for _, h := range held {
				fmt.Fprintf(w, "%d\t%d\t%d\t%d\t%d\t%d\n", s, f, h.I, h.J, h.K, h.L)
			}
			return true
		})
		return err
	})
	if err != nil {
		return err
	}
	return write(heldoutItemsFile, c.Protocol.Holdout == holdoutItems, func(w *bufio.Writer) error {
		fmt.Fprintln(w, "split\tfold\titem")
		folds(func(s, f int) bool {
			_, test, _ := foldOf(c, ds, cv.FoldID{Split: s, Fold: f})
			for _, i := range test {
				fmt.Fprintf(w, "%d\t%d\t%d\n", s, f, i)
			}
			return true
		})
		return nil
	})
}
