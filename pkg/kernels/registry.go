package kernels

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// spec describes one kernel type of the registry.
type spec struct {
	summary string
	params  []string // accepted parameter names
	build   func(p params) (Kernel, error)
}

var registry = map[string]spec{
	"linear": {"k(x,y) = xᵀy over feature rows (Sec. 5.1)", nil, func(params) (Kernel, error) { return Linear{}, nil }},
	"rbf": {"exp(−‖x−y‖²/(2σ²)); bandwidth σ, absent or 0: median heuristic (Sec. 5.1), times median_scale (default 1)", []string{"bandwidth", "median_scale"}, func(p params) (Kernel, error) {
		return RBF{Bandwidth: p.float("bandwidth"), MedianScale: p.float("median_scale")}, nil
	}},
	"chi2":     {"exp(−σ Σ_t (q_i(t)−q_j(t))²/(q_i(t)+q_j(t))) over histograms; sigma default 256 (Sec. 5.2.1)", []string{"sigma"}, func(p params) (Kernel, error) { return ChiSquare{Sigma: p.float("sigma")}, nil }},
	"tfidf":    {"cosine between TF-IDF vectors of counts (Sec. 5.2.1)", nil, func(params) (Kernel, error) { return TFIDF{}, nil }},
	"cf":       {"cosine between binary user sets, counts > 0 (Sec. 5.2.1)", nil, func(params) (Kernel, error) { return Cosine{}, nil }},
	"ppk":      {"probability product kernel between diagonal GMMs of frames (Sec. 5.2.1)", []string{"components", "rho", "seed", "max_iter", "tol", "var_floor"}, buildPPK},
	"identity": {"K = I, GNMDS; new rows are zero (Sec. 3.3)", nil, func(params) (Kernel, error) { return Identity{}, nil }},
	"noise":    {"linear kernel of random points on the unit sphere in R^dim; dim default 3 (Sec. 5.1)", []string{"dim", "seed"}, buildNoise},
}

func buildPPK(p params) (Kernel, error) {
	c, err := p.int("components")
	if err != nil {
		return nil, err
	}
	it, err := p.int("max_iter")
	if err != nil {
		return nil, err
	}
	s, err := p.seed()
	if err != nil {
		return nil, err
	}
	return PPK{Components: c, Rho: p.float("rho"), Seed: s, MaxIter: it, Tol: p.float("tol"), VarFloor: p.float("var_floor")}, nil
}

func buildNoise(p params) (Kernel, error) {
	d, err := p.int("dim")
	if err != nil {
		return nil, err
	}
	s, err := p.seed()
	if err != nil {
		return nil, err
	}
	return Noise{Dim: d, Seed: s}, nil
}

type params struct {
	typ string
	m   map[string]float64
}

func (p params) float(name string) float64 { return p.m[name] }

// int returns an integer parameter; absent means 0 (the default).
func (p params) int(name string) (int, error) {
	v := p.m[name]
	if v != math.Trunc(v) || math.Abs(v) > 1<<31 {
		return 0, fmt.Errorf("kernels: parameter %q of kernel type %q must be an integer, got %v", name, p.typ, v)
	}
	return int(v), nil
}

func (p params) seed() (uint64, error) {
	v := p.m["seed"]
	if v < 0 || v != math.Trunc(v) || v > 1<<53 {
		return 0, fmt.Errorf("kernels: parameter \"seed\" of kernel type %q must be an integer in [0, 2^53], got %v", p.typ, v)
	}
	return uint64(v), nil
}

// Types returns the kernel type names [New] accepts, sorted.
func Types() []string {
	out := make([]string, 0, len(registry))
	for name := range registry {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Describe returns a one-line summary of a kernel type (case aside) and
// its parameter names, or ok = false for an unknown type.
func Describe(typ string) (summary string, params []string, ok bool) {
	s, ok := registry[strings.ToLower(typ)]
	return s.summary, append([]string(nil), s.params...), ok
}

// New returns the kernel of type typ (one of [Types], case aside: linear,
// rbf, chi2, tfidf, cf, ppk, identity, noise) with the named parameters; an absent
// parameter takes its default (the zero value of the kernel's field). The
// parameters per type are
//
//	rbf:   bandwidth (σ; absent or 0 = median heuristic)       -> [RBF]
//	chi2:  sigma (default 256)                                   -> [ChiSquare]
//	ppk:   components, rho, seed, max_iter, tol, var_floor       -> [PPK]
//	noise: dim, seed                                             -> [Noise]
//
// and linear, tfidf, cf and identity take none. An unknown type, an unknown
// parameter, or a non-integer value for an integer parameter is an error
// naming it, and so is a negative value (every parameter is a size, scale,
// count or seed); finer ranges are checked by [Fit]. params may be nil and is not
// modified.
func New(typ string, params map[string]float64) (Kernel, error) {
	s, ok := registry[strings.ToLower(typ)]
	if !ok {
		return nil, fmt.Errorf("kernels: unknown kernel type %q (valid: %s)", typ, strings.Join(Types(), ", "))
	}
	names := make([]string, 0, len(params))
	for name := range params {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		known := false
		for _, q := range s.params {
			known = known || q == name
		}
		if !known {
			valid := "none"
			if len(s.params) > 0 {
				valid = strings.Join(s.params, ", ")
			}
			return nil, fmt.Errorf("kernels: unknown parameter %q for kernel type %q (valid: %s)", name, typ, valid)
		}
		if v := params[name]; math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("kernels: parameter %q of kernel type %q must be finite, got %v", name, typ, v)
		} else if v < 0 {
			// Every parameter is a size, a scale, a count or a seed.
			return nil, fmt.Errorf("kernels: parameter %q of kernel type %q must be ≥ 0, got %v", name, typ, v)
		}
	}
	return s.build(paramsOf(typ, params))
}

func paramsOf(typ string, m map[string]float64) params { return params{typ: typ, m: m} }
