package mkpoe

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/mkpoe/internal/testproblems"
)

// TestFitContextCancel cancels fits of every kind mid-way, 200 ms after
// their first iteration, and requires them to return within 1 s of the
// cancellation with an error wrapping context.Canceled (and no model). The
// set-up before the first iteration (each kernel's eigendecomposition, a
// dense β_min) is not interrupted: on a loaded machine the fixture's takes
// over a second.
func TestFitContextCancel(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 3))
	n := 120
	hidden := testproblems.Features(rng, n, 4)
	x := testproblems.Features(rng, n, 30)
	ks := []mat.Symmetric{testproblems.RBF(x), testproblems.Linear(hidden)}
	cs := testproblems.Comparisons(rng, hidden, 3000, 0.1, testproblems.TripletsIf(true), 0)
	fixtureKernels, fixtureComparisons := asetScale()
	// Tol 1e-12 and a huge iteration cap: none of these would finish soon.
	// iterating is closed at a fit's first iteration.
	var iterating chan struct{}
	s := func() *Settings {
		ch, once := iterating, new(sync.Once)
		return &Settings{Beta: 1e3, Tol: 1e-12, MaxIter: 1 << 30, Recorder: func(Iteration) {
			once.Do(func() {
				if ch != nil {
					close(ch)
				}
			})
		}}
	}
	cases := []struct {
		name string
		fit  func(ctx context.Context) (*Model, error)
	}{
		{"kernels full", func(ctx context.Context) (*Model, error) { return FitContext(ctx, ks, cs, s()) }},
		// Diagonal fits hand over to the working-set crossover at
		// iteration 30, which finishes the small problem above in about
		// 0.3 s even at Tol 1e-12: cancel one on the benchmark fixture
		// (1.5–2.5 s at β = 1e4).
		{"kernels diag", func(ctx context.Context) (*Model, error) {
			set := s()
			set.Mode = Diag
			set.Beta = 1e4
			return FitContext(ctx, fixtureKernels, fixtureComparisons, set)
		}},
		{"features", func(ctx context.Context) (*Model, error) { return FitFeaturesContext(ctx, x, cs, s()) }},
		{"identity", func(ctx context.Context) (*Model, error) { return FitIdentityContext(ctx, n, cs, s()) }},
		{"lowrank identity", func(ctx context.Context) (*Model, error) {
			set := s()
			set.Solver = LowRank
			return FitIdentityContext(ctx, n, cs, set)
		}},
		// A fixed rank stops at a stationary point whatever Tol says: the
		// small problem's takes about 0.27 s with OpenBLAS, so cancel one
		// on the fixture (1.7 s with OpenBLAS, 5.2 s in pure Go).
		{"lowrank kernels rank 3", func(ctx context.Context) (*Model, error) {
			set := s()
			set.Rank = 3
			set.Beta = 1e4
			return FitContext(ctx, fixtureKernels, fixtureComparisons, set)
		}},
		{"subgradient", func(ctx context.Context) (*Model, error) {
			set := s()
			set.Solver = Subgradient
			return FitContext(ctx, ks, cs, set)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			iterating = make(chan struct{})
			ctx, cancel := context.WithCancel(context.Background())
			type result struct {
				m   *Model
				err error
			}
			done := make(chan result, 1)
			go func() {
				m, err := c.fit(ctx)
				done <- result{m, err}
			}()
			select {
			case <-iterating:
			case <-time.After(60 * time.Second):
				t.Fatal("no iteration within 60 s")
			}
			time.Sleep(200 * time.Millisecond)
			cancel()
			cancelled := time.Now()
			select {
			case r := <-done:
				if since := time.Since(cancelled); since > time.Second {
					t.Errorf("returned %v after cancellation, want ≤ 1 s", since)
				}
				if !errors.Is(r.err, context.Canceled) {
					t.Fatalf("error %v, want one wrapping context.Canceled", r.err)
				}
				if errors.Is(r.err, ErrInvalidInput) {
					t.Errorf("cancellation reported as invalid input: %v", r.err)
				}
				if r.m != nil {
					t.Errorf("a cancelled fit returned a model")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("fit did not return within 10 s of cancellation")
			}
		})
	}
	// Already cancelled: no work at all.
	iterating = nil
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FitContext(ctx, ks, cs, s()); !errors.Is(err, context.Canceled) {
		t.Errorf("pre-cancelled context: error %v, want context.Canceled", err)
	}
}
