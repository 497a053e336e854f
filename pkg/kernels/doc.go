// Package kernels builds the base kernel matrices of mkpoe: n×n Gram matrices
// over training items, and t×n out-of-sample rows of new items against the
// training items, computed with training statistics only.
//
// # Overview
//
// A [Kernel] (an unfitted kernel function with its hyperparameters, such as
// [RBF] or [TFIDF]) is fitted on training [Input] by [Fit], which returns an
// immutable [*Model] holding the training Gram matrix and every statistic
// needed for new items (IDF weights, bandwidths, self-similarities, trace
// scale, column means for centring, fitted GMMs). [Model.Rows] evaluates new
// items against the training items. [New] builds a kernel from a type name and
// named parameters, for the command line and for configs.
//
// The kernels are those of the paper's experiments (McFee & Lanckriet 2011,
// Sec. 5): linear and Gaussian kernels over image features and "noise" kernels
// of random points on the unit sphere in R³ (Sec. 5.1); the probability product
// kernel between delta-MFCC GMMs, the χ²-RBF kernel over auto-tag
// multinomials, cosine over TF-IDF bag-of-words (social tags, biographies) and
// cosine over binary user sets (collaborative filtering) (Sec. 5.2.1); and the
// identity kernel, with which the algorithm reduces to GNMDS (Sec. 3.3).
//
// # Conventions
//
// Items are numbered 0..n−1 in the order of the training input. Gram matrices
// are n×n and row i is item i. Out-of-sample rows are t×n: row r holds the new
// item r against the n training items in training order (as taken by
// mkpoe's Embed). Indices in sparse inputs (term ids, user ids) are 0-based
// and need not be contiguous.
//
// Missing items (Sec. 5.2.1: "For the 5 artists not found in the graph, we fill
// in the corresponding rows and columns of the kernel matrix with the
// identity matrix"): [Input.Missing] marks items absent from a modality. A
// missing training item gets K_ii = 1 and K_ij = 0 before normalisation, and
// is left out of every training statistic (IDF, median bandwidth). A missing
// new item has a zero raw row (and self-similarity 1); see [Model.Rows].
//
// Functions never modify their inputs. Bad inputs and parameters give errors
// whose messages start with "kernels:" and name the parameter, item (row),
// column and value; nothing panics on user input.
//
// # References
//
// B. McFee and G. Lanckriet. Learning Multi-modal Similarity. JMLR 12 (2011)
// 491–523. arXiv:1008.5163. Sec. 3.3 (GNMDS, K = I), Sec. 5.1 (taxonomy
// kernels), Sec. 5.2.1 (artist features and kernels).
//
// T. Jebara, R. Kondor and A. Howard. Probability Product Kernels. JMLR 5
// (2004) 819–844 (cited by the paper as [ppk]).
//
// B. Schölkopf, A. Smola and K.-R. Müller. Nonlinear component analysis as a
// kernel eigenvalue problem. Neural Computation 10 (1998) 1299–1319 (centring
// of out-of-sample kernel rows).
package kernels
