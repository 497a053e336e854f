// Package results is the one schema of a run directory's result files, the
// harness's output and the report's input:
//
//   - summary.json (Summary): every number of a run's table, row by row;
//   - tasks/<id>.json (TaskResult): one task of the nested cross-validation
//     (a native score, one inner fold's β sweep, or a refit);
//   - items.json (Items): item names, labels and the items of every split.
//
// Each file carries a format tag ("mkpoe-summary/1", …). Reading is strict:
// unknown fields, a foreign format tag and malformed shapes are errors
// naming the file and the field. Files written before the tags existed
// (same fields, no tag) are read as version 1. NaN (an accuracy with no
// comparison to score) is stored as null and read back as NaN.
//
// results/README.md describes every file of a run directory.
package results
