package experiments

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/constraint"
	"github.com/mkpoe/mkpoe/pkg/cv"
	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/kernels"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
)

// fold is one train/test (or inner train/validation) split with everything a
// fit needs, built from training items only:
//
//   - grams[p]: the kernel on the training items, fitted on them alone
//     (IDF weights, bandwidths, normalisers, standardisation): dense, or
//     structured where no reader needs it dense (kernelForm);
//   - rows[p]: the held-out items against the training items, computed with
//     the training statistics;
//   - trainCs: comparisons among training items, numbered 0..nt−1, after the
//     configured constraint processing;
//   - testCs: comparisons (i,j,i,k) with i held out (numbered nt+position)
//     and j, k training items (Sec. 5.1, 5.2.2), after test pruning.
//
// No held-out item reaches a training kernel block or comparison.
type fold struct {
	train, test []int // global item indices
	grams       map[int]mat.Symmetric
	rows        map[int]*mat.Dense
	trainCs     []data.Comparison
	testCs      []data.Comparison
	trainSteps  []constraint.StepReport
	testSteps   []constraint.StepReport
	eigen       *mkpoe.EigenCache // the run's (dataset.eigen), nil: none
}

// splitItems returns the training and held-out items of outer split s.
func splitItems(c *Config, ds *dataset, s int) (train, test []int) {
	train, test, _ = foldOf(c, ds, cv.Outer(s))
	return train, test
}

// foldOf returns the training and held-out items of trial id (an outer
// split's refit, fold −1, or an inner fold) and where its comparisons come
// from, by the config's protocol.holdout (cv.Protocol.Fold):
//
//   - items: the items are split; comparisons come from the data set's list
//     (cv.Fixed) or its taxonomy (cv.FromTaxonomy);
//   - comparisons: every item trains, no item is held out, and the data
//     set's comparisons are split (cv.ByIndex).
//
// With outer: given the outer split is the given one (ds.given); under item
// holdout its refit scores every given test comparison
// (cv.GivenComparisons), while its inner folds split the training
// comparisons as a fixed list.
func foldOf(c *Config, ds *dataset, id cv.FoldID) (train, test []int, source cv.ComparisonSource) {
	p := c.foldProtocol(ds)
	if p.HoldOut == cv.HoldOutComparisons {
		tr, he := p.Fold(len(ds.comps), id)
		train = make([]int, ds.n)
		for i := range train {
			train[i] = i
		}
		return train, nil, cv.ByIndex{All: ds.comps, Train: tr, Held: he}
	}
	train, test = p.Fold(ds.n, id)
	if ds.given != nil && id.Fold < 0 {
		return train, test, cv.GivenComparisons{Train: ds.comps, Held: ds.given.test}
	}
	if ds.taxonomy != nil {
		return train, test, cv.FromTaxonomy{Taxonomy: ds.taxonomy, Labels: ds.labels}
	}
	return train, test, cv.Fixed(ds.comps)
}

// gramsOf returns the fold's training kernels of kidx, in that order.
func (f *fold) gramsOf(kidx []int) []mat.Symmetric {
	ks := make([]mat.Symmetric, len(kidx))
	for i, p := range kidx {
		ks[i] = f.grams[p]
	}
	return ks
}

// rowsOf returns the fold's held-out kernel rows of kidx, in that order.
func (f *fold) rowsOf(kidx []int) []*mat.Dense {
	rows := make([]*mat.Dense, len(kidx))
	for i, p := range kidx {
		rows[i] = f.rows[p]
	}
	return rows
}

// foldItems is a fold's training and held-out items and the source of its
// comparisons (foldOf).
type foldItems struct {
	train, test []int
	source      cv.ComparisonSource
}

// buildFold builds the kernels listed in kernelIdx, in the form its reader
// needs (form), and the comparisons of the fold's items. seed drives
// comparison subsampling and constraint processing.
func buildFold(c *Config, ds *dataset, items foldItems, kernelIdx []int, trainSteps []string, seed uint64, form kernelForm) (*fold, error) {
	train, test := items.train, items.test
	f := &fold{train: train, test: test, grams: map[int]mat.Symmetric{}, rows: map[int]*mat.Dense{}, eigen: ds.eigen}
	for _, p := range kernelIdx {
		g, r, _, err := buildKernelForm(c.Kernels[p], ds, train, test, form)
		if err != nil {
			return nil, fmt.Errorf("kernels[%d] (%s): %w", p, c.Kernels[p].Name, err)
		}
		f.grams[p], f.rows[p] = g, r
	}
	var err error
	if f.trainCs, f.testCs, err = items.source.Split(train, test); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	f.trainCs = subsample(f.trainCs, c.Protocol.MaxTrainComparisons, rng)
	f.testCs = subsample(f.testCs, c.Protocol.MaxTestComparisons, rng)
	if len(trainSteps) > 0 {
		if f.trainCs, f.trainSteps, err = constraint.Run(f.trainCs, trainSteps, seed); err != nil {
			return nil, fmt.Errorf("constraints.train: %w", err)
		}
	}
	if len(c.Constraints.Test) > 0 {
		if f.testCs, f.testSteps, err = constraint.Run(f.testCs, c.Constraints.Test, seed); err != nil {
			return nil, fmt.Errorf("constraints.test: %w", err)
		}
	}
	return f, nil
}

// subsample keeps max comparisons chosen at random (in their original
// order), or all if max is 0 or there are fewer.
func subsample(cs []data.Comparison, max int, rng *rand.Rand) []data.Comparison {
	if max <= 0 || len(cs) <= max {
		return cs
	}
	keep := rng.Perm(len(cs))[:max]
	slices.Sort(keep)
	out := make([]data.Comparison, max)
	for r, i := range keep {
		out[r] = cs[i]
	}
	return out
}

// buildKernelSelf fits kernel k on the training items and computes the
// rows of the held-out items with the training statistics only, and the
// held-out items' normalised self-similarities k(x,x)
// (kernels.Model.RowsSelf), which place them in the kernel's native space
// (RunNativeSpace).
func buildKernelSelf(k KernelConfig, ds *dataset, train, test []int) (*mat.SymDense, *mat.Dense, []float64, error) {
	g, r, self, err := buildKernelForm(k, ds, train, test, denseKernels)
	if err != nil {
		return nil, nil, nil, err
	}
	return g.(*mat.SymDense), r, self, nil
}

// kernelForm is how a fold holds its training kernels (fold.grams).
type kernelForm int

const (
	// denseKernels: every kernel a dense n×n matrix (*mat.SymDense).
	denseKernels kernelForm = iota
	// fitKernels: for a learned row's fits: the identity kernel as a
	// *mat.DiagDense (n numbers), which the solver reads along its
	// diagonal (mkpoe, docs/solver.md "Memory"), every other dense.
	fitKernels
	// entryKernels: for a native row, which reads the entries of its
	// held-out comparisons alone: the identity as for fitKernels and an
	// unnormalised linear kernel as its features (kernels.FeatureGram,
	// n·D numbers), every other dense.
	entryKernels
)

// formOf is the kernel form of a row's folds.
func formOf(row RowConfig) kernelForm {
	if row.Method == "native" {
		return entryKernels
	}
	return fitKernels
}

// buildKernelForm is buildKernelSelf with the training kernel in form: a
// structured matrix where form allows one and the kernel has it
// (structuredKernel), else dense. The entries are the same either way.
func buildKernelForm(k KernelConfig, ds *dataset, train, test []int, form kernelForm) (mat.Symmetric, *mat.Dense, []float64, error) {
	if k.Type == "precomputed" {
		full, ok := ds.precomputed[k.Source]
		if !ok {
			return nil, nil, nil, fmt.Errorf("source %q is not an n×n kernel file of the data set", k.Source)
		}
		g := mat.NewSymDense(len(train), nil)
		for a, i := range train {
			for b := a; b < len(train); b++ {
				g.SetSym(a, b, full.At(i, train[b]))
			}
		}
		r := mat.NewDense(len(test), len(train), nil)
		self := make([]float64, len(test))
		for a, i := range test {
			self[a] = full.At(i, i)
			for b, j := range train {
				r.Set(a, b, full.At(i, j))
			}
		}
		return g, r, self, nil
	}
	var in kernels.Input
	switch k.Type {
	case "identity", "noise":
		in = kernels.Input{N: ds.n}
	default:
		var ok bool
		if in, ok = ds.sources[k.Source]; !ok {
			return nil, nil, nil, fmt.Errorf("unknown source %q (this data set offers %v)", k.Source, sortedKeys(ds.sources))
		}
	}
	trIn := in.Subset(train)
	var teIn kernels.Input
	if len(test) > 0 {
		teIn = in.Subset(test)
	}
	if k.Standardize && trIn.Features != nil {
		means, stds := data.ColumnMeanStd(trIn.Features, nil)
		var err error
		if trIn.Features, err = data.Standardise(trIn.Features, means, stds); err != nil {
			return nil, nil, nil, err
		}
		if len(test) > 0 {
			if teIn.Features, err = data.Standardise(teIn.Features, means, stds); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	kern, err := kernels.New(k.Type, k.Params)
	if err != nil {
		return nil, nil, nil, err
	}
	norm, err := kernels.ParseNormalization(k.Normalize)
	if err != nil {
		return nil, nil, nil, err
	}
	if g, rows, self, ok, err := structuredKernel(k, norm, trIn, teIn, len(test), form); ok || err != nil {
		return g, rows, self, err
	}
	m, err := kernels.Fit(kern, trIn, kernels.Options{Normalize: norm})
	if err != nil {
		return nil, nil, nil, err
	}
	if len(test) == 0 {
		return m.Gram(), nil, nil, nil // no held-out items: no rows
	}
	rows, self, err := m.RowsSelf(teIn)
	if err != nil {
		return nil, nil, nil, err
	}
	return m.Gram(), rows, self, nil
}

// structuredKernel is buildKernelForm's training kernel, held-out rows and
// self-similarities for the kernels that have a structured form, entry by
// entry those of kernels.Fit: ok is false where form or the kernel allows
// none (then the dense path runs).
//
//   - identity (fitKernels, entryKernels): I as a *mat.DiagDense; no
//     normalisation but center changes it (diag: 1/√(1·1) = 1, trace:
//     n/tr I = 1), and a held-out row is 0 with self-similarity 1.
//   - linear, unnormalised, no missing item (entryKernels):
//     kernels.FeatureGram on the (standardised) training features.
func structuredKernel(k KernelConfig, norm kernels.Normalization, trIn, teIn kernels.Input, t int, form kernelForm) (g mat.Symmetric, rows *mat.Dense, self []float64, ok bool, err error) {
	if form == denseKernels {
		return nil, nil, nil, false, nil
	}
	switch {
	case k.Type == "identity" && norm != kernels.NormCenter:
		n, err := trIn.Len()
		if err != nil {
			return nil, nil, nil, false, err
		}
		ones := make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		if t > 0 {
			rows, self = mat.NewDense(t, n, nil), make([]float64, t)
			for r := range self {
				self[r] = 1
			}
		}
		return mat.NewDiagDense(n, ones), rows, self, true, nil
	case k.Type == "linear" && form == entryKernels && norm == kernels.NormNone && trIn.Missing == nil && trIn.Features != nil && (t == 0 || teIn.Missing == nil):
		fg, err := kernels.NewFeatureGram(trIn.Features)
		if err != nil {
			return nil, nil, nil, false, err
		}
		if t > 0 {
			if rows, self, err = fg.Cross(teIn.Features); err != nil {
				return nil, nil, nil, false, err
			}
		}
		return fg, rows, self, true, nil
	}
	return nil, nil, nil, false, nil
}
