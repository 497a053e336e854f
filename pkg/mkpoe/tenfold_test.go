package mkpoe

import "testing"

// TestLosesTenfold checks losesTenfold on hand-computed points.
func TestLosesTenfold(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name            string
		f, reg, lb, tol float64
		want            bool
	}{
		// loss 0.05 of f = 1000: at 10β, f = 1000.45 and the gap
		// (1000.45 − 999.5)/1000.45 = 9.5e-4 > Tol/2.
		{"hair loss, gap lost", 1000, 999.95, 999.5, 1e-3, true},
		// loss 0.01: f = 1000.09, gap 5.9e-4 > Tol/2 still.
		{"smaller hair, still lost", 1000, 999.99, 999.5, 1e-3, true},
		// loss 0.01 and a tighter bound: gap (1000.09 − 999.9)/1000.09 =
		// 1.9e-4 ≤ Tol/2.
		{"hair loss, gap kept", 1000, 999.99, 999.9, 1e-3, false},
		// No loss: f is the same at 10β; a gap of 2.4e-4 is kept.
		{"no loss", 1000, 1000, 999.76, 1e-3, false},
		// No loss but a gap of 6e-4 > Tol/2: more steps tighten it.
		{"no loss, gap 6e-4", 1000, 1000, 999.4, 1e-3, true},
		// A real loss (more than Tol·f): no certificate survives 10β
		// anyway, the point is accepted as it is.
		{"real loss", 1000, 900, 999.9, 1e-3, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := losesTenfold(c.f, c.reg, c.lb, c.tol); got != c.want {
				t.Errorf("losesTenfold(%g, %g, %g, %g) = %v, want %v", c.f, c.reg, c.lb, c.tol, got, c.want)
			}
		})
	}
}

// TestTenfoldCertificate fits the full-W and K1 high-β cases' problems cold
// at β = 100, 1e3 and 1e4 with Tol = 1e-2 and 3e-2 (coarse, so that the
// interior-point stage stops early enough for the margins' hairs to
// matter) and evaluates each fit's metrics at 10β: where its hinge loss is
// at most Tol times its objective (it separates the comparisons), its own
// bound must still certify it within Tol/2 there (losesTenfold). The same
// fits without the extra steps (hooks.noTenfoldRefine) must break that
// somewhere, or the test shows nothing.
func TestTenfoldCertificate(t *testing.T) {
	t.Parallel()
	broken := map[bool]int{}
	for _, on := range []bool{true, false} {
		refine := tuned(func(t *tuning) { t.hooks.noTenfoldRefine = !on })
		for _, c := range highBetaCases() {
			if c.kind != hbFull && c.kind != hbSum || c.beta != 1e4 {
				continue
			}
			for _, fit := range []struct{ beta, tol float64 }{{1e2, 1e-2}, {1e3, 1e-2}, {1e4, 1e-2}, {1e2, 3e-2}, {1e3, 3e-2}, {1e4, 3e-2}} {
				beta, tol := fit.beta, fit.tol
				c.beta = beta
				m, err := c.fitWith(&Settings{Beta: beta, Tol: tol, Solver: Accelerated, tuning: refine})
				if err != nil {
					t.Fatal(err)
				}
				if !m.Stats.Converged {
					t.Fatalf("%s at β = %g: not converged", c.name, beta)
				}
				up := c
				up.beta = 10 * beta
				f, f10 := c.objectiveOf(metrics(m)), up.objectiveOf(metrics(m))
				loss := (f10 - f) / 9
				gap10 := (f10 - m.Stats.DualBound) / f10
				if loss <= tol*f && gap10 > tol/2 {
					broken[on]++
					if on {
						t.Errorf("%s at β = %g, Tol %g: hinge loss %.3g of the objective, gap %.3g at 10β", c.name, beta, tol, loss/f, gap10)
					}
				}
			}
		}
	}
	if broken[false] == 0 {
		t.Error("no fit without the extra Newton steps lost its certificate at 10β: the test shows nothing")
	}
	t.Logf("fits that lost their certificate at 10β: %d with the extra steps, %d without", broken[true], broken[false])
}
