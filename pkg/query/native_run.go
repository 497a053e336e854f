package query

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/eval"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// ErrNativeRow is the error of FromRun for a native row, which has no
// model: its space is rebuilt from the run's config and data
// (FromNativeRun).
var ErrNativeRow = errors.New("a native row, with no learned model")

// NativeRun is the native space of a run's native row on one outer split,
// as the caller rebuilt it from the run's config and data (mkpoe query uses
// experiments.RunNativeSpace): the row's kernels on the split's training
// items, and the held-out items' rows and self-similarities.
type NativeRun struct {
	Dir, Label string
	Split      int
	Kernels    []string // the kernels' names, for the description
	// Train and Test are the split's items, numbered as the run's
	// items.json numbers them; FromNativeRun checks them against it.
	Train, Test []int
	Grams       []mat.Symmetric // per kernel, Train × Train
	Rows        []mat.Matrix    // per kernel, Test × Train (unused without Test)
	Self        [][]float64     // per kernel, k(x,x) of each Test item
}

// FromNativeRun is the native space of nr: the unweighted sum of its
// kernels (Eq. 9), d(i,j)² = K_ii + K_jj − 2K_ij, as the row's native task
// scored the split. Items are numbered and named as the run's items.json
// numbers and names them; the training items are the candidates, and a
// held-out item is ranked against them (the kernel between two held-out
// items is not built), as the task's test comparisons rank it.
func FromNativeRun(nr NativeRun) (*Space, error) {
	itemsPath := filepath.Join(nr.Dir, "items.json")
	b, err := os.ReadFile(itemsPath)
	if err != nil {
		return nil, fmt.Errorf("--run: reading %s (the run's item names and splits): %w", itemsPath, err)
	}
	items, err := results.DecodeItems(b, itemsPath)
	if err != nil {
		return nil, err
	}
	if nr.Split < 0 || nr.Split >= len(items.Splits) {
		return nil, fmt.Errorf("--split must be in 0..%d (the run's outer splits), got %d", len(items.Splits)-1, nr.Split)
	}
	sp := items.Splits[nr.Split]
	if !slices.Equal(nr.Train, sp.Train) || !slices.Equal(nr.Test, sp.Test) {
		return nil, fmt.Errorf("row %q: the split rebuilt from the run's config and data (%d training, %d held-out items) is not the run's (%s splits[%d]: %d and %d): the data or the config changed since the run",
			nr.Label, len(nr.Train), len(nr.Test), itemsPath, nr.Split, len(sp.Train), len(sp.Test))
	}
	n, t := len(nr.Train), len(nr.Test)
	if len(nr.Grams) == 0 || len(nr.Rows) != len(nr.Grams) || len(nr.Self) != len(nr.Grams) {
		return nil, fmt.Errorf("row %q: %d Gram matrices, %d row matrices and %d self-similarity lists: want one of each per kernel", nr.Label, len(nr.Grams), len(nr.Rows), len(nr.Self))
	}
	sum := mat.NewSymDense(n, nil)
	var rows *mat.Dense
	self := make([]float64, t)
	if t > 0 {
		rows = mat.NewDense(t, n, nil)
	}
	for p, g := range nr.Grams {
		if g.SymmetricDim() != n {
			return nil, fmt.Errorf("row %q: kernel %d is %d×%d, want %d×%d (the training items)", nr.Label, p, g.SymmetricDim(), g.SymmetricDim(), n, n)
		}
		sum.AddSym(sum, g)
		if t == 0 {
			continue
		}
		if r, c := nr.Rows[p].Dims(); r != t || c != n || len(nr.Self[p]) != t {
			return nil, fmt.Errorf("row %q: kernel %d has %d×%d rows and %d self-similarities, want %d×%d and %d (the held-out items)", nr.Label, p, r, c, len(nr.Self[p]), t, n, t)
		}
		rows.Add(rows, nr.Rows[p])
		for q, v := range nr.Self[p] {
			self[q] += v
		}
	}
	s := &Space{kind: "run", run: nr.Dir, row: nr.Label, split: &nr.Split}
	if t > 0 {
		s.dist = eval.NativeDistanceNew(sum, rows, self)
	} else {
		s.dist = eval.NativeDistance(sum)
	}
	s.desc = fmt.Sprintf("row %q of run %s, split %d (the native space of %s, rebuilt from the run's config and data)", nr.Label, nr.Dir, nr.Split, strings.Join(nr.Kernels, " + "))
	for p, g := range append(append([]int(nil), nr.Train...), nr.Test...) {
		s.index = append(s.index, g)
		s.names = append(s.names, items.Names[g])
		s.kinds = append(s.kinds, map[bool]string{true: KindTrain, false: KindTest}[p < n])
	}
	s.total, s.candidates = n+t, n
	s.userNames = items.Names
	s.absent = func(int) string {
		return fmt.Sprintf("is in neither the training nor the test items of split %d", nr.Split)
	}
	return s, nil
}
