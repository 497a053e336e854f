package mkpoe

import "gonum.org/v1/gonum/floats"

// lbfgs is the limited-memory BFGS direction (Nocedal & Wright, Numerical
// Optimization, 2nd ed., Alg. 7.4, the two-loop recursion) with the last
// mem curvature pairs. The low-rank method drives it with its own line
// search (so that each step is cancellable and counted as an iteration)
// and resets it when the variable grows a column or δ changes.
type lbfgs struct {
	mem  int
	s, y [][]float64
	rho  []float64
	a    []float64
}

func newLBFGS(mem int) *lbfgs {
	return &lbfgs{mem: mem, a: make([]float64, mem)}
}

func (l *lbfgs) reset() { l.s, l.y, l.rho = l.s[:0], l.y[:0], l.rho[:0] }

// update adds the pair s = x_{k+1} − x_k, y = ∇f_{k+1} − ∇f_k (copied) if
// it has positive curvature sᵀy (else the pair would break the positive
// definiteness of the inverse Hessian estimate and is skipped).
func (l *lbfgs) update(s, y []float64) {
	sy := floats.Dot(s, y)
	if !(sy > 1e-12*floats.Norm(s, 2)*floats.Norm(y, 2)) {
		return
	}
	if len(l.s) == l.mem {
		// Recycle the oldest pair's storage.
		os, oy := l.s[0], l.y[0]
		copy(l.s, l.s[1:])
		copy(l.y, l.y[1:])
		copy(l.rho, l.rho[1:])
		l.s, l.y, l.rho = l.s[:l.mem-1], l.y[:l.mem-1], l.rho[:l.mem-1]
		if len(os) == len(s) {
			copy(os, s)
			copy(oy, y)
			l.s, l.y, l.rho = append(l.s, os), append(l.y, oy), append(l.rho, 1/sy)
			return
		}
	}
	l.s = append(l.s, append([]float64(nil), s...))
	l.y = append(l.y, append([]float64(nil), y...))
	l.rho = append(l.rho, 1/sy)
}

// direction writes d = −H·g, H the L-BFGS inverse Hessian estimate with the
// initial scaling γ = sᵀy/yᵀy of the newest pair (the identity without
// pairs).
func (l *lbfgs) direction(g, d []float64) {
	copy(d, g)
	n := len(l.s)
	for i := n - 1; i >= 0; i-- {
		l.a[i] = l.rho[i] * floats.Dot(l.s[i], d)
		floats.AddScaled(d, -l.a[i], l.y[i])
	}
	if n > 0 {
		floats.Scale(1/(l.rho[n-1]*floats.Dot(l.y[n-1], l.y[n-1])), d)
	}
	for i := 0; i < n; i++ {
		b := l.rho[i] * floats.Dot(l.y[i], d)
		floats.AddScaled(d, l.a[i]-b, l.s[i])
	}
	floats.Scale(-1, d)
}
