package mkpoe

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/reference"
	"gonum.org/v1/gonum/mat"
)

// wholeWorkingSet restricts nothing: identity bases, every coordinate and
// every comparison.
func wholeWorkingSet(p *problem) *workingSet {
	set := &workingSet{basis: make([]*mat.Dense, len(p.blocks)), coords: make([][]int, len(p.blocks)), inComp: make([]bool, len(p.left))}
	for b := range p.blocks {
		blk := &p.blocks[b]
		if blk.diag {
			for t := 0; t < blk.r; t++ {
				set.coords[b] = append(set.coords[b], t)
			}
		} else {
			set.basis[b] = identity(blk.r)
		}
	}
	for c := range p.left {
		set.comps = append(set.comps, c)
		set.inComp[c] = true
	}
	return set
}

// TestConicMatchesBarrier solves whole small problems with the
// interior-point method of ipm.go and compares its primal and dual values
// with the independent barrier method, at small and large β.
func TestConicMatchesBarrier(t *testing.T) {
	if testing.Short() {
		t.Skip("the barrier reference takes about 2 minutes here")
	}
	for _, pr := range smallProblems() {
		for _, beta := range []float64{pr.beta, 1e4, 1e7} {
			for _, mode := range []Mode{Full, Diag} {
				t.Run(fmt.Sprintf("%s_%v_beta%g", pr.name, mode, beta), func(t *testing.T) {
					ref, err := reference.Barrier(pr.ks, pr.cs, beta, mode == Diag)
					if err != nil {
						t.Fatal(err)
					}
					in := input{kind: InputKernels, n: pr.ks[0].SymmetricDim(), kernels: pr.ks, numInputs: len(pr.ks)}
					blocks, _ := formulation(in, mode, true, 1e-10)
					p := newProblem(in.n, blocks, pr.cs, beta)
					set := wholeWorkingSet(p)
					cp, lay := p.restrict(set)
					res, err := solveConic(context.Background(), cp, 1e-10, 200)
					if errors.Is(err, errIPMStalled) && res.x != nil && relDiff(res.primal, res.dual) < 1e-7 {
						err = nil // round-off ends the last digits; the point is accurate
					}
					if err != nil {
						t.Fatalf("solveConic: %v after %d iterations (primal %g dual %g)", err, res.iterations, res.primal, res.dual)
					}
					x := p.expand(set, lay, res.x)
					f := p.regularizer(x) + p.lossAndWeights(marginsOf(p, x), 0, nil)
					if d := relDiff(f, ref.Objective); d > 1e-6 {
						t.Errorf("objective %.10g, exact %.10g: relative difference %.2g", f, ref.Objective, d)
					}
					if d := relDiff(res.dual, ref.Objective); d > 1e-6 {
						t.Errorf("dual %.10g, exact %.10g: relative difference %.2g", res.dual, ref.Objective, d)
					}
					t.Logf("ipm %d iterations: f %.10g dual %.10g exact %.10g", res.iterations, f, res.dual, ref.Objective)
				})
			}
		}
	}
}
