// Package mkpoe learns multi-modal similarity from relative comparisons: the
// partial order embedding algorithms of McFee & Lanckriet (2011) — LPOE on
// features (Alg. 2), KPOE on one kernel (Alg. 3), GNMDS with K = I
// (Sec. 3.3), and MKPOE on several kernels (Alg. 4), with full or diagonal
// metrics (Sec. 4.4) and the unweighted sum-kernel baseline K₁ (Sec. 4.1).
//
// # Conventions
//
// Kernels are n×n symmetric PSD matrices; row i is item i. A comparison
// (i,j,k,l) asks for d(i,j) + 1 ≤ d(k,l) (Eq. 1 with unit margin). The
// objective minimised by [Fit] is
//
//	f(W) = Σ_p tr(W⁽ᵖ⁾K⁽ᵖ⁾) + β/|𝒞| Σ_{(i,j,k,l)∈𝒞} h(1 + d(i,j) − d(k,l)),
//	d(i,j) = Σ_p (K⁽ᵖ⁾_i − K⁽ᵖ⁾_j)ᵀ W⁽ᵖ⁾ (K⁽ᵖ⁾_i − K⁽ᵖ⁾_j),   W⁽ᵖ⁾ ⪰ 0,
//
// with h(x) = max(0, x) (Appendix B). Learned embeddings are
// g(x) = (Λ_p^{1/2} V_pᵀ K⁽ᵖ⁾_x)_p from W⁽ᵖ⁾ = V_p Λ_p V_pᵀ (Sec. 3.2, 4.3).
//
// # Solvers
//
// Settings.Solver names the method; one route table chooses what runs
// ([SolverNames] lists it; docs/solver.md, "Which method runs when"):
//
//   - [Auto], the default ([DefaultSolver]), runs ALM, LowRank or
//     Accelerated per fit, by the input, the number of items and β/β_min;
//     Model.Solver records the choice.
//   - [Accelerated], Auto's fallback, works in each kernel's eigenbasis
//     (Z = Φᵀ W Φ with K = ΦΦᵀ), where every matrix is r×r for the
//     kernel's numerical rank r, and runs an accelerated projected
//     gradient method on a smoothed hinge until a duality-gap certificate
//     proves the requested accuracy; when that certificate closes slowly
//     (large β) it hands over to a primal-dual interior-point method whose
//     iteration count does not depend on β (on a working set of
//     coordinates for diagonal W, in comparison space for full W).
//   - [LowRank] factors every full W = LLᵀ and grows L until the same
//     certificate holds: its cost follows the rank of the solution. With
//     Settings.Rank it solves the factored problem at a fixed rank and
//     reports its distance to the convex optimum: Stats.Status is
//     StatusStationary there unless the convex certificate holds too
//     (StatusCertified).
//   - [ALM] is the augmented-Lagrangian method on the same factors: its
//     multipliers converge at a fixed penalty, so it certifies large
//     multiples of β_min where LowRank's shrinking smoothing stalls.
//   - [Subgradient] is the paper's projected subgradient method (Appendix
//     B) in W-space, certified afterwards.
//
// Whichever method is named, a fit at β ≤ β_min ([MinBeta]) is answered
// at once: W = 0 with the certificate that proves it optimal.
//
// [FitContext] and its variants stop when a context is cancelled. The
// command line calls only the Context forms; [Fit], [FitFeatures] and
// [FitIdentity] are the same fits for library users who need no
// cancellation (ExampleFit, ExampleFitFeatures, ExampleFitIdentity).
// Settings.Cache keeps kernels' eigenbases across the fits of a β sweep and
// Settings.MemoryLimit refuses a fit too large for the caller's memory;
// the package keeps no state of its own. docs/solver.md explains the
// methods and docs/deviations.md lists the departures from the paper.
//
// # References
//
// B. McFee and G. Lanckriet. Learning Multi-modal Similarity. JMLR 12 (2011)
// 491–523. arXiv:1008.5163.
//
// A. Beck and M. Teboulle. A fast iterative shrinkage-thresholding algorithm
// for linear inverse problems. SIAM J. Imaging Sci. 2 (2009) 183–202.
//
// M. J. Todd, K. C. Toh and R. H. Tütüncü. On the Nesterov–Todd direction
// in semidefinite programming. SIAM J. Optim. 8 (1998) 769–796.
//
// S. Mehrotra. On the implementation of a primal-dual interior point
// method. SIAM J. Optim. 2 (1992) 575–601.
//
// B. O'Donoghue and E. Candès. Adaptive restart for accelerated gradient
// schemes. Found. Comput. Math. 15 (2015) 715–732.
//
// Y. Nesterov. Smooth minimization of non-smooth functions. Math. Program.
// 103 (2005) 127–152.
package mkpoe
