// Package eval holds the pure metrics of mkpoe: the fraction of relative
// comparisons an embedding or kernel satisfies.
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
// 491–523, Appendix C.
package eval
