package mkpoe

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
	"gonum.org/v1/gonum/mat"
)

var updateFingerprint = flag.Bool("fingerprint.update", false, "rewrite testdata/fingerprint.<backend>.txt from this build")

// TestSolverFingerprint is the check that a refactoring of the solver
// changed nothing: 37 fits that take every path of the default solver
// (diagonal cold fits and a warm β path on the benchmark fixture; full,
// K₁ and diagonal fits cold and warm on a 120-item set, which reach
// interiorFull and its warm-started rounds; the subgradient method; LPOE;
// GNMDS) must give the same iterations, the same objectives and bounds to
// 17 digits and the same bits of W as testdata/fingerprint.<backend>.txt.
// A change that is meant to move the numbers rewrites the file:
//
//	MKPOE_FINGERPRINT=1 go test ./pkg/mkpoe -run TestSolverFingerprint -fingerprint.update
//
// It takes 3–7 minutes in the pure-Go build (about 1 minute with
// OpenBLAS), so it runs only when MKPOE_FINGERPRINT is set. The OpenBLAS
// build's numbers depend on the kernels OpenBLAS picks for the CPU, so only
// the pure-Go file is committed; with OpenBLAS, write a file before the
// change and compare after it on the same machine.
func TestSolverFingerprint(t *testing.T) {
	if os.Getenv("MKPOE_FINGERPRINT") == "" {
		t.Skip("set MKPOE_FINGERPRINT=1 to run the solver's fingerprint (3-7 min)")
	}
	var lines []string
	add := func(s string) { lines = append(lines, s) }
	ks, cs := asetScale()
	// Diagonal, cold.
	for _, beta := range []float64{1, 100, 1e4, 1e7} {
		m, err := Fit(ks, cs, &Settings{Beta: beta, Mode: Diag, MaxIter: 100000, Solver: Accelerated})
		add(fingerprintLine(fmt.Sprintf("aset diag cold beta=%g", beta), m, err))
	}
	// Diagonal, warm path.
	var prev *Model
	for _, beta := range []float64{0.1, 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7} {
		m, err := Fit(ks, cs, &Settings{Beta: beta, Mode: Diag, MaxIter: 100000, Solver: Accelerated, Init: prev})
		add(fingerprintLine(fmt.Sprintf("aset diag warm beta=%g", beta), m, err))
		prev = m
	}
	// A smaller full problem: 120 items, 3 kernels, 1500 comparisons.
	rng := rand.New(rand.NewPCG(120, 3))
	n := 120
	hidden := testproblems.Features(rng, n, 4)
	x1 := testproblems.Features(rng, n, 6)
	x1.Scale(0.5, x1)
	mix := mat.DenseCopyOf(x1.Slice(0, n, 0, 4))
	mix.Add(mix, hidden)
	x1.Slice(0, n, 0, 4).(*mat.Dense).Copy(mix)
	small := []mat.Symmetric{testproblems.Linear(x1), testproblems.RBF(testproblems.Features(rng, n, 5)), testproblems.Linear(testproblems.Features(rng, n, 3))}
	scs := testproblems.Comparisons(rng, hidden, 1500, 0.1, testproblems.TripletsIf(true), 0)
	for _, beta := range []float64{1, 10, 100, 1e3, 1e4, 1e7} {
		m, err := Fit(small, scs, &Settings{Beta: beta, Mode: Full, MaxIter: 100000, Solver: Accelerated})
		add(fingerprintLine(fmt.Sprintf("small full cold beta=%g", beta), m, err))
	}
	for _, beta := range []float64{10, 1e4} {
		m, err := Fit(small, scs, &Settings{Beta: beta, Mode: Full, Combine: Sum, MaxIter: 100000, Solver: Accelerated})
		add(fingerprintLine(fmt.Sprintf("small sum full cold beta=%g", beta), m, err))
		m, err = Fit(small, scs, &Settings{Beta: beta, Mode: Diag, Combine: Sum, MaxIter: 100000, Solver: Accelerated})
		add(fingerprintLine(fmt.Sprintf("small sum diag cold beta=%g", beta), m, err))
	}
	prev = nil
	for _, beta := range []float64{1, 10, 100, 1e3, 1e4, 1e5} {
		m, err := Fit(small, scs, &Settings{Beta: beta, Mode: Full, MaxIter: 100000, Solver: Accelerated, Init: prev})
		add(fingerprintLine(fmt.Sprintf("small full warm beta=%g", beta), m, err))
		prev = m
	}
	for _, beta := range []float64{100, 1e4} {
		m, err := Fit(small, scs, &Settings{Beta: beta, Mode: Diag, MaxIter: 100000, Solver: Accelerated})
		add(fingerprintLine(fmt.Sprintf("small diag cold beta=%g", beta), m, err))
	}
	for _, mode := range []Mode{Full, Diag} {
		m, err := Fit(small, scs, &Settings{Beta: 100, Mode: mode, Solver: Subgradient, MaxIter: 300})
		add(fingerprintLine(fmt.Sprintf("small subgradient %v", mode), m, err))
		m, err = FitFeatures(x1, scs, &Settings{Beta: 1e3, Mode: mode, MaxIter: 100000, Solver: Accelerated})
		add(fingerprintLine(fmt.Sprintf("features %v", mode), m, err))
	}
	// GNMDS.
	g := testproblems.Comparisons(rng, hidden, 3000, 0.1, testproblems.TripletsIf(true), 0)
	for _, beta := range []float64{100, 1e3} {
		m, err := FitIdentity(n, g, &Settings{Beta: beta, MaxIter: 100000, Solver: Accelerated})
		add(fingerprintLine(fmt.Sprintf("gnmds beta=%g", beta), m, err))
	}
	got := strings.Join(lines, "")
	path := filepath.Join("testdata", "fingerprint."+linalg.Backend()+".txt")
	if *updateFingerprint {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no fingerprint for this build (%v): write one with -fingerprint.update before a change", err)
	}
	if got != string(want) {
		wl := strings.Split(string(want), "\n")
		for i, l := range strings.Split(got, "\n") {
			if i >= len(wl) || l != wl[i] {
				t.Errorf("fit %d differs:\n got  %s\n want %s", i+1, l, valueAt(wl, i))
			}
		}
	}
}

func valueAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(nothing)"
}

// fingerprintLine is one fit's line: iterations, convergence, objective
// and bound to 17 digits, and a digest of W's bits.
func fingerprintLine(name string, m *Model, err error) string {
	if err != nil {
		return fmt.Sprintf("%s ERR %v\n", name, err)
	}
	h := sha256.New()
	for _, w := range metrics(m) {
		n := w.SymmetricDim()
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				fmt.Fprintf(h, "%x ", math.Float64bits(w.At(i, j)))
			}
		}
	}
	return fmt.Sprintf("%s it=%d conv=%v obj=%.17g bound=%.17g W=%x\n", name, m.Stats.Iterations, m.Stats.Converged, m.Objective, m.Stats.DualBound, h.Sum(nil)[:8])
}
