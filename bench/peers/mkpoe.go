package main

import (
	"context"
	"fmt"
	"log"
	"math"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
)

// defaultWarm is -warm's default (measured at n = 300, docs/notes/speed-log.md).
const defaultWarm = true

// defaultGrid is the CV grid (-grid), in multiples of the training set's
// β_min: on real data cross-validation picks large multiples (the refits
// of the committed paper results chose a median of 55·β_min, many ≥ 1000).
var defaultGrid = []float64{1.25, 1.5, 2, 3, 5, 10, 30, 100, 300, 1000}

// cvFolds is the number of CV folds over the training triplets.
const cvFolds = 3

// fitSpec is how every mkpoe fit of a run is made.
type fitSpec struct {
	Solver mkpoe.Solver // Settings.Solver (a rank bound runs lowrank)
	Rank   int          // Settings.Rank; 0: the convex problem
	Warm   bool         // warm-start each fold's fits along the grid
	// Folds is how many CV folds are fitted at once (1: one after the
	// other), as the harness runs a config's tasks on its workers; each
	// fold's fits still run along the grid in order, and the numbers do
	// not depend on it.
	Folds int
}

// certCount counts the certificates of a set of fits. A convex fit counts
// when Stats.Status is certified (its gap ≤ Tol); a rank-bounded fit has
// no certificate of its own (its gap is the distance to the convex bound),
// so it counts when stationary too (the tables say "stationary").
type certCount struct {
	CVFits, CVOK    int     // CV fits made and certified
	Refits, RefitOK int     // refits made and certified
	Worst           float64 // the largest gap of a convex fit among them
}

// add counts one fit; cv says whether it is a CV fit.
func (c *certCount) add(st mkpoe.Stats, rank int, cv bool) {
	ok := st.Status == mkpoe.StatusCertified || rank > 0 && st.Status == mkpoe.StatusStationary
	if cv {
		c.CVFits++
		if ok {
			c.CVOK++
		}
	} else {
		c.Refits++
		if ok {
			c.RefitOK++
		}
	}
	if rank == 0 {
		c.Worst = math.Max(c.Worst, st.RelativeGap)
	}
}

// merge adds o's counts to c.
func (c *certCount) merge(o certCount) {
	c.CVFits += o.CVFits
	c.CVOK += o.CVOK
	c.Refits += o.Refits
	c.RefitOK += o.RefitOK
	c.Worst = math.Max(c.Worst, o.Worst)
}

// mkpoeResult is one cross-validated GNMDS fit and its held-out score.
type mkpoeResult struct {
	Total    float64      // seconds of the CV and the refit, wall clock
	Refit    float64      // seconds of the refit (Stats.Seconds)
	Multiple float64      // chosen multiple of β_min
	Beta     float64      // β of the refit
	CVScores []float64    // mean CV accuracy per multiple
	Accuracy float64      // on the held-out triplets
	Rank     int          // model.Dim()
	Gap      float64      // relative gap of the refit
	Solver   mkpoe.Solver // the method the refit ran (Model.Solver)
	Certs    certCount    // every CV fit and the refit
}

// identity returns the n×n identity as a kernel, for MinBeta.
func identity(n int) *mat.SymDense {
	k := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		k.SetSym(i, i, 1)
	}
	return k
}

// minBeta is β_min of GNMDS (the identity kernel) on cs.
func minBeta(n int, cs []data.Comparison) (float64, error) {
	b, err := mkpoe.MinBeta([]mat.Symmetric{identity(n)}, cs, nil)
	if err != nil {
		return 0, fmt.Errorf("β_min: %w", err)
	}
	return b, nil
}

// fitGNMDS fits GNMDS (KPOE on K = I) at β = multiple·bmin with spec's
// solver and rank bound, warm-started from init if it is not nil.
func fitGNMDS(ctx context.Context, n int, cs []data.Comparison, bmin, multiple float64, spec fitSpec, init *mkpoe.Model) (*mkpoe.Model, error) {
	return mkpoe.FitIdentityContext(ctx, n, cs, &mkpoe.Settings{Beta: multiple * bmin, Solver: spec.Solver, Rank: spec.Rank, Init: init})
}

// modelAccuracy scores a fitted model on comparisons by its learned
// distances d(a,b) = W_aa + W_bb − 2W_ab (W formed from the low-rank
// model's projection, mkpoe.Model.Metric).
func modelAccuracy(m *mkpoe.Model, cs []data.Comparison) float64 {
	return accuracy(cs, gramDist(m.Metric(0).At))
}

// cvMultiple runs cvFolds-fold CV over train for every multiple of grid
// (in increasing order, each fold's fits warm-started from the previous
// multiple's model when spec.Warm; spec.Folds folds at once) and returns
// the best multiple (the smallest on ties), the mean fold accuracy of each
// and the certificates.
func cvMultiple(ctx context.Context, n int, train []data.Comparison, grid []float64, spec fitSpec, seed uint64) (float64, []float64, certCount, error) {
	folds := foldIndices(len(train), cvFolds, seed)
	type foldResult struct {
		acc   []float64
		certs certCount
		err   error
	}
	results := make([]foldResult, len(folds))
	slots := make(chan struct{}, max(spec.Folds, 1))
	var wg sync.WaitGroup
	for f := range folds {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			acc, certs, err := cvFold(ctx, n, train, folds, f, grid, spec)
			results[f] = foldResult{acc, certs, err}
		}()
	}
	wg.Wait()
	scores := make([]float64, len(grid))
	var certs certCount
	for _, r := range results { // in fold order: the sums do not depend on Folds
		if r.err != nil {
			return 0, nil, certs, r.err
		}
		certs.merge(r.certs)
		for i, a := range r.acc {
			scores[i] += a / float64(len(folds))
		}
	}
	return grid[argmax(scores)], scores, certs, nil
}

// cvFold fits fold f's training part at every multiple of grid in order
// and returns the accuracy on its scoring part at each, and the
// certificates.
func cvFold(ctx context.Context, n int, train []data.Comparison, folds [][]int, f int, grid []float64, spec fitSpec) ([]float64, certCount, error) {
	var certs certCount
	fit, score := foldSplit(train, folds, f)
	bmin, err := minBeta(n, fit)
	if err != nil {
		return nil, certs, err
	}
	acc := make([]float64, len(grid))
	var prev *mkpoe.Model
	for i, mult := range grid {
		var init *mkpoe.Model
		if spec.Warm {
			init = prev
		}
		m, err := fitGNMDS(ctx, n, fit, bmin, mult, spec, init)
		if err != nil {
			return nil, certs, fmt.Errorf("fold %d, %g·β_min: %w", f, mult, err)
		}
		prev = m
		certs.add(m.Stats, spec.Rank, true)
		acc[i] = modelAccuracy(m, score)
		log.Printf("  rank %d, CV fold %d/%d, %g·β_min: %.2f s, %s, rank %d, converged %v, gap %.1e, fold accuracy %.4f",
			spec.Rank, f+1, len(folds), mult, m.Stats.Seconds, m.Solver, m.Dim(), m.Stats.Converged, m.Stats.RelativeGap, acc[i])
	}
	return acc, certs, nil
}

// argmax is the index of the largest of xs, the first on ties.
func argmax(xs []float64) int {
	best := 0
	for i := range xs {
		if xs[i] > xs[best] {
			best = i
		}
	}
	return best
}

// runMkpoe chooses β by CV on train, refits on all of train and scores the
// refit on test.
func runMkpoe(ctx context.Context, n int, train, test []data.Comparison, grid []float64, spec fitSpec, seed uint64) (mkpoeResult, error) {
	start := time.Now()
	mult, scores, certs, err := cvMultiple(ctx, n, train, grid, spec, seed)
	if err != nil {
		return mkpoeResult{}, err
	}
	bmin, err := minBeta(n, train)
	if err != nil {
		return mkpoeResult{}, err
	}
	m, err := fitGNMDS(ctx, n, train, bmin, mult, spec, nil)
	if err != nil {
		return mkpoeResult{}, fmt.Errorf("refit at %g·β_min: %w", mult, err)
	}
	certs.add(m.Stats, spec.Rank, false)
	return mkpoeResult{
		Total:    time.Since(start).Seconds(),
		Refit:    m.Stats.Seconds,
		Multiple: mult,
		Beta:     m.Beta,
		CVScores: scores,
		Accuracy: modelAccuracy(m, test),
		Rank:     m.Dim(),
		Gap:      m.Stats.RelativeGap,
		Solver:   m.Solver,
		Certs:    certs,
	}, nil
}
