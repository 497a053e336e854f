// Package conic is the primal-dual interior-point method of pkg/mkpoe's
// interior-point stage: it solves the hinge-loss conic program
//
//	(P)  min cᵀx + μ Σ_c ξ_c   s.t.  ξ_c − s_c − b_cᵀx = 1,  x ∈ 𝒦,  ξ, s ≥ 0
//	(D)  max Σ_c α_c           s.t.  S = c + Σ_c α_c b_c ∈ 𝒦,  0 ≤ α ≤ μ
//
// over a product 𝒦 of PSD cones and non-negative orthants. With μ = β/|𝒞|,
// c the trace regulariser and b_c the coefficients of comparison c's margin,
// (P) is the epigraph form of the objective of Alg. 4 (Eq. 13) of McFee &
// Lanckriet, "Learning Multi-modal Similarity", JMLR 2011: ξ_c is the hinge
// of comparison c and s_c its slack. (D) is its dual, whose multipliers give
// pkg/mkpoe its certificate.
//
// The method is Mehrotra's predictor-corrector with the Nesterov–Todd
// scaling on the PSD blocks (Todd, Toh & Tütüncü 1998, "On the
// Nesterov–Todd direction in semidefinite programming"; Vandenberghe 2010,
// "The CVXOPT linear and quadratic cone program solvers"), Gondzio's
// centrality correctors on problems without PSD blocks, started from an
// infeasible point (ipm.go). Its iteration count does not depend on μ,
// which is what makes the cost of a fit independent of β.
//
// Each Newton step solves one linear system, a NewtonSystem in one of two
// forms (Problem.System):
//
//   - NormalEquations, K×K for K = dim x, with B given explicitly
//     (normal.go; pkg/mkpoe's working subspaces keep K small);
//   - a PairOperator, |T|×|T| in comparison space, with B given implicitly
//     by the item coordinates of each block (pairs.go), for full blocks of
//     any rank.
//
// Both factor their matrix by Cholesky (chol.go), the comparison-space one
// in mixed precision where single precision is fast. Step lengths on PSD
// blocks come from the Lanczos method, checked by a Cholesky factorisation
// (steplength.go). Settings holds the method's tuning.
//
// The package never refers to pkg/mkpoe's problem: the caller builds a
// Problem (blocks, cost, B or its pair operator, μ), calls Solve and maps
// the Result back. docs/solver.md describes the method's place in the fit.
package conic
