// Package constraint cleans a set of relative comparisons through its
// constraint graph: duplicates, direct contradictions, a maximal acyclic
// subset, transitive reduction, graph statistics and a certificate embedding.
//
// # Conventions
//
// A comparison (i,j,k,l) of package data (0-based items) reads d(i,j) < d(k,l).
// The constraint graph (McFee & Lanckriet 2011, Sec. 2.1, Fig. 1) has one
// vertex per unordered item pair {i,j} and one edge {i,j}→{k,l} per
// comparison. Pairs are unordered, so (i,j,k,l), (j,i,k,l), (i,j,l,k) and
// (j,i,l,k) are the same edge; every step treats them as one (see [EdgeKey]).
//
// A vertex has the stable int64 ID of [PairID]: for the pair {a,b} with a ≤ b,
//
//	PairID({a,b}) = b(b+1)/2 + a
//
// which numbers the pairs {0,0}, {0,1}, {1,1}, {0,2}, … densely, does not
// depend on the number of items and is inverted by [PairOf]. Item indices
// must lie in [0, [MaxItem]].
//
// Every step takes comparisons and returns the kept and the removed ones,
// both in input order; inputs are never modified. Steps compose in any order
// ([Run]). Randomness (only [Acyclic]) comes from a caller-supplied
// *rand.Rand of math/rand/v2; there is no global RNG.
//
// [Embed] (with [TotalOrder], its Δ, and [PairOf]) is for library users:
// mkpoe graph and the harness clean comparisons but never embed them, so
// only the package Example and the tests reach it. It is the paper's
// certificate that a cleaned set is satisfiable (Appendix A).
//
// A degenerate pair {m,m} has distance 0 in every embedding. A comparison
// whose far pair is degenerate, (i,j,m,m), asks d(i,j) < 0 and cannot be
// satisfied; [Degenerate] removes those. The aset400 triplets hold three.
//
// # References
//
// B. McFee and G. Lanckriet. Learning Multi-modal Similarity. JMLR 12 (2011)
// 491–523. arXiv:1008.5163. Sec. 1.2 (partial orders, diam(R), transitive
// reduction), Sec. 2.1 (similarity graphs), Sec. 2.2 and Algorithm 1
// (approximate maximum acyclic subgraph), Sec. 5.2.4 and Table 5 (graph
// processing on aset400), Appendix A with Algorithm 5 (naïve total order
// construction) and Eqs. 15–16 (classical MDS and constant shift). Numbers
// are those of the LaTeX source: algorithms and equations are numbered
// through the whole paper, so the appendix algorithm is Algorithm 5.
//
// B. Haeupler, T. Kavitha, R. Mathew, S. Sen and R. E. Tarjan. Incremental
// cycle detection, topological ordering, and strong component maintenance.
// ACM Trans. Algorithms 8(1) (2012) 3. Sec. 3: two-way search ([Acyclic]).
//
// P. Dietz and D. Sleator. Two algorithms for maintaining order in a list.
// STOC 1987; M. A. Bender, R. Cole, E. D. Demaine, M. Farach-Colton and
// J. Zito. Two simplified algorithms for maintaining order in a list. ESA
// 2002 (the labels of the topological order).
//
// D. J. Pearce and P. H. J. Kelly (test oracle). A dynamic topological sort
// algorithm for directed acyclic graphs. ACM J. Exp. Algorithmics 11 (2006)
// 1.7.
//
// M. A. Bender, J. T. Fineman, S. Gilbert and R. E. Tarjan (test oracle; the
// previous implementation of [Acyclic]). A new approach to incremental cycle
// detection and related problems. ACM Trans. Algorithms 12(2) (2016) 14.
//
// A. V. Aho, M. R. Garey and J. D. Ullman. The transitive reduction of a
// directed graph. SIAM J. Comput. 1(2) (1972) 131–137.
//
// R. E. Tarjan. Depth-first search and linear graph algorithms. SIAM J.
// Comput. 1(2) (1972) 146–160.
//
// B. Berger and P. W. Shor (the paper's berger90). Approximation algorithms for the maximum acyclic
// subgraph problem. SODA 1990.
//
// V. Roth (the paper's roth03), J. Laub, M. Kawanabe and J. M. Buhmann. Optimal cluster
// preserving embedding of nonmetric proximity data. IEEE TPAMI 25(12) (2003).
package constraint
