package experiments

import (
	"fmt"

	"github.com/mkpoe/mkpoe/pkg/cv"
	"github.com/mkpoe/mkpoe/pkg/data"
)

// givenSplit is the outer split of protocol outer: given, in the units of
// protocol.holdout (cv.GivenSplit): under comparison holdout the data set's
// comparisons are its training comparisons followed by the given test
// comparisons, and split holds their indices; under item holdout split
// holds the training and held-out items, the data set's comparisons are
// the training comparisons only, and test holds the given ones.
type givenSplit struct {
	split cv.GivenSplit
	// test are the given test comparisons in data set indices, in the
	// order of the file (item holdout; under comparison holdout they are
	// the tail of dataset.comps).
	test []data.Comparison
}

// givenBase returns whether the given test file of c is 1-based: as the
// data set's own comparisons file (generic: dataset.one_based; aset400's
// triplets.tsv is 1-based; planted data sets are numbered from 0, as
// items.json).
func givenBase(c *Config) bool {
	switch c.Dataset.Type {
	case "generic":
		return c.Dataset.OneBased
	case "aset400":
		return true
	}
	return false
}

// questionKey is the question a comparison answers, "is {i,j} closer than
// {k,l}?", whichever way it is answered: the two pairs in a fixed order.
// flipped says the comparison states the second pair closer.
func questionKey(c data.Comparison) (key [4]int, flipped bool) {
	l, r := c.Left(), c.Right()
	if r.A < l.A || (r.A == l.A && r.B < l.B) {
		return [4]int{r.A, r.B, l.A, l.B}, true
	}
	return [4]int{l.A, l.B, r.A, r.B}, false
}

// applyGiven reads protocol.test_comparisons against the loaded data set
// and makes its split (ds.given): the given comparisons are the test set;
// every comparison of the data set that asks the same question as one of
// them — the same comparison, or its reverse — is removed from training;
// under item holdout the items of the test comparisons that are in no
// training comparison are held out. It adds a note saying what it did.
// Its errors name protocol.test_comparisons, and the file, line and column
// of a bad line.
func applyGiven(c *Config, ds *dataset) error {
	const key = "protocol.test_comparisons"
	path := c.Protocol.TestComparisons
	base := 0
	if givenBase(c) {
		base = 1
	}
	cf, err := data.ReadComparisonsFile(path, data.ComparisonOptions{OneBased: base == 1, N: ds.n})
	if fe, ok := err.(*data.FileError); ok {
		fe.Rule += fmt.Sprintf(" (the data set has %d items, numbered from %d as its comparisons)", ds.n, base)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	test := cf.Comparisons
	if len(test) == 0 {
		return fmt.Errorf("%s: %s holds no comparison; a given test set must hold at least one", key, path)
	}
	asked := map[[4]int]uint8{} // bit 1: asked unflipped, bit 2: flipped
	for _, t := range test {
		k, f := questionKey(t)
		asked[k] |= 1 << b2i(f)
	}
	var train []data.Comparison
	same, reversed := 0, 0
	for _, t := range ds.comps {
		k, f := questionKey(t)
		switch bits := asked[k]; {
		case bits&(1<<b2i(f)) != 0:
			same++
		case bits != 0:
			reversed++
		default:
			train = append(train, t)
		}
	}
	if len(train) == 0 {
		return fmt.Errorf("%s: no training comparison is left: each of the data set's %d comparisons asks a question of the %d in %s (the same comparison or its reverse, which training may not see)", key, len(ds.comps), len(test), path)
	}
	inTrain := make([]bool, ds.n)
	for _, t := range train {
		inTrain[t.I], inTrain[t.J], inTrain[t.K], inTrain[t.L] = true, true, true, true
	}
	var unseen []int // items of the test set in no training comparison
	seen := map[int]bool{}
	for _, t := range test {
		for _, i := range [4]int{t.I, t.J, t.K, t.L} {
			if !inTrain[i] && !seen[i] {
				seen[i] = true
				unseen = append(unseen, i)
			}
		}
	}
	note := fmt.Sprintf("given test set: %d comparisons from %s; %d of the data set's comparisons removed from training (%d the same as a test comparison, %d its reverse), %d train", len(test), path, same+reversed, same, reversed, len(train))
	g := &givenSplit{}
	if c.Protocol.Holdout == holdoutComparisons {
		nt := len(train)
		ds.comps = append(train, test...)
		g.split.Train, g.split.Held = seq(0, nt), seq(nt, len(ds.comps))
		if len(unseen) > 0 {
			note += fmt.Sprintf("; %d items of the test set are in no training comparison: under holdout comparisons they train (kernels on all items) unconstrained, holdout items would embed them out of sample", len(unseen))
		}
	} else {
		if len(unseen) == 0 {
			return fmt.Errorf("%s: under protocol.holdout items the held-out items are those of the test comparisons in no training comparison, and %s has none: every item it names trains; set protocol.holdout: comparisons to hold out the comparisons alone", key, path)
		}
		held := make([]bool, ds.n)
		for _, i := range unseen {
			held[i] = true
		}
		for r, t := range test {
			if bad := heldOutMisplaced(t, held); bad >= 0 {
				return fmt.Errorf("%s: %s:%d: under protocol.holdout items a held-out item (one in no training comparison) may only be the anchor i of a triplet (i,j,k) with j and k training items (Sec. 5.1), got %v with held-out item %d; set protocol.holdout: comparisons to score it among training items", key, path, cf.Lines[r], shifted(t, base), bad+base)
			}
		}
		for i := 0; i < ds.n; i++ {
			if held[i] {
				g.split.Held = append(g.split.Held, i)
			} else {
				g.split.Train = append(g.split.Train, i)
			}
		}
		ds.comps, g.test = train, test
		note += fmt.Sprintf("; %d held-out items (in no training comparison), embedded out of sample", len(g.split.Held))
	}
	ds.given = g
	ds.notes = append(ds.notes, note)
	return nil
}

// heldOutMisplaced returns a held-out item of t that is not where the
// paper's test comparisons have it (the anchor of a triplet whose other
// two items train), or −1.
func heldOutMisplaced(t data.Comparison, held []bool) int {
	items := []int{t.I, t.J, t.K, t.L}
	if t.IsTriplet() {
		items = []int{t.J, t.L} // the anchor may be held out
	}
	for _, i := range items {
		if held[i] {
			return i
		}
	}
	return -1
}

// shifted writes t numbered from base, as in its file.
func shifted(t data.Comparison, base int) string {
	return data.Comparison{I: t.I + base, J: t.J + base, K: t.K + base, L: t.L + base}.String()
}

// seq returns lo, lo+1, …, hi−1.
func seq(lo, hi int) []int {
	out := make([]int, hi-lo)
	for i := range out {
		out[i] = lo + i
	}
	return out
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
