// Package report turns a finished run directory of the mkpoe harness into
// tables (Markdown, LaTeX), figures (PNG, SVG), one self-contained HTML page
// and a Jupyter notebook, without refitting anything.
//
// # Overview
//
// [Load] reads a run directory through an fs.FS (summary.json, items.json,
// env.json, timings.json, config.resolved.yaml and the refit models);
// [Build] returns the report's files in memory, and the caller writes them
// (ExampleBuild); mkpoe report calls [NewReport] and [Report.Files]
// instead, the two steps of Build, to show the report's warnings too.
// The pieces are usable alone: [NewTable] lays a summary out in the
// paper's table form, [ValidationFigure], [ObjectiveFigure],
// [WeightsFigure] and [MapFigure] build gonum/plot figures, each from a
// data-series function ([ValidationSeries], [ObjectiveSeries],
// [WeightSeries], [MapSeries]) that tests check directly, and [TSNE] is an
// exact, seeded t-SNE.
//
// [NewComparison] sets several loaded runs side by side (rows matched by
// label, claims by text, differences with the first run, warnings when
// their configs or builds differ) and [CompareValidationFigure] overlays
// their validation curves; [Comparison.Files] renders compare.md,
// compare.html, compare.csv and the figure.
//
// The notebook ([Report.Notebook]) is executable: its code cells, kept in
// notebook.py, reload the run directory with pandas and redraw every table
// and figure with matplotlib, and its stored outputs are the Go ones, so
// it reads the same unexecuted. Its tables format exactly as the Go ones
// (tests execute it with jupyter nbconvert and compare, internal/nbtest);
// its map plots fig-map.tsv ([Report.MapTSV]), the coordinates of the Go
// t-SNE.
//
// # Conventions
//
// Table and figure numbers cite the LaTeX source of the paper
// (arXiv:1008.5163): Table 2 is the
// taxonomy experiment (Sec. 5.1), Tables 3, 4 and 5 the aset400 single
// kernels, kernel groups and graph processing (Sec. 5.2.3–5.2.4), Fig. 5
// (label fig:diagmkl) the diagonal weights and Fig. 6 (fig:embedding) the
// t-SNE map. Accuracies print with three decimals, as in the paper.
// Training item r of a model of split s is item Splits[s].Train[r] of
// items.json. All figures share one [Theme]. Nothing here writes files:
// functions take an io.Writer or return bytes.
//
// # References
//
//	B. McFee, G. Lanckriet. Learning multi-modal similarity. JMLR 12 (2011) 491–523.
//	L. van der Maaten, G. Hinton. Visualizing data using t-SNE. JMLR 9 (2008) 2579–2605.
package report
