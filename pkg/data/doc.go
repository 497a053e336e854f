// Package data holds the data model of mkpoe (items, relative comparisons,
// kernel and feature matrices) and the readers and writers of its file formats.
//
// # Conventions
//
// Items are numbered 0..n-1 in memory. A [Comparison] (i,j,k,l) reads "i and j
// are more similar than k and l" (McFee & Lanckriet 2011, Sec. 2, Eq. 1); a
// triplet (i,j,k) is the comparison (i,j,i,k). Kernel matrices are n×n and row
// i is item i; feature matrices are n×D; kernel rows of new items are t×n,
// against the n training items in training order.
//
// # File formats
//
// Text files hold one record per line; fields are separated by whitespace,
// commas or tabs; '#' starts a comment that runs to the end of the line; blank
// lines are skipped. A comparisons file has 3 or 4 integers per line and may
// start with one header line of names. Matrix files hold rows of numbers, or
// are NumPy .npy files (float64 or float32, C or Fortran order), read through
// github.com/sbinet/npyio.
//
// Some readers serve library users rather than the harness, which reads
// the derived text files: [ReadIndicesFile] reads an item subset such as
// ALOI-10's (ExampleReadIndicesFile), and [ReadMat] the original MAT-files.
//
// Every reader reports bad input as a [*FileError] that names the file, the
// line and column, the rule that was broken and the offending value.
//
// # References
//
// B. McFee and G. Lanckriet. Learning Multi-modal Similarity. JMLR 12 (2011)
// 491–523. arXiv:1008.5163.
package data
