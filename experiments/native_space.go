package experiments

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// NativeSpace is a native row's space on one outer split of a run: the
// row's kernels built on the split's training items, with the held-out
// items' rows and self-similarities from the training statistics only,
// exactly as the row's native task built them to score the split.
type NativeSpace struct {
	Label   string   // the row's label, as the config spells it
	Kernels []string // the row's kernels (a group: their unweighted sum)
	// Train and Test are the split's items in the data set's numbering
	// (items.json's), sorted.
	Train, Test []int
	Grams       []*mat.SymDense // per kernel, Train × Train
	Rows        []*mat.Dense    // per kernel, Test × Train; nil without held-out items
	Self        [][]float64     // per kernel, k(x,x) of each Test item
}

// RunNativeSpace rebuilds the native space of the row labelled label (case
// aside) of the run directory dir on outer split split, from the run's
// config.resolved.yaml and the data it names: a run stores no kernels,
// since they follow from the config and the data. The data must be where
// the resolved config says (its paths are absolute).
func RunNativeSpace(dir, label string, split int) (*NativeSpace, error) {
	path := filepath.Join(dir, "config.resolved.yaml")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("--run %s: no config.resolved.yaml, from which a native row's kernels are rebuilt (a run stores no kernels): query the kernels' native space with --kernel FILE... instead", dir)
	}
	c, err := LoadConfig(path)
	if err != nil {
		return nil, fmt.Errorf("rebuilding the native space of row %q: %w", label, err)
	}
	var row *RowConfig
	for i := range c.Rows {
		if strings.EqualFold(c.Rows[i].Label, label) {
			row = &c.Rows[i]
		}
	}
	switch {
	case row == nil:
		return nil, fmt.Errorf("--row: %s has no row labelled %q", path, label)
	case row.Method != "native":
		return nil, fmt.Errorf("--row %q is a %s row of %s, not a native one", label, row.Method, path)
	case split < 0 || split >= c.Protocol.Splits:
		return nil, fmt.Errorf("--split must be in 0..%d (the run's outer splits), got %d", c.Protocol.Splits-1, split)
	}
	ds, err := c.loadAndCheckData()
	if err != nil {
		return nil, fmt.Errorf("rebuilding the native space of row %q from %s: %w", row.Label, path, err)
	}
	train, test := splitItems(c, ds, split)
	ns := &NativeSpace{Label: row.Label, Train: train, Test: test}
	for _, p := range c.rowKernels(*row) {
		k := c.Kernels[p]
		g, r, self, err := buildKernelSelf(k, ds, train, test)
		if err != nil {
			return nil, fmt.Errorf("rebuilding kernel %q of row %q: %w", k.Name, row.Label, err)
		}
		ns.Kernels = append(ns.Kernels, k.Name)
		ns.Grams, ns.Rows, ns.Self = append(ns.Grams, g), append(ns.Rows, r), append(ns.Self, self)
	}
	return ns, nil
}
