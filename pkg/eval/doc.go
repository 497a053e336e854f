// Package eval holds the pure metrics of mkpoe: the fraction of relative
// comparisons an embedding or kernel satisfies, and the nearest neighbours
// of an item in a learned embedding or a kernel's native space ([Nearest]).
//
// # Conventions
//
// A comparison (i,j,k,l) is satisfied when d(i,j) < d(k,l) strictly; ties
// count as errors. This is the generalised AUC of McFee & Lanckriet (2011,
// Appendix C, Eq. 18 "GAUC"), with squared distances, which order pairs the
// same way as distances.
//
// # References
//
// B. McFee and G. Lanckriet. Learning Multi-modal Similarity. JMLR 12 (2011)
// 491–523: Appendix C (GAUC), Eq. 13 and Sec. 3.2, 4.3 (distances in a
// learned embedding and its out-of-sample extension), Eq. 9 and Sec. 4.1
// (the sum kernel's native space).
package eval
