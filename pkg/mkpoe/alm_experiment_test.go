package mkpoe

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mkpoe/mkpoe/pkg/data"
	"gonum.org/v1/gonum/mat"
)

// TestALMExperiment (opt-in) fits GNMDS on a planted set (5-d, 10%
// flipped, seed 1) at multiples of β_min with the methods named, and logs
// time, iterations, gap, objective and dimension:
//
//	MKPOE_ALM="300,8000,1.5,10;accelerated,lowrank,alm,alm30p1e-3" go test -run TestALMExperiment -v -timeout 30m ./pkg/mkpoe
//
// "alm" runs the augmented-Lagrangian method with its tuning, "almK" with
// almTuning.kappa K, "almKpP" also with almTuning.prune P; the full form
// is alm[n|l][j][u][w][K][fF][gG][pP][cC][sS]: n the Newton-CG inner
// solve, l L-BFGS (neither: the default), j without Newton-CG's Jacobi
// preconditioner, u growing the factor before updating the multipliers
// (almTuning.updateOnGrow off), w a warm start of factors only
// (almTuning.warmFactorsOnly), G almTuning.growRank, F the forcing, C
// the steps between checks, S the stall fraction (e.g.
// "almnf0.5c1s1e-2", "almlc10"). At each
// multiple, the certified fits' objectives must agree within 2·Tol. A
// name ending in "+warm" starts each fit from its previous multiple's
// model (Settings.Init), as a cross-validation along the grid does.
// MKPOE_ALM_LOG=k logs the progress every k iterations (default 500).
func TestALMExperiment(t *testing.T) {
	spec := os.Getenv("MKPOE_ALM")
	if spec == "" {
		t.Skip("MKPOE_ALM not set")
	}
	parts := strings.Split(spec, ";")
	nums := strings.Split(parts[0], ",")
	n, _ := strconv.Atoi(nums[0])
	m, _ := strconv.Atoi(nums[1])
	var mults []float64
	for _, x := range nums[2:] {
		v, _ := strconv.ParseFloat(x, 64)
		mults = append(mults, v)
	}
	pl, err := data.GeneratePlanted(data.PlantedSpec{N: n, Dim: 5, Triplets: m, Flip: 0.1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	// K = I as a diagonal: β_min by Lanczos without an n×n matrix.
	mb, err := MinBeta([]mat.Symmetric{mat.NewDiagDense(n, ones)}, pl.Triplets, &Settings{Beta: 1})
	if err != nil {
		t.Fatal(err)
	}
	logEvery := 500 // MKPOE_ALM_LOG: log every this many iterations
	if v, err := strconv.Atoi(os.Getenv("MKPOE_ALM_LOG")); err == nil && v > 0 {
		logEvery = v
	}
	prev := map[string]*Model{} // a name ending in "+warm": its last model
	for _, mult := range mults {
		certified := map[string]float64{}
		for _, full := range strings.Split(parts[1], ",") {
			name, warm := strings.CutSuffix(full, "+warm")
			s := Settings{Beta: mult * mb, MaxIter: 20000}
			if warm {
				s.Init = prev[full]
			}
			switch {
			case strings.HasPrefix(name, "alm"):
				// alm[K][pP][cC][sS]: kappa K (default 3), prune P (default
				// 1e-2), checkEvery C, stallFraction S.
				spec := strings.TrimPrefix(name, "alm")
				spec, newton := strings.CutPrefix(spec, "n")
				spec, lbfgs := strings.CutPrefix(spec, "l")
				spec, noJacobi := strings.CutPrefix(spec, "j")
				spec, growFirst := strings.CutPrefix(spec, "u")
				spec, factorsOnly := strings.CutPrefix(spec, "w")
				spec, fullCert := strings.CutPrefix(spec, "h")
				spec, stallSpec, hasStall := strings.Cut(spec, "s")
				spec, checkSpec, hasCheck := strings.Cut(spec, "c")
				spec, pruneSpec, hasPrune := strings.Cut(spec, "p")
				spec, forcingSpec, hasForcing := strings.Cut(spec, "f")
				spec, growSpec, hasGrow := strings.Cut(spec, "g")
				s.Solver = ALM
				s.tuning = tuned(func(tu *tuning) {
					if v, err := strconv.ParseFloat(stallSpec, 64); err == nil && hasStall {
						tu.alm.stallFraction = v
					}
					if newton || lbfgs {
						tu.alm.newton = newton
					}
					tu.alm.newtonJacobi = !noJacobi
					tu.alm.updateOnGrow = !growFirst
					tu.alm.warmFactorsOnly = factorsOnly
					tu.alm.hopelessStop = !fullCert
					if v, err := strconv.ParseFloat(growSpec, 64); err == nil && hasGrow {
						tu.alm.growRank = v
					}
					if v, err := strconv.ParseFloat(forcingSpec, 64); err == nil && hasForcing {
						tu.alm.newtonForcing = v
					}
					if v, err := strconv.Atoi(checkSpec); err == nil && hasCheck {
						tu.alm.checkEvery, tu.alm.newtonCheckEvery = v, v
					}
					if k, err := strconv.ParseFloat(spec, 64); err == nil {
						tu.alm.kappa = k
					}
					if pr, err := strconv.ParseFloat(pruneSpec, 64); err == nil && hasPrune {
						tu.alm.prune = pr
					}
				})
			default:
				s.Solver = Solver(name)
			}
			start := time.Now()
			s.Recorder = func(it Iteration) {
				if it.Iter%logEvery == 0 {
					t.Logf("  %s it %d f %.6g best %.6g bound %.6g δ %.3g rank %d stage %s %.1fs", name, it.Iter, it.Objective, it.Best, it.Bound, it.Smoothing, it.Rank, it.Stage, time.Since(start).Seconds())
				}
			}
			mod, err := FitIdentity(n, pl.Triplets, &s)
			if err != nil {
				t.Fatal(err)
			}
			prev[full] = mod
			t.Logf("n=%d m=%d %6.4g·β_min %-12s %6.2fs iters %5d gap %.2e conv %v obj %.6g dim %d",
				n, m, mult, name, time.Since(start).Seconds(), mod.Stats.Iterations, mod.Stats.RelativeGap, mod.Stats.Converged, mod.Objective, mod.Dim())
			if mod.Stats.Converged {
				for other, f := range certified {
					if d := relDiff(mod.Objective, f); d > 2*DefaultTol {
						t.Errorf("%g·β_min: %s certified %.8g, %s %.8g (relative %.2g)", mult, name, mod.Objective, other, f, d)
					}
				}
				certified[name] = mod.Objective
			}
		}
	}
}
