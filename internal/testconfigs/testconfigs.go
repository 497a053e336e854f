// Package testconfigs holds the experiment configs that the tests of the
// harness (experiments) and of the command line (cmd/mkpoe/internal/cli)
// share.
package testconfigs

// Tiny is a fast synthetic experiment: 20 items in a two-level taxonomy, a
// good and a junk view, two splits, two inner folds, two β values, and two
// native, one K1 and two K4 rows (22 tasks).
const Tiny = `
name: tiny
seed: 3
dataset:
  type: synthetic
  synthetic:
    branching: [2, 2]
    per_class: 5
    views:
      - {name: good, dim: 3, noise: 0.5}
      - {name: junk, random: true}
kernels:
  - {name: good, source: good, type: linear}
  - {name: junk, source: junk, type: linear}
groups:
  - {name: both, kernels: [good, junk]}
protocol: {splits: 2, test_fraction: 0.25, inner_folds: 2, max_train_comparisons: 150, max_test_comparisons: 100}
beta_grid: [1, 10]
solver: {tol: 0.01}
rows:
  - {method: native, kernel: good}
  - {method: native, group: both}
  - {method: k1, group: both, mode: diag}
  - {method: k4, group: both, mode: diag}
  - {method: k4, group: both, mode: full}
`
