// Package cv is the evaluation protocol of McFee & Lanckriet (2011, Sec. 5)
// as plain Go over in-memory data: outer holdout splits of the items, an
// inner k-fold over each split's training items, a sweep over the β grid
// with warm starts, one rule to choose β, a refit on all training items and
// its score on the held-out items' comparisons.
//
// The protocol talks to the data through two small interfaces: a Learner
// builds a Trial for a set of training and held-out items (kernels fitted on
// the training items only, comparisons renumbered), and a Trial fits a model
// at a given β and scores it. KernelLearner implements them for kernels and
// comparisons held in memory; the experiment harness (experiments/)
// implements them over its YAML-described data sets and runs the same
// building blocks (OuterSplit, InnerFold, Sweep, MeanCurve, ChooseBeta) as
// resumable tasks. Nested runs the whole protocol in one call.
//
// # Library API the harness does not call
//
// Nested, KernelLearner (its Trial and ComparisonTrial) and Scores are for
// library users with data in memory; the harness reaches none of them,
// because it runs each fold's sweep and each refit as a separate resumable
// task through its own Learner. They are kept as the one-call form of the
// same protocol: TestHarnessRunsPkgCVProtocol (experiments/) checks that
// Nested and a harness run give the same numbers, and ExampleNested,
// ExampleNested_comparisonHoldout and ExampleSweep exercise them.
//
// Items are numbered 0..n−1 globally. Inside a trial the numbering is that
// of data.NewItemSplit: training items first, then held-out items.
package cv
