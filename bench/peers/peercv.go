package main

import (
	"context"
	"fmt"
	"log"
	"math"
	"slices"

	"github.com/mkpoe/mkpoe/pkg/data"
)

// pair is one cblearn fit setting: an estimator and a dimension.
type pair struct {
	Estimator string
	Dim       int
}

// String names the pair as its row does, without "cblearn ".
func (p pair) String() string { return fmt.Sprintf("%s d=%d", p.Estimator, p.Dim) }

// peerPairs are the settings cblearn's CV chooses among, in the order of
// the rows: -estimators, then -dims.
func peerPairs(estimators []string, dims []int) []pair {
	var out []pair
	for _, e := range estimators {
		for _, d := range dims {
			out = append(out, pair{e, d})
		}
	}
	return out
}

// pairCV is one pair's cross-validation: its accuracy on each fold's
// scoring part (fold order) and the seconds of its fits; Err is set when
// a fit failed, and the pair is then out of the choice.
type pairCV struct {
	Acc     []float64
	Seconds float64
	Err     error
}

// mean is the mean CV accuracy, summed in fold order as mkpoe's CV sums
// it; NaN when a fit failed or there are no folds.
func (c pairCV) mean() float64 {
	if c.Err != nil || len(c.Acc) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, a := range c.Acc {
		s += a / float64(len(c.Acc))
	}
	return s
}

// bestPair is the index of the pair with the best mean CV accuracy, the
// first in order (-estimators, then -dims) on ties, as mkpoe's CV takes
// the smallest multiple on ties; -1 when no pair completed its CV.
func bestPair(cv []pairCV) int {
	best := -1
	for i, c := range cv {
		m := c.mean()
		if math.IsNaN(m) {
			continue
		}
		if best < 0 || m > cv[best].mean() {
			best = i
		}
	}
	return best
}

// peerCVFits is the number of fits behind cblearn's CV choice: every
// pair on every fold, and the refit.
func peerCVFits(pairs int) int { return pairs*cvFolds + 1 }

// peerCVRow is the empty row of cblearn's CV choice.
func peerCVRow(sz size, pairs int) row {
	return row{Size: sz, Method: fmt.Sprintf("cblearn, CV's choice of estimator and d (all %d fits' time)", peerCVFits(pairs)),
		Gap: "—", PeerCV: true}
}

// foldFiles writes the CV folds of train, made as mkpoe's CV makes them
// (foldIndices with cvFolds and seed, foldSplit), into the peer's dir:
// fits[f] holds the triplets outside fold f, scores[f] those inside it.
func (p *peer) foldFiles(tag string, train []data.Comparison, seed uint64) (fits, scores []string, err error) {
	folds := foldIndices(len(train), cvFolds, seed)
	for f := range folds {
		fit, score := foldSplit(train, folds, f)
		a, err := p.writeTriplets(fmt.Sprintf("%s-fold%d-fit.txt", tag, f+1), fit)
		if err != nil {
			return nil, nil, err
		}
		b, err := p.writeTriplets(fmt.Sprintf("%s-fold%d-score.txt", tag, f+1), score)
		if err != nil {
			return nil, nil, err
		}
		fits, scores = append(fits, a), append(scores, b)
	}
	return fits, scores, nil
}

// peerCVRep runs every pair's CV on the fold files (one call per pair,
// its folds in order) and returns the pairs' CVs. A failed call is noted
// in its pairCV, not fatal.
func peerCVRep(ctx context.Context, cfg config, label string, n int, p *peer, pairs []pair, fits, scores []string) ([]pairCV, error) {
	out := make([]pairCV, len(pairs))
	for i, pr := range pairs {
		log.Printf("%s: cblearn %s, %d-fold CV ...", label, pr, len(fits))
		fctx, cancel := context.WithTimeout(ctx, cfg.timeout)
		rs, err := p.fitAll(fctx, pr.Estimator, pr.Dim, n, cfg.seed, fits, scores)
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			log.Printf("%s: cblearn %s CV failed: %v", label, pr, err)
			out[i].Err = err
			continue
		}
		for _, r := range rs {
			out[i].Acc = append(out[i].Acc, r.Accuracy)
			out[i].Seconds += r.Seconds
		}
		log.Printf("%s: cblearn %s CV %.1f s, fold accuracy %v, mean %.4f", label, pr, out[i].Seconds, roundAll(out[i].Acc), out[i].mean())
	}
	return out, nil
}

// addPeerCV adds one repetition of cblearn's CV choice to r: the pair
// with the best mean CV accuracy (bestPair), refit on all the training
// triplets, which is that pair's own row's fit of this repetition
// (refits[i], ok[i] false when it failed): the same call, on the same
// file with the same seed. Its time is every CV fit's and the refit's.
func addPeerCV(r *row, pairs []pair, cv []pairCV, refits []peerResult, ok []bool) {
	best := bestPair(cv)
	if best < 0 {
		r.Note = "failed: no setting completed its CV"
		return
	}
	if !ok[best] {
		r.Note = fmt.Sprintf("failed: the refit of %s failed", pairs[best])
		return
	}
	total := refits[best].Seconds
	for _, c := range cv {
		total += c.Seconds
	}
	r.Seconds = append(r.Seconds, total)
	r.Refit = append(r.Refit, refits[best].Seconds)
	r.Accuracy = append(r.Accuracy, refits[best].Accuracy)
	if pr := pairs[best]; !slices.Contains(r.Chosen, pr.String()) {
		r.Chosen = append(r.Chosen, pr.String())
		cell := fmt.Sprintf("%d (%s)", pr.Dim, pr.Estimator)
		if r.Rank != "" {
			cell = r.Rank + "; " + cell
		}
		r.Rank = cell
	}
}

// peerCVSetup describes cblearn's CV for the header.
func peerCVSetup(pairs int) string {
	return fmt.Sprintf("cblearn's CV choice: %d-fold CV over its %d (estimator, d) on mkpoe's folds, the best mean CV accuracy refit (%d fits)",
		cvFolds, pairs, peerCVFits(pairs))
}
