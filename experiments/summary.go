package experiments

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/cv"
	"github.com/mkpoe/mkpoe/pkg/eval"
	"github.com/mkpoe/mkpoe/pkg/results"
	"github.com/mkpoe/mkpoe/pkg/stats"
)

// convergenceUnknown reports whether a learned row lacks convergence records.
func convergenceUnknown(r *results.Row) bool {
	return r.Learned() && !r.ConvergenceKnown()
}

// rowConvergence accumulates the convergence of a row's fits over its tasks.
type rowConvergence struct {
	tol                           float64 // solver.tol, for task files without fit_status
	fits, unconverged, stationary int
	maxGap                        float64 // NaN until a gap is seen
	maxIter                       int
	unknown                       bool
}

func (rc *rowConvergence) add(r *results.TaskResult) {
	fits, bad, maxGap, known := r.Convergence()
	if !known {
		rc.unknown = true
		return
	}
	rc.fits += fits
	rc.unconverged += len(bad)
	rc.stationary += r.StationaryFits(rc.tol)
	for _, it := range r.Iterations {
		rc.maxIter = max(rc.maxIter, it)
	}
	if !math.IsNaN(maxGap) && !(maxGap <= rc.maxGap) {
		rc.maxGap = maxGap
	}
}

// set writes the accumulated convergence into a learned row (nothing if any
// task lacked records: unknown).
func (rc *rowConvergence) set(rs *results.Row) {
	if rc.unknown {
		return
	}
	fits, bad, iters := rc.fits, rc.unconverged, rc.maxIter
	rs.Fits, rs.UnconvergedFits = &fits, &bad
	if fits > 0 {
		rs.MaxIterations = &iters
	}
	if st := rc.stationary; st > 0 {
		rs.StationaryFits = &st
	}
	if maxGap := rc.maxGap; rc.fits > 0 && !math.IsNaN(maxGap) && !math.IsInf(maxGap, 0) {
		rs.MaxGap = &maxGap
	}
}

// Merge builds the summary from the task results in c.Output and writes
// summary.json, table.md, table.csv, fits.csv, timings.json and
// provenance.json (writeProvenance). It is idempotent and reports
// which tasks are missing or failed if the run is incomplete.
func Merge(c *Config) (*results.Summary, error) {
	st, err := openStore(c)
	if err != nil {
		return nil, err
	}
	plan := Plan(c)
	byID, timings, err := finishedTasks(st, plan)
	if err != nil {
		return nil, err
	}
	s := &results.Summary{Name: c.Name, ConfigHash: c.Hash(), Splits: c.Protocol.Splits, InnerFolds: c.Protocol.InnerFolds, BetaGrid: c.BetaGrid.Values, BetaRelative: c.BetaGrid.Relative, SolverTol: c.Solver.Tol}
	for _, row := range c.Rows {
		rs := results.Row{Label: row.Label, Method: row.Method, Mode: row.Mode, TableRow: row.tableRow(), Paper: row.Paper}
		conv := rowConvergence{tol: c.Solver.Tol, maxGap: math.NaN()}
		for _, p := range c.rowKernels(row) {
			rs.Kernels = append(rs.Kernels, c.Kernels[p].Name)
		}
		tallies, anyMissing := true, false
		for sp := 0; sp < c.Protocol.Splits; sp++ {
			var res results.TaskResult
			if row.Method == "native" {
				res = byID[c.rowTaskID(KindNative, row, sp, -1)]
			} else {
				res = byID[c.rowTaskID(KindRefit, row, sp, -1)]
				addLearnedSplit(c, row, &rs, sp, res, byID, &conv)
			}
			rs.Accuracy = append(rs.Accuracy, res.TestAccuracy)
			if res.TestComparisons > 0 && res.TestOutcomes == "" {
				tallies = false // a task file from before test_outcomes
			}
			rs.TestTallies = append(rs.TestTallies, tally(eval.Count([]eval.Outcome(res.TestOutcomes))))
			rs.TestMissing = append(rs.TestMissing, res.TestMissing)
			anyMissing = anyMissing || res.TestMissing > 0
			rs.TrainComparisons = append(rs.TrainComparisons, res.TrainComparisons)
			rs.TestComparisons = append(rs.TestComparisons, res.TestComparisons)
		}
		rs.Mean, rs.Std = stats.MeanStd(rs.Accuracy)
		if !anyMissing {
			rs.TestMissing = nil
		}
		if !tallies {
			rs.TestTallies = nil
		}
		if row.Method != "native" {
			conv.set(&rs)
		}
		s.Rows = append(s.Rows, rs)
	}
	for i, cl := range c.Claims {
		s.Claims = append(s.Claims, checkClaim(c, cl, byID, c.Seed*1_000_033+uint64(i)))
	}
	holmClaims(s.Claims)
	if err := writeSummaryFiles(c, s, plan, byID, timings); err != nil {
		return nil, err
	}
	return s, nil
}

// addLearnedSplit adds to rs, the summary row of learned row, split sp's
// refit res and the validation curve of its cv tasks (for a row of
// several ranks, the chosen rank's: every rank's fits count in conv).
func addLearnedSplit(c *Config, row RowConfig, rs *results.Row, sp int, res results.TaskResult, byID map[string]results.TaskResult, conv *rowConvergence) {
	rs.Beta = append(rs.Beta, res.Beta)
	if c.BetaGrid.Relative {
		rs.BetaMultiple = append(rs.BetaMultiple, res.BetaMultiple)
		rs.MinBeta = append(rs.MinBeta, res.MinBeta)
	}
	chosen := row
	if row.Rank.many() && res.ChosenRank != nil { // a refit of such a row records it
		rs.Ranks, rs.Rank = []int(row.Rank), append(rs.Rank, *res.ChosenRank)
		chosen = row.withRank(*res.ChosenRank)
		for _, k := range row.Rank {
			if k == *res.ChosenRank {
				continue // below, with the curve
			}
			for f := 0; f < c.Protocol.InnerFolds; f++ {
				cvr := byID[c.rowTaskID(KindCV, row.withRank(k), sp, f)]
				conv.add(&cvr)
			}
		}
	}
	rs.Models = append(rs.Models, res.Model)
	var curves [][]float64
	zeros := make([]int, len(c.BetaGrid.Values))
	for f := 0; f < c.Protocol.InnerFolds; f++ {
		cvr := byID[c.rowTaskID(KindCV, chosen, sp, f)]
		curves = append(curves, cvr.ValAccuracy)
		conv.add(&cvr)
		if len(cvr.ZeroModel) != len(zeros) {
			zeros = nil // not recorded (an older task file)
		}
		for b := range zeros {
			if cvr.ZeroModel[b] {
				zeros[b]++
			}
		}
	}
	conv.add(&res)
	rs.ValCurve = append(rs.ValCurve, cv.MeanCurve(curves))
	lo, hi := cv.FoldRange(curves)
	rs.ValFoldMin, rs.ValFoldMax = append(rs.ValFoldMin, lo), append(rs.ValFoldMax, hi)
	if zeros != nil && (sp == 0 || rs.ValZeroFolds != nil) {
		rs.ValZeroFolds = append(rs.ValZeroFolds, zeros)
	} else {
		rs.ValZeroFolds = nil
	}
	if res.KernelShare != nil {
		if rs.KernelShare == nil {
			rs.KernelShare = make([]float64, len(res.KernelShare))
		}
		for i, v := range res.KernelShare {
			rs.KernelShare[i] += v / float64(c.Protocol.Splits)
		}
	}
}

// finishedTasks loads the result of every task of the plan from st, with
// its times, or reports which are missing or failed.
func finishedTasks(st *store, plan []results.Task) (map[string]results.TaskResult, map[string]results.TaskTime, error) {
	byID := map[string]results.TaskResult{}
	var missing []string
	timings := map[string]results.TaskTime{}
	for _, t := range plan {
		r, ok := st.load(t.ID)
		if !ok || r.Status != "ok" {
			missing = append(missing, t.ID)
			continue
		}
		byID[t.ID] = r
		timings[t.ID] = results.TimeOf(&r)
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("%d of %d tasks are missing or failed: %s", len(missing), len(plan), strings.Join(missing, ", "))
	}
	return byID, timings, nil
}

// writeSummaryFiles writes the merged run's files into c.Output:
// summary.json, timings.json, table.md, the CSVs and provenance.json.
func writeSummaryFiles(c *Config, s *results.Summary, plan []results.Task, byID map[string]results.TaskResult, timings map[string]results.TaskTime) error {
	if err := writeJSON(filepath.Join(c.Output, "summary.json"), s); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(c.Output, results.TimingsFile), timings); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.Output, "table.md"), []byte(SummaryMarkdown(s)), 0o644); err != nil {
		return err
	}
	tasks := make([]results.TaskResult, 0, len(plan))
	for _, t := range plan {
		tasks = append(tasks, byID[t.ID])
	}
	if err := writeCSVs(c.Output, s, tasks); err != nil {
		return err
	}
	return writeProvenance(c, s, plan, tasks, timings)
}

// writeCSVs writes table.csv and fits.csv (results.WriteTableCSV and
// results.WriteFitsCSV) into the run directory dir.
func writeCSVs(dir string, s *results.Summary, tasks []results.TaskResult) error {
	var table, fits bytes.Buffer
	if err := results.WriteTableCSV(&table, s); err != nil {
		return err
	}
	if err := results.WriteFitsCSV(&fits, s, tasks); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, results.TableCSV), table.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, results.FitsCSV), fits.Bytes(), 0o644)
}

// betaText is split i's chosen β for the table: as recorded for an
// absolute grid, to four digits with its multiple of β_min for a relative
// one ("2075 (2×β_min)").
func betaText(r results.Row, i int, beta float64) string {
	if i < len(r.BetaMultiple) && r.BetaMultiple[i] > 0 {
		return fmt.Sprintf("%.4g (%g×β_min)", beta, r.BetaMultiple[i])
	}
	return fmt.Sprintf("%g", beta)
}

// SummaryMarkdown renders the summary as a Markdown table: one row per config row,
// test accuracy as mean ± standard deviation over outer splits, the chosen
// β per split, and the paper's value where the config gives one.
func SummaryMarkdown(s *results.Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", s.Name)
	fmt.Fprintf(&b, "Test accuracy (fraction of held-out comparisons satisfied, ties counted as errors as in the paper), mean ± sd over %d split(s); β chosen by %d-fold inner CV. "+
		"Ties ½: the same with ties counted as one half; tie rate: the fraction of test comparisons whose two distances are equal.\n\n", s.Splits, s.InnerFolds)
	b.WriteString("| Row | Kernels | Accuracy | Ties ½ | Tie rate | β chosen | Paper |\n|---|---|---|---|---|---|---|\n")
	for _, r := range s.Rows {
		acc := fmt.Sprintf("%.4f", r.Mean)
		if s.Splits > 1 {
			acc += fmt.Sprintf(" ± %.4f", r.Std)
		}
		half, tieRate := "—", "—"
		if r.TestTallies != nil {
			_, m, sd := r.HalfTies()
			half = fmt.Sprintf("%.4f", m)
			if s.Splits > 1 {
				half += fmt.Sprintf(" ± %.4f", sd)
			}
			tieRate = fmt.Sprintf("%.3f", r.TieRate())
		}
		beta := "—"
		if len(r.Beta) > 0 {
			var parts []string
			for i, v := range r.Beta {
				parts = append(parts, r.WithRank(i, betaText(r, i, v)))
			}
			beta = strings.Join(parts, ", ")
		}
		paper := ""
		if r.Paper != nil {
			paper = fmt.Sprintf("%.4f", *r.Paper)
		}
		if r.NotConverged() {
			acc += " †"
		}
		if r.Stationary() > 0 {
			acc += " ‡"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.Label, strings.Join(r.Kernels, " + "), acc, half, tieRate, beta, paper)
	}
	b.WriteString(convergenceNote(s))
	b.WriteString(ClaimsMarkdown(s))
	if ws := s.Warnings(); len(ws) > 0 {
		b.WriteString("\nWarnings:\n\n")
		for _, w := range ws {
			fmt.Fprintf(&b, "- %s\n", w)
		}
	}
	first := true
	for _, r := range s.Rows {
		if r.KernelShare == nil {
			continue
		}
		if first {
			b.WriteString("\nKernel shares of Σ_p tr(W⁽ᵖ⁾K⁽ᵖ⁾) in the MKPOE refits (mean over splits):\n\n| Row | Shares |\n|---|---|\n")
			first = false
		}
		var parts []string
		for i, v := range r.KernelShare {
			parts = append(parts, fmt.Sprintf("%s %.3f", r.Kernels[i], v))
		}
		fmt.Fprintf(&b, "| %s | %s |\n", r.Label, strings.Join(parts, ", "))
	}
	return b.String()
}

// convergenceNote is the footnote of the table: every row with fits that
// did not converge (marked †), every row with fixed-rank fits that stopped
// at a stationary point without a certificate (marked ‡) and, if any, the
// learned rows whose convergence was not recorded. Empty when every fit
// was certified.
func convergenceNote(s *results.Summary) string {
	var b strings.Builder
	var unknown []string
	for _, r := range s.Rows {
		if convergenceUnknown(&r) {
			unknown = append(unknown, r.Label)
		}
		if !r.NotConverged() {
			continue
		}
		if b.Len() == 0 {
			tol := ""
			if s.SolverTol > 0 {
				tol = fmt.Sprintf(" (solver.tol %g)", s.SolverTol)
			}
			fmt.Fprintf(&b, "\n† not converged: certified gap above tolerance%s; raise solver.max_iter or read these rows with care:\n\n", tol)
		}
		maxGap := "unknown"
		if r.MaxGap != nil {
			maxGap = results.FormatGap(*r.MaxGap)
		}
		fmt.Fprintf(&b, "- %s: %d of %d fits not converged (max gap %s)\n", r.Label, *r.UnconvergedFits, derefInt(r.Fits), maxGap)
	}
	b.WriteString(stationaryNote(s))
	if len(unknown) > 0 {
		fmt.Fprintf(&b, "\nConvergence not recorded (task files written by an older mkpoe) for: %s\n", strings.Join(unknown, ", "))
	}
	return b.String()
}

// stationaryNote is the table's footnote on the rows marked ‡: fits that
// stopped at a stationary point of a fixed-rank problem, converged but not
// certified to solver.tol, with the largest gap to the convex optimum's
// bound. Empty when there are none.
func stationaryNote(s *results.Summary) string {
	var b strings.Builder
	for _, r := range s.Rows {
		if r.Stationary() == 0 {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\n‡ stationary: fits that stopped at a stationary point (of a rank bound's non-convex problem; or the subgradient method's stall), not certified; their gap is the distance to the convex problem's optimum:\n\n")
		}
		maxGap := "unknown"
		if r.MaxGap != nil {
			maxGap = results.FormatGap(*r.MaxGap)
		}
		fmt.Fprintf(&b, "- %s: %d of %d fits stationary, %d certified (max gap %s)\n", r.Label, r.Stationary(), derefInt(r.Fits),
			derefInt(r.Fits)-derefInt(r.UnconvergedFits)-r.Stationary(), maxGap)
	}
	return b.String()
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// claimReps and claimLevel are the bootstrap of every claim.
const (
	claimReps  = 2000
	claimLevel = 0.95
)

// checkClaim computes a claim's paired difference from the test outcomes
// of its two rows' native or refit tasks, split by split: a comparison
// scores 1 when the row's space gets it right (ties are errors, as the
// accuracy) and 0 otherwise. Every row of a config is scored on the same
// test comparisons (they depend on the data, protocol, seed and test
// constraint steps, not on the row), which makes the pairing valid; a
// count mismatch is reported rather than paired.
func checkClaim(c *Config, cl ClaimConfig, byID map[string]results.TaskResult, seed uint64) results.Claim {
	out := results.Claim{Claim: cl.Claim, Better: cl.Better, Worse: cl.Worse, Paper: cl.Paper}
	rowOf := func(label string) RowConfig {
		for _, r := range c.Rows {
			if r.Label == label {
				return r
			}
		}
		panic("experiments: claim names no row (Validate checks it): " + label)
	}
	// scores are a row's test outcomes per split (1 right), and the
	// comparisons' anchors (nil when a task file lacks them).
	scores := func(r RowConfig) (x [][]float64, anchors [][]int, note string) {
		kind := KindRefit
		if r.Method == "native" {
			kind = KindNative
		}
		anchorsKnown := true
		for sp := 0; sp < c.Protocol.Splits; sp++ {
			res := byID[c.rowTaskID(kind, r, sp, -1)]
			if res.TestComparisons > 0 && res.TestOutcomes == "" {
				return nil, nil, fmt.Sprintf("row %q: its task files predate test_outcomes (rerun them to check the claim)", r.Label)
			}
			anchorsKnown = anchorsKnown && len(res.TestAnchors) == len(res.TestOutcomes)
			anchors = append(anchors, res.TestAnchors)
			xs := make([]float64, len(res.TestOutcomes))
			for n, o := range []byte(res.TestOutcomes) {
				if eval.Outcome(o) == eval.Right {
					xs[n] = 1
				}
			}
			x = append(x, xs)
		}
		if !anchorsKnown {
			anchors = nil
		}
		return x, anchors, ""
	}
	// Every row is scored on the same test comparisons: the better row's
	// anchors are the worse row's too.
	x, anchors, note := scores(rowOf(cl.Better))
	if note != "" {
		out.Note = note
		return out
	}
	y, _, note := scores(rowOf(cl.Worse))
	if note != "" {
		out.Note = note
		return out
	}
	iv, err := stats.PairedBootstrap(x, y, claimReps, claimLevel, seed)
	if err != nil {
		out.Note = fmt.Sprintf("not paired: %v", err)
		return out
	}
	out.Interval, out.Reproduced = &iv, iv.Lo > 0
	if anchors == nil {
		out.ClusteredNote = "task files without test_anchors (rerun them for the clustered interval)"
		return out
	}
	civ, err := stats.AnchorBootstrap(x, y, anchors, claimReps, claimLevel, seed)
	if err != nil {
		out.ClusteredNote = fmt.Sprintf("not paired: %v", err)
		return out
	}
	out.Clustered = &civ
	return out
}

// holmClaims adjusts the clustered p-values of a config's claims together
// (stats.Holm) and sets each claim's verdict under them.
func holmClaims(cs []results.Claim) {
	p := make([]float64, len(cs))
	for i, cl := range cs {
		p[i] = math.NaN()
		if cl.Clustered != nil {
			p[i] = cl.Clustered.P
		}
	}
	m := 0
	for _, v := range p {
		if !math.IsNaN(v) {
			m++
		}
	}
	for i, h := range stats.Holm(p) {
		if math.IsNaN(h) {
			continue
		}
		cs[i].HolmP, cs[i].HolmM = &h, m
		cs[i].Holds = cs[i].Clustered.Lo > 0 && h < 1-claimLevel
	}
}

// ClaimsMarkdown renders the summary's claims as a Markdown table (empty
// when there are none): each claim, the difference of the two rows' test
// accuracies, the verdict with its anchor-clustered interval and Holm
// p-value, and the i.i.d. interval (results.ClaimHeader).
func ClaimsMarkdown(s *results.Summary) string {
	if len(s.Claims) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nClaims: better − worse test accuracy (ties as errors, mean over splits). The verdict (Holds) rests on a 95% interval that resamples anchor items (the clusters of correlated test comparisons): with one split, studentised; with splits whose test sets share anchors, each anchor once over all splits (its outcomes in every split move together) and the splits; with disjoint test folds, the splits and the anchors within them. And on its p-value Holm-adjusted over the config's claims: a claim holds when that interval lies above 0 and the adjusted p is below 0.05. For continuity, the 95% paired bootstrap interval over the test comparisons (i.i.d.) and whether it lies above 0.\n\n")
	b.WriteString("| " + strings.Join(results.ClaimHeader, " | ") + " |\n|" + strings.Repeat("---|", len(results.ClaimHeader)) + "\n")
	for _, cl := range s.Claims {
		b.WriteString("| " + strings.Join(cl.Cells(4), " | ") + " |\n")
	}
	return b.String()
}

// tally converts an eval.Tally to its file form.
func tally(t eval.Tally) results.Tally {
	return results.Tally{Right: t.Right, Ties: t.Ties, Wrong: t.Wrong}
}
