package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
)

// betaMultiples is the CV grid, in multiples of the training set's β_min.
var betaMultiples = []float64{1.25, 1.5, 2, 3, 5}

// cvFolds is the number of CV folds over the training triplets.
const cvFolds = 3

// mkpoeResult is one cross-validated GNMDS fit and its held-out score.
type mkpoeResult struct {
	Total     time.Duration // CV and refit, wall clock
	Refit     float64       // seconds of the refit (Stats.Seconds)
	Multiple  float64       // chosen multiple of β_min
	Beta      float64       // β of the refit
	CVScores  []float64     // mean CV accuracy per multiple
	Accuracy  float64       // on the held-out triplets
	Rank      int           // model.Dim()
	Gap       float64       // certified relative gap of the refit
	Converged bool
}

// identity returns the n×n identity as a kernel, for MinBeta.
func identity(n int) *mat.SymDense {
	k := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		k.SetSym(i, i, 1)
	}
	return k
}

// fitGNMDS fits GNMDS (KPOE on K = I, low-rank solver) at β = multiple·β_min
// of cs; rank > 0 bounds the rank of W (mkpoe.Settings.Rank: a stationary
// point of the rank-bounded problem, whose Stats.RelativeGap is its
// distance to the convex problem's bound).
func fitGNMDS(ctx context.Context, n int, cs []data.Comparison, multiple float64, rank int) (*mkpoe.Model, error) {
	bmin, err := mkpoe.MinBeta([]mat.Symmetric{identity(n)}, cs, nil)
	if err != nil {
		return nil, fmt.Errorf("β_min: %w", err)
	}
	return mkpoe.FitIdentityContext(ctx, n, cs, &mkpoe.Settings{Beta: multiple * bmin, Solver: mkpoe.LowRank, Rank: rank})
}

// modelAccuracy scores a fitted model on comparisons by its learned
// distances d(a,b) = W_aa + W_bb − 2W_ab (W formed from the low-rank
// model's projection, mkpoe.Model.Metric).
func modelAccuracy(m *mkpoe.Model, cs []data.Comparison) float64 {
	return accuracy(cs, gramDist(m.Metric(0).At))
}

// cvMultiple runs cvFolds-fold CV over train for every multiple in
// betaMultiples and returns the best (the smallest on ties) and the mean
// fold accuracy of each.
func cvMultiple(ctx context.Context, n int, train []data.Comparison, seed uint64) (float64, []float64, error) {
	folds := foldIndices(len(train), cvFolds, seed)
	scores := make([]float64, len(betaMultiples))
	for f := range folds {
		fit, score := foldSplit(train, folds, f)
		for i, mult := range betaMultiples {
			m, err := fitGNMDS(ctx, n, fit, mult, 0)
			if err != nil {
				return 0, nil, fmt.Errorf("fold %d, %g·β_min: %w", f, mult, err)
			}
			acc := modelAccuracy(m, score)
			log.Printf("  CV fold %d/%d, %g·β_min: %.2f s, rank %d, gap %.1e, fold accuracy %.4f",
				f+1, len(folds), mult, m.Stats.Seconds, m.Dim(), m.Stats.RelativeGap, acc)
			scores[i] += acc / float64(len(folds))
		}
	}
	best := 0
	for i := range scores {
		if scores[i] > scores[best] {
			best = i
		}
	}
	return betaMultiples[best], scores, nil
}

// runMkpoe chooses β by CV on train, refits on all of train and scores the
// refit on test.
func runMkpoe(ctx context.Context, n int, train, test []data.Comparison, seed uint64) (mkpoeResult, error) {
	start := time.Now()
	mult, scores, err := cvMultiple(ctx, n, train, seed)
	if err != nil {
		return mkpoeResult{}, err
	}
	m, err := fitGNMDS(ctx, n, train, mult, 0)
	if err != nil {
		return mkpoeResult{}, fmt.Errorf("refit at %g·β_min: %w", mult, err)
	}
	return mkpoeResult{
		Total:     time.Since(start),
		Refit:     m.Stats.Seconds,
		Multiple:  mult,
		Beta:      m.Beta,
		CVScores:  scores,
		Accuracy:  modelAccuracy(m, test),
		Rank:      m.Dim(),
		Gap:       m.Stats.RelativeGap,
		Converged: m.Stats.Converged,
	}, nil
}
