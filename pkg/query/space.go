package query

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/eval"
)

// Item kinds of a space.
const (
	KindTrain = "train" // a training item of a model, or an item of a kernel
	KindTest  = "test"  // a run's held-out item, embedded out of sample
	KindNew   = "new"   // a new item from kernel rows
)

// Space is the space a query runs in: items 0 … Total−1 with a squared
// distance; the first Candidates of them are the possible neighbours (all
// of them, except a native space's new items, whose mutual kernel values
// are unknown). Build one with NewEmbedding, FromModel, FromKernels or
// FromRun; a Space is not modified by queries.
type Space struct {
	kind, desc string
	dist       eval.Distance
	total      int
	candidates int
	newItems   int      // the last newItems items are new (from kernel rows)
	names      []string // per item; "" when no names were given
	kinds      []string
	index      []int // per item, the index shown to the user (items.json's for a run)
	// userNames and userIDs name the items as the user numbers them (for
	// a run: every item of items.json, also those outside the space);
	// absent says why a user index is not in the space (nil: all are).
	userNames, userIDs []string
	absent             func(user int) string
	// What the output's JSON names as its source.
	model         string
	kernels, rows []string
	run, row      string
	split         *int
}

// Desc describes the space for people, e.g. "the native space of k.tsv".
func (sp *Space) Desc() string { return sp.desc }

// Total is the number of items in the space.
func (sp *Space) Total() int { return sp.total }

// Candidates is the number of items a query ranks: the first Candidates
// items of the space.
func (sp *Space) Candidates() int { return sp.candidates }

// NewItems is the number of new items, the last NewItems of the space.
func (sp *Space) NewItems() int { return sp.newItems }

// NewEmbedding is the space of an embedding (one row per item, as
// mkpoe.Model.Train and Model.Embed give it): the first n rows are training
// items, the rest new items. names, when not nil, names the n training
// items. emb is kept, not copied: do not modify it while the space is in
// use. It panics if emb has fewer than n rows or names is not of length n.
func NewEmbedding(emb *mat.Dense, n int, names []string) *Space {
	total, d := emb.Dims()
	if total < n || (names != nil && len(names) != n) {
		panic(fmt.Sprintf("query: NewEmbedding of %d rows with n = %d and %d names", total, n, len(names)))
	}
	sp := newSpace(n, total-n, names, nil, KindTrain)
	sp.kind = "model"
	sp.desc = fmt.Sprintf("an embedding (%d dimensions)", d)
	sp.dist = eval.EmbeddingDistance(emb)
	return sp
}

// newSpace fills the per-item fields of a space of n items (named by names,
// of kind kind) and t new items.
func newSpace(n, t int, names, ids []string, kind string) *Space {
	sp := &Space{total: n + t, candidates: n + t, newItems: t}
	for i := 0; i < n+t; i++ {
		sp.index = append(sp.index, i)
		switch {
		case i >= n:
			sp.names = append(sp.names, fmt.Sprintf("new:%d", i-n))
			sp.kinds = append(sp.kinds, KindNew)
		case names != nil:
			sp.names = append(sp.names, names[i])
			sp.kinds = append(sp.kinds, kind)
		default:
			sp.names = append(sp.names, "")
			sp.kinds = append(sp.kinds, kind)
		}
		if ids != nil && i < n {
			sp.userIDs = append(sp.userIDs, ids[i])
		} else if ids != nil {
			sp.userIDs = append(sp.userIDs, "")
		}
	}
	sp.userNames = sp.names
	return sp
}
