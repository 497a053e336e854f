package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/mkpoe/mkpoe/pkg/results"
	"github.com/mkpoe/mkpoe/pkg/stats"
)

// ResultsDoc renders a results document (docs/results.md is one) from a
// template and the committed results of finished runs: results/<config>/
// summary.json and provenance.json, read through fsys (e.g.
// os.DirFS("results")). The template is Go text/template with these
// functions, each naming a config by its run directory:
//
//	{{table "cfg"}}        the rows: accuracy (mean ± sd over splits), ties ½,
//	                       tie rate, β chosen per split, the paper's value, fits
//	{{claims "cfg"}}       the claims: difference, anchor-clustered interval,
//	                       Holm p, the verdict, then the i.i.d. interval
//	{{shares "cfg"}}       the kernel shares of the K4 rows, one line each
//	{{provenance "cfg"}}   one paragraph: commit, build, machine, times, fits
//	{{runs "cfg" ...}}     one line per config and a total: tasks, fits, wall
//	                       time, task time, not certified, largest gap
//	{{cost "cfg" "row" ...}} what learning the rows cost: training comparisons
//	                       per split, task time, process CPU time (one
//	                       worker; else —), solver iterations
//	{{builds "cfg" "cfg2"}} two runs of one config (e.g. the OpenBLAS and the
//	                       pure-Go build): what differs, split by split, and
//	                       every claim whose verdicts differ
//	{{acc "cfg" "row"}}    a row's accuracy as the table prints it
//	{{diff "cfg" "claim"}} a claim's difference, clustered interval and verdict
//	{{mean "cfg" "row"}}   a row's mean accuracy over splits, 3 decimals
//	{{paper "cfg" "row"}}  the paper's value of a row, 3 decimals
//	{{spread "cfg" "row"}} a row's lowest and highest split accuracy
//	{{delta "cfg" "claim"}} a claim's difference, signed, 3 decimals
//	{{fits "cfg" ...}}     the configs' fits and how many were not certified
//	{{verdicts "cfg" "holds"|"fails"}} the claims that hold (or do not),
//	                       one bullet each with diff's text
//	{{was "cfg" "claim" "held"|"failed"}} a claim whose verdict changed:
//	                       its verdict before and now; an error when it
//	                       did not change
//	{{move "cfgA" "cfgB" "row"}} a row's mean in cfgB minus cfgA's, signed
//	{{maxmove "cfgA" "cfgB"}} the largest |move| over the rows both have
//	{{sdrange "cfg"}}      the lowest and highest sd over splits of its rows
//	{{widths "cfg"}}       the lowest and highest ratio of a claim's
//	                       clustered interval width to its i.i.d. one
//	{{sharerange "cfg" "row" "prefix"}} the lowest and highest share, in
//	                       percent, of the row's kernels named prefix…
//	{{half "cfg" "row"}}   a row's mean accuracy with ties counted ½
//	{{anchors "cfg" "claim"}} "N test comparisons from A anchors": what a
//	                       claim's clustered interval resampled
//	{{split0 "cfgN" "cfg1" "row" ...}} the rows' split-0 accuracy in cfgN
//	                       (4 decimals); an error unless it equals the
//	                       one-split cfg1's
//	{{splitdiff "cfg" "better" "worse" s}} better − worse on split s
//	{{cut "cfg" "row" "baseline" "time"|"cpu"|"iterations"|"comparisons"}}
//	                       how much less the row cost than the baseline row
//	                       (provenance: task time, process CPU time,
//	                       iterations; summary: training comparisons over
//	                       all splits), in percent, with both values
//	{{cpucost "cfg" "cheaper" "dearer" ...}} the CPU time of pairs of rows
//	                       from results/<cfg>/cost.json (mkpoe cost): per
//	                       repeat, ratios, cut, and per solver stage
//	{{cpucut "cfg" "cheaper" "dearer"}} the median cut of CPU time, with
//	                       the ratios' range (cost.json)
//	{{dirty "cfg" ...}}    the configs whose provenance names a tree with
//	                       uncommitted changes, with the commit
//	{{workers "cfg" ...}}  "1 worker" or "N workers": the workers the configs'
//	                       runs had, from provenance; an error when one
//	                       records none or two differ
//	{{cores "cfg" ...}}    "1 core" or "N cores": the cores of the machine
//	                       the configs' runs had, from provenance; an error
//	                       when one records none or two differ
//	{{minworkers "cfg"}}   "at least N workers, its task time being R times
//	                       its wall time", for a run whose provenance records
//	                       no workers; an error when it does, or was resumed
//	{{day "cfg" ...}}      the UTC date the configs' runs finished; an error
//	                       when two differ
//	{{atonce "cfg" ...}}   the most of the configs' runs that ran at one time
//	                       (provenance: start and end)
//	{{tasktime "cfg" ...}} the configs' task time: one, or "A to B"
//	{{means "cfg" "prefix"}} the lowest and highest mean accuracy of the
//	                       rows named prefix…
//	{{comparisons "cfg" "row" "train"|"test"}} a row's training or test
//	                       comparisons per split (one number, or "lo–hi")
//	{{tol "cfg" ...}}      the relative gap the configs' fits certified
//	                       (summary: solver_tol), "1e-3"; an error when two
//	                       differ
//	{{trains "cfg" "row" ...}} each row's training comparisons on split 0
//	{{gap "cfg" "row"}}    a row's mean minus the paper's value, signed
//	{{tierate "cfg" "row"}} a row's tie rate over all splits, in percent
//	{{holm "cfg" ...}}     declares the runs of one build whose claims are
//	                       Holm-adjusted together, one family per paper table
//	                       (claims that cite none: one more family), across
//	                       configs; prints the families. claims, diff and
//	                       builds need their configs declared before them.
//
// A config without summary.json, a row or claim that does not exist, or a
// template error is an error naming it, so a stale document cannot pass
// for a current one.
func ResultsDoc(tmpl string, fsys fs.FS) ([]byte, error) {
	d := &resultsDoc{fsys: fsys, runs: map[string]*committedRun{}, adjusted: map[string][]results.Claim{}}
	t, err := template.New("results").Option("missingkey=error").Funcs(template.FuncMap{
		"table": d.table, "claims": d.claims, "shares": d.shares, "provenance": d.provenance,
		"runs": d.runsTable, "acc": d.acc, "diff": d.diff, "cost": d.cost, "builds": d.builds, "holm": d.holm,
		"mean": d.mean, "paper": d.paper, "spread": d.spread, "delta": d.delta, "fits": d.fits, "verdicts": d.verdicts, "was": d.was,
		"move": d.move, "maxmove": d.maxmove, "sdrange": d.sdrange, "widths": d.widths, "sharerange": d.sharerange,
		"half": d.half, "anchors": d.anchors, "split0": d.split0, "splitdiff": d.splitdiff, "cut": d.cut, "tierate": d.tierate, "gap": d.gap, "trains": d.trains, "dirty": d.dirty,
		"cpucost": d.cpucost, "cpucut": d.cpucut, "workers": d.workers, "cores": d.cores, "minworkers": d.minworkers,
		"day": d.day, "atonce": d.atonce, "tasktime": d.tasktime, "means": d.means, "tol": d.tol, "comparisons": d.comparisons,
	}).Parse(tmpl)
	if err != nil {
		return nil, fmt.Errorf("results template: %w", err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, nil); err != nil {
		return nil, fmt.Errorf("results template: %w", err)
	}
	return b.Bytes(), nil
}

type resultsDoc struct {
	fsys fs.FS
	runs map[string]*committedRun
	// adjusted[cfg][i] is claim i of cfg with its p-value Holm-adjusted
	// over its family ({{holm}}) and its verdict under it.
	adjusted map[string][]results.Claim
}

// committedRun is what results/<config>/ holds in git.
type committedRun struct {
	summary    *results.Summary
	provenance *results.Provenance // nil if absent
}

// loadBoth loads two committed runs (load).
func (d *resultsDoc) loadBoth(cfgA, cfgB string) (a, b *committedRun, err error) {
	if a, err = d.load(cfgA); err != nil {
		return nil, nil, err
	}
	if b, err = d.load(cfgB); err != nil {
		return nil, nil, err
	}
	return a, b, nil
}

func (d *resultsDoc) load(cfg string) (*committedRun, error) {
	if r, ok := d.runs[cfg]; ok {
		return r, nil
	}
	name := path.Join(cfg, "summary.json")
	b, err := fs.ReadFile(d.fsys, name)
	if err != nil {
		return nil, fmt.Errorf("config %q: %w (run it and copy its summary.json and provenance.json there)", cfg, err)
	}
	r := &committedRun{}
	if r.summary, err = results.DecodeSummary(b, name); err != nil {
		return nil, err
	}
	if b, err := fs.ReadFile(d.fsys, path.Join(cfg, results.ProvenanceFile)); err == nil {
		var p results.Provenance
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, fmt.Errorf("%s: %w", path.Join(cfg, results.ProvenanceFile), err)
		}
		if p.ConfigHash != r.summary.ConfigHash {
			return nil, fmt.Errorf("config %q: provenance.json is of config hash %s, summary.json of %s", cfg, p.ConfigHash, r.summary.ConfigHash)
		}
		r.provenance = &p
	}
	d.runs[cfg] = r
	return r, nil
}

// loadProvenance is the provenance of a config's committed run; an error
// when it has none.
func (d *resultsDoc) loadProvenance(cfg string) (*results.Provenance, error) {
	r, err := d.load(cfg)
	if err != nil {
		return nil, err
	}
	if r.provenance == nil {
		return nil, fmt.Errorf("config %q: no provenance.json", cfg)
	}
	return r.provenance, nil
}

// accText is a row's accuracy with 3 decimals, "± sd" over several splits.
func accText(x []float64, mean, std float64) string {
	if len(x) > 1 {
		return fmt.Sprintf("%.3f ± %.3f", mean, std)
	}
	return fmt.Sprintf("%.3f", mean)
}

func betaText(b float64) string { return strconv.FormatFloat(b, 'g', -1, 64) }

func (d *resultsDoc) table(cfg string) (string, error) {
	r, err := d.load(cfg)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| Row | Accuracy | Ties ½ | Tie rate | β chosen | Paper | Fits (not certified; largest gap, most iterations) |\n|---|---|---|---|---|---|---|\n")
	for _, row := range r.summary.Rows {
		half, tie := "—", "—"
		if row.TestTallies != nil {
			x, m, s := row.HalfTies()
			half, tie = accText(x, m, s), fmt.Sprintf("%.3f", row.TieRate())
		}
		beta := "—"
		if len(row.Beta) > 0 {
			var bs []string
			for i, v := range row.Beta {
				bs = append(bs, row.WithRank(i, betaText(v)))
			}
			beta = strings.Join(bs, ", ")
		}
		paper := ""
		if row.Paper != nil {
			paper = fmt.Sprintf("%.3f", *row.Paper)
		}
		fits := "—"
		if row.Fits != nil && row.UnconvergedFits != nil && row.MaxGap != nil {
			fits = fmt.Sprintf("%d (%s; %.1e", *row.Fits, notCertified(*row.UnconvergedFits, row.Stationary()), *row.MaxGap)
			if row.MaxIterations != nil {
				fits += fmt.Sprintf(", %d", *row.MaxIterations)
			}
			fits += ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", mdEscape(row.Label), accText(row.Accuracy, row.Mean, row.Std), half, tie, beta, paper, fits)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func (d *resultsDoc) claims(cfg string) (string, error) {
	r, err := d.load(cfg)
	if err != nil {
		return "", err
	}
	if len(r.summary.Claims) == 0 {
		return "", fmt.Errorf("config %q has no claims", cfg)
	}
	adj, err := d.familyClaims(cfg)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| Claim | Paper | Better − worse | 95% interval, anchors resampled | Holm p (family) | Holds | i.i.d. 95% interval | i.i.d. above 0 |\n|---|---|---|---|---|---|---|---|\n")
	for _, cl := range adj {
		c := cl.Cells(3)
		claim := fmt.Sprintf("%s (%s vs %s)", c[results.ClaimCellClaim], c[results.ClaimCellBetter], c[results.ClaimCellWorse])
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", mdEscape(claim), c[results.ClaimCellPaper], c[results.ClaimCellDifference],
			c[results.ClaimCellClustered], c[results.ClaimCellHolmP], boldYes(c[results.ClaimCellHolds]), c[results.ClaimCellIID], c[results.ClaimCellIIDAbove])
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// boldYes makes a verdict stand out when it is "no": a claim that does not
// hold is reported as such, never hidden.
func boldYes(v string) string {
	if v == "no" {
		return "**no**"
	}
	return v
}

func (d *resultsDoc) shares(cfg string) (string, error) {
	r, err := d.load(cfg)
	if err != nil {
		return "", err
	}
	var lines []string
	for _, row := range r.summary.Rows {
		if len(row.KernelShare) == 0 {
			continue
		}
		var parts []string
		for i, s := range row.KernelShare {
			k := fmt.Sprintf("kernel %d", i)
			if i < len(row.Kernels) {
				k = row.Kernels[i]
			}
			parts = append(parts, fmt.Sprintf("%s %.3f", k, s))
		}
		lines = append(lines, fmt.Sprintf("- %s: %s", mdEscape(row.Label), strings.Join(parts, ", ")))
	}
	if len(lines) == 0 {
		return "", fmt.Errorf("config %q has no kernel shares (no K4 row)", cfg)
	}
	return strings.Join(lines, "\n"), nil
}

func (d *resultsDoc) provenance(cfg string) (string, error) {
	p, err := d.loadProvenance(cfg)
	if err != nil {
		return "", err
	}
	commit := "unknown commit"
	if p.Commit != "" {
		commit = "commit " + shortCommit(p.Commit)
		if p.Dirty != nil && *p.Dirty {
			commit += " with uncommitted changes"
		}
	}
	build := "pure-Go build (gonum)"
	if p.LinalgBackend == "openblas" {
		build = fmt.Sprintf("OpenBLAS build (%s kernels", p.OpenBLASCore)
		if p.OpenBLASCoretype != "" {
			build += ", OPENBLAS_CORETYPE=" + p.OpenBLASCoretype
		}
		if v := openBLASVersion(p.OpenBLASConfig); v != "" {
			build += ", " + v
		}
		build += ")"
	}
	workers := ""
	if p.Workers > 0 {
		workers = ", " + workersText(p.Workers)
	}
	wall := "wall time unknown"
	if p.WallSeconds > 0 {
		wall = duration(p.WallSeconds) + " wall"
		if p.Resumed {
			wall += " (resumed: the last invocation only)"
		}
	}
	return fmt.Sprintf("Config hash %s; %s, %s, %s; %s, %d cores%s. Finished %s after %s, %s of task time; %d tasks, %d fits, %s not certified, largest certified gap %.2e.",
		p.ConfigHash, commit, build, p.Go, p.CPUModel, p.Cores, workers, dateText(p.Finished), wall, duration(p.TaskSeconds),
		p.Tasks, p.Fits, notCertified(p.UnconvergedFits, p.StationaryFits), p.MaxGap), nil
}

// notCertified is the number of fits not certified to the solver's
// tolerance: those stopped at the iteration limit and those stopped at a
// stationary point (a fixed rank's), which it names when there are any
// ("7 (4 stationary)").
func notCertified(unconverged, stationary int) string {
	if stationary == 0 {
		return strconv.Itoa(unconverged)
	}
	return fmt.Sprintf("%d (%d stationary)", unconverged+stationary, stationary)
}

func (d *resultsDoc) runsTable(cfgs ...string) (string, error) {
	var b strings.Builder
	b.WriteString("| Config | Tasks | Fits | Wall time | Task time | Not certified | Largest gap | Commit | Build |\n|---|---|---|---|---|---|---|---|---|\n")
	var tasks, fits, unconverged, stationary int
	var wall, taskTime, gap float64
	var first, last time.Time
	for _, cfg := range cfgs {
		p, err := d.loadProvenance(cfg)
		if err != nil {
			return "", err
		}
		build := p.LinalgBackend
		if p.OpenBLASCore != "" {
			build += " (" + p.OpenBLASCore + ")"
		}
		fmt.Fprintf(&b, "| `%s` | %d | %d | %s | %s | %s | %.2e | %s | %s |\n", cfg, p.Tasks, p.Fits, duration(p.WallSeconds), duration(p.TaskSeconds),
			notCertified(p.UnconvergedFits, p.StationaryFits), p.MaxGap, shortCommit(p.Commit), build)
		if t, err := time.Parse(time.RFC3339, p.Started); err == nil && (first.IsZero() || t.Before(first)) {
			first = t
		}
		if t, err := time.Parse(time.RFC3339, p.Finished); err == nil && t.After(last) {
			last = t
		}
		tasks, fits, unconverged, stationary = tasks+p.Tasks, fits+p.Fits, unconverged+p.UnconvergedFits, stationary+p.StationaryFits
		wall, taskTime, gap = wall+p.WallSeconds, taskTime+p.TaskSeconds, math.Max(gap, p.MaxGap)
	}
	fmt.Fprintf(&b, "| all %d | %d | %d | %s | %s | %s | %.2e | | |", len(cfgs), tasks, fits, duration(wall), duration(taskTime), notCertified(unconverged, stationary), gap)
	if !first.IsZero() && last.After(first) {
		// Runs that overlapped count twice in the summed wall time.
		fmt.Fprintf(&b, "\n\nFrom the first run's start to the last run's end: %s (%s to %s).", duration(last.Sub(first).Seconds()), dateText(first.Format(time.RFC3339)), dateText(last.Format(time.RFC3339)))
	}
	return b.String(), nil
}

func (d *resultsDoc) cost(cfg string, labels ...string) (string, error) {
	if _, err := d.loadProvenance(cfg); err != nil {
		return "", err
	}
	r := d.runs[cfg]
	var b strings.Builder
	b.WriteString("| Row | Training comparisons per split | Task time | Process CPU time | Solver iterations |\n|---|---|---|---|---|\n")
	for _, label := range labels {
		row := r.row(label)
		var rc *results.RowCost
		for i := range r.provenance.Rows {
			if strings.EqualFold(r.provenance.Rows[i].Label, label) {
				rc = &r.provenance.Rows[i]
			}
		}
		if row == nil || rc == nil {
			return "", fmt.Errorf("config %q has no learned row %q with a recorded cost", cfg, label)
		}
		lo, hi := row.TrainComparisons[0], row.TrainComparisons[0]
		for _, n := range row.TrainComparisons {
			lo, hi = min(lo, n), max(hi, n)
		}
		count := strconv.Itoa(lo)
		if hi != lo {
			count = fmt.Sprintf("%d–%d", lo, hi)
		}
		cpu := "—" // not recorded: several workers, or a run before CPU time was
		if rc.ProcessCPUSeconds != nil {
			cpu = duration(*rc.ProcessCPUSeconds)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d |\n", mdEscape(row.Label), count, duration(rc.Seconds), cpu, rc.Iterations)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// builds compares two committed runs of the same config, typically from two
// builds: the rows whose β choice or test accuracy differs on some split,
// each such split with both values and both test tallies (right, ties,
// wrong), then the largest accuracy difference, in test comparisons too
// when every such split has its tallies, and whether every claim's verdict
// is the same.
func (d *resultsDoc) builds(cfgA, cfgB string) (string, error) {
	a, b, err := d.loadBoth(cfgA, cfgB)
	if err != nil {
		return "", err
	}
	if a.summary.Name != b.summary.Name || len(a.summary.Rows) != len(b.summary.Rows) {
		return "", fmt.Errorf("%q and %q are not runs of one config (%s, %d rows; %s, %d rows)", cfgA, cfgB, a.summary.Name, len(a.summary.Rows), b.summary.Name, len(b.summary.Rows))
	}
	name := func(r *committedRun, cfg string) string {
		if r.provenance != nil && r.provenance.LinalgBackend != "" {
			return r.provenance.LinalgBackend
		}
		return cfg
	}
	na, nb := name(a, cfgA), name(b, cfgB)
	var lines []string
	maxDiff := 0.0
	maxRight, allTallies := 0, true // the largest change of a split's right comparisons
	for i, ra := range a.summary.Rows {
		rb := b.summary.Rows[i]
		if ra.Label != rb.Label || len(ra.Accuracy) != len(rb.Accuracy) {
			return "", fmt.Errorf("%q and %q differ in row %d (%q, %q)", cfgA, cfgB, i, ra.Label, rb.Label)
		}
		for sp := range ra.Accuracy {
			diff := rb.Accuracy[sp] - ra.Accuracy[sp]
			maxDiff = math.Max(maxDiff, math.Abs(diff))
			betaA, betaB := "—", "—"
			if sp < len(ra.Beta) && sp < len(rb.Beta) {
				betaA, betaB = betaText(ra.Beta[sp]), betaText(rb.Beta[sp])
			}
			if betaA != betaB || diff != 0 {
				ta, tb := tallyText(ra, sp), tallyText(rb, sp)
				if ta != "—" && tb != "—" {
					dr := rb.TestTallies[sp].Right - ra.TestTallies[sp].Right
					maxRight = max(maxRight, dr, -dr)
				} else {
					allTallies = false
				}
				lines = append(lines, fmt.Sprintf("| %s | %d | %s | %s | %.4f | %.4f | %s | %s |", mdEscape(ra.Label), sp, betaA, betaB, ra.Accuracy[sp], rb.Accuracy[sp], ta, tb))
			}
		}
	}
	if len(a.summary.Claims) != len(b.summary.Claims) {
		return "", fmt.Errorf("%q and %q have different claims (%d, %d)", cfgA, cfgB, len(a.summary.Claims), len(b.summary.Claims))
	}
	adjA, err := d.familyClaims(cfgA)
	if err != nil {
		return "", err
	}
	adjB, err := d.familyClaims(cfgB)
	if err != nil {
		return "", err
	}
	var moved, designs []string
	for i, ca := range adjA {
		cb := adjB[i]
		if ca.Claim != cb.Claim {
			return "", fmt.Errorf("%q and %q differ in claim %d (%q, %q)", cfgA, cfgB, i, ca.Claim, cb.Claim)
		}
		if da, db := designOf(ca), designOf(cb); da != db {
			designs = append(designs, fmt.Sprintf("%s: %s; %s: %s", na, da, nb, db))
			continue
		}
		if ca.Holds != cb.Holds || ca.Reproduced != cb.Reproduced {
			moved = append(moved, fmt.Sprintf("- **%s**: %s; %s.", mdEscape(ca.Claim), claimVerdict(na, ca), claimVerdict(nb, cb)))
		}
	}
	var out strings.Builder
	if len(lines) == 0 {
		fmt.Fprintf(&out, "The %s and %s runs choose the same β and give the same test accuracy on every split of every row.", na, nb)
	} else {
		fmt.Fprintf(&out, "| Row | Split | β, %s | β, %s | Accuracy, %s | Accuracy, %s | Right/ties/wrong, %s | Right/ties/wrong, %s |\n|---|---|---|---|---|---|---|---|\n%s\n\n", na, nb, na, nb, na, nb, strings.Join(lines, "\n"))
		fmt.Fprintf(&out, "Every other split of every row has the same β and test accuracy in both; the largest difference of a split's accuracy is %.4f", maxDiff)
		if allTallies {
			fmt.Fprintf(&out, ", or %s right in one run than in the other", plural(maxRight, "more test comparison"))
		}
		out.WriteString(".")
	}
	nDesign := len(designs)
	if nDesign > 0 {
		slices.Sort(designs)
		designs = slices.Compact(designs)
		fmt.Fprintf(&out, " %d of %d claims' clustered intervals were resampled differently in the two runs (%s), so their verdicts are not set side by side here (`mkpoe recheck` recomputes the older run's claims).",
			nDesign, len(a.summary.Claims), strings.Join(designs, "; "))
	}
	switch {
	case nDesign == len(a.summary.Claims):
	case len(moved) == 0 && nDesign > 0:
		out.WriteString(" Every other claim has the same verdicts (Holds, and the i.i.d. check) in both.")
	case len(moved) == 0:
		out.WriteString(" Every claim has the same verdicts (Holds, and the i.i.d. check) in both.")
	default:
		fmt.Fprintf(&out, " **%d of %d claims' verdicts differ between the two runs:**\n\n%s", len(moved), len(a.summary.Claims), strings.Join(moved, "\n"))
	}
	return out.String(), nil
}

// tallyText is a row's test tally on split sp as "right/ties/wrong", "—"
// when the summary has none.
func tallyText(r results.Row, sp int) string {
	if sp >= len(r.TestTallies) {
		return "—"
	}
	t := r.TestTallies[sp]
	return fmt.Sprintf("%d/%d/%d", t.Right, t.Ties, t.Wrong)
}

// plural is "1 thing" or "n things" (thing's last word takes the s).
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// claimVerdict is one run's verdicts on a claim, for builds: the
// difference, its clustered interval and whether it holds, then the i.i.d.
// check.
func claimVerdict(run string, cl results.Claim) string {
	c := cl.Cells(3)
	return fmt.Sprintf("%s: %s %s, %s (i.i.d. interval above 0: %s)", run, c[results.ClaimCellDifference], c[results.ClaimCellClustered], holdsText(c), c[results.ClaimCellIIDAbove])
}

// holdsText is a claim's verdict in words, from its cells (Claim.Cells).
func holdsText(c []string) string {
	if c[results.ClaimCellHolds] != "yes" {
		return "does not hold"
	}
	return "holds"
}

func (r *committedRun) row(label string) *results.Row {
	for i := range r.summary.Rows {
		if strings.EqualFold(r.summary.Rows[i].Label, label) {
			return &r.summary.Rows[i]
		}
	}
	return nil
}

func (d *resultsDoc) acc(cfg, label string) (string, error) {
	r, err := d.load(cfg)
	if err != nil {
		return "", err
	}
	if row := r.row(label); row != nil {
		return accText(row.Accuracy, row.Mean, row.Std), nil
	}
	return "", fmt.Errorf("config %q has no row %q", cfg, label)
}

func (d *resultsDoc) diff(cfg, claim string) (string, error) {
	r, err := d.load(cfg)
	if err != nil {
		return "", err
	}
	adj, err := d.familyClaims(cfg)
	if err != nil {
		return "", err
	}
	for _, cl := range adj {
		if strings.EqualFold(cl.Claim, claim) {
			c := cl.Cells(3)
			return fmt.Sprintf("%s %s, %s", c[results.ClaimCellDifference], c[results.ClaimCellClustered], holdsText(c)), nil
		}
	}
	var have []string
	for _, cl := range r.summary.Claims {
		have = append(have, strconv.Quote(cl.Claim))
	}
	sort.Strings(have)
	return "", fmt.Errorf("config %q has no claim %q (it has %s)", cfg, claim, strings.Join(have, ", "))
}

func shortCommit(c string) string {
	if len(c) > 7 {
		return c[:7]
	}
	return c
}

// openBLASVersion is "OpenBLAS 0.3.21" from openblas_get_config's
// "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64".
func openBLASVersion(config string) string {
	f := strings.Fields(config)
	if len(f) >= 2 && f[0] == "OpenBLAS" {
		return f[0] + " " + f[1]
	}
	return ""
}

func duration(sec float64) string {
	switch {
	case sec < 10:
		return fmt.Sprintf("%.1f s", sec)
	case sec < 100:
		return fmt.Sprintf("%.0f s", sec)
	case sec < 6000:
		return fmt.Sprintf("%.1f min", sec/60)
	}
	return fmt.Sprintf("%.2f h", sec/3600)
}

func dateText(rfc string) string {
	t, err := time.Parse(time.RFC3339, rfc)
	if err != nil {
		return "at an unknown time"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// holm declares cfgs the runs of one build whose claims are adjusted
// together: the claims that cite the same paper table (Claim.Paper) form
// one family across all of them, those that cite none another, and each
// claim's clustered p-value is Holm-adjusted over its family
// (results.HolmFamilies). It prints the families, one line each.
func (d *resultsDoc) holm(cfgs ...string) (string, error) {
	var runs []results.FamilyRun
	for _, cfg := range cfgs {
		if _, ok := d.adjusted[cfg]; ok {
			return "", fmt.Errorf("config %q is in two {{holm}} declarations", cfg)
		}
		r, err := d.load(cfg)
		if err != nil {
			return "", err
		}
		runs = append(runs, results.FamilyRun{Name: cfg, Claims: r.summary.Claims})
	}
	adj, fams := results.HolmFamilies(runs)
	for i, cfg := range cfgs {
		d.adjusted[cfg] = adj[i]
	}
	var b strings.Builder
	b.WriteString("| Family | Claims | Configs |\n|---|---|---|\n")
	for _, f := range fams {
		name := f.Name
		if name == "" {
			name = "no paper table"
		}
		fmt.Fprintf(&b, "| %s | %d | %s |\n", name, f.M, strings.Join(f.Runs, ", "))
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// familyClaims are cfg's claims adjusted over their {{holm}} family; an
// error when cfg was not declared in one.
func (d *resultsDoc) familyClaims(cfg string) ([]results.Claim, error) {
	adj, ok := d.adjusted[cfg]
	if !ok {
		return nil, fmt.Errorf("config %q is in no Holm family: name it in a {{holm}} before its claims", cfg)
	}
	return adj, nil
}

// rowOf is a config's row by label (case-insensitive), or an error.
func (d *resultsDoc) rowOf(cfg, label string) (*results.Row, error) {
	r, err := d.load(cfg)
	if err != nil {
		return nil, err
	}
	if row := r.row(label); row != nil {
		return row, nil
	}
	return nil, fmt.Errorf("config %q has no row %q", cfg, label)
}

func (d *resultsDoc) mean(cfg, label string) (string, error) {
	row, err := d.rowOf(cfg, label)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%.3f", row.Mean), nil
}

func (d *resultsDoc) paper(cfg, label string) (string, error) {
	row, err := d.rowOf(cfg, label)
	if err != nil {
		return "", err
	}
	if row.Paper == nil {
		return "", fmt.Errorf("config %q: row %q has no paper value", cfg, label)
	}
	return fmt.Sprintf("%.3f", *row.Paper), nil
}

func (d *resultsDoc) spread(cfg, label string) (string, error) {
	row, err := d.rowOf(cfg, label)
	if err != nil {
		return "", err
	}
	if len(row.Accuracy) == 0 {
		return "", fmt.Errorf("config %q: row %q has no accuracy", cfg, label)
	}
	lo, hi := row.Accuracy[0], row.Accuracy[0]
	for _, a := range row.Accuracy {
		lo, hi = math.Min(lo, a), math.Max(hi, a)
	}
	return fmt.Sprintf("%.3f to %.3f", lo, hi), nil
}

// claimOf is a config's claim by name, adjusted over its family.
func (d *resultsDoc) claimOf(cfg, claim string) (results.Claim, error) {
	adj, err := d.familyClaims(cfg)
	if err != nil {
		return results.Claim{}, err
	}
	var have []string
	for _, cl := range adj {
		if strings.EqualFold(cl.Claim, claim) {
			return cl, nil
		}
		have = append(have, strconv.Quote(cl.Claim))
	}
	sort.Strings(have)
	return results.Claim{}, fmt.Errorf("config %q has no claim %q (it has %s)", cfg, claim, strings.Join(have, ", "))
}

func (d *resultsDoc) delta(cfg, claim string) (string, error) {
	cl, err := d.claimOf(cfg, claim)
	if err != nil {
		return "", err
	}
	if cl.Interval == nil {
		return "", fmt.Errorf("config %q: claim %q has no difference (%s)", cfg, claim, cl.Note)
	}
	return fmt.Sprintf("%+.3f", cl.Interval.Diff), nil
}

func (d *resultsDoc) fits(cfgs ...string) (string, error) {
	fits, unconverged, stationary := 0, 0, 0
	for _, cfg := range cfgs {
		p, err := d.loadProvenance(cfg)
		if err != nil {
			return "", err
		}
		fits, unconverged, stationary = fits+p.Fits, unconverged+p.UnconvergedFits, stationary+p.StationaryFits
	}
	return fmt.Sprintf("%s fits over %d configs, %s not certified", thousands(fits), len(cfgs), notCertified(unconverged, stationary)), nil
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// claimText is a claim's name, difference, clustered interval and
// verdict under its family.
func claimText(cl results.Claim) string {
	c := cl.Cells(3)
	return fmt.Sprintf("%s (%s vs %s): %s %s, Holm p %s, %s", mdEscape(cl.Claim), mdEscape(cl.Better), mdEscape(cl.Worse), c[results.ClaimCellDifference], c[results.ClaimCellClustered], c[results.ClaimCellHolmP], holdsText(c))
}

func (d *resultsDoc) verdicts(cfg, which string) (string, error) {
	if which != "holds" && which != "fails" {
		return "", fmt.Errorf("verdicts %q: want \"holds\" or \"fails\", got %q", cfg, which)
	}
	adj, err := d.familyClaims(cfg)
	if err != nil {
		return "", err
	}
	var lines []string
	for _, cl := range adj {
		if cl.Holds == (which == "holds") {
			lines = append(lines, "- "+claimText(cl))
		}
	}
	if len(lines) == 0 {
		return "- none", nil
	}
	return strings.Join(lines, "\n"), nil
}

func (d *resultsDoc) was(cfg, claim, before string) (string, error) {
	if before != "held" && before != "failed" {
		return "", fmt.Errorf("was %q %q: want \"held\" or \"failed\", got %q", cfg, claim, before)
	}
	cl, err := d.claimOf(cfg, claim)
	if err != nil {
		return "", err
	}
	if cl.Holds == (before == "held") {
		return "", fmt.Errorf("config %q: claim %q %s before and still does: not a change", cfg, claim, before)
	}
	word := "held"
	if before == "failed" {
		word = "did not hold"
	}
	c := cl.Cells(3)
	return fmt.Sprintf("%s (%s vs %s), `%s`: %s before; now %s %s, Holm p %s, %s", mdEscape(cl.Claim), mdEscape(cl.Better), mdEscape(cl.Worse), cfg, word,
		c[results.ClaimCellDifference], c[results.ClaimCellClustered], c[results.ClaimCellHolmP], holdsText(c)), nil
}

func (d *resultsDoc) move(cfgA, cfgB, label string) (string, error) {
	a, err := d.rowOf(cfgA, label)
	if err != nil {
		return "", err
	}
	b, err := d.rowOf(cfgB, label)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%+.3f", b.Mean-a.Mean), nil
}

func (d *resultsDoc) maxmove(cfgA, cfgB string) (string, error) {
	a, b, err := d.loadBoth(cfgA, cfgB)
	if err != nil {
		return "", err
	}
	best, n := 0.0, 0
	for _, ra := range a.summary.Rows {
		if rb := b.row(ra.Label); rb != nil {
			best, n = math.Max(best, math.Abs(rb.Mean-ra.Mean)), n+1
		}
	}
	if n == 0 {
		return "", fmt.Errorf("configs %q and %q have no row in common", cfgA, cfgB)
	}
	return fmt.Sprintf("%.3f", best), nil
}

// rangeText is "lo–hi" (or one value when they agree) with format f.
func rangeText(f string, lo, hi float64) string {
	a, b := fmt.Sprintf(f, lo), fmt.Sprintf(f, hi)
	if a == b {
		return a
	}
	return a + "–" + b
}

func (d *resultsDoc) sdrange(cfg string) (string, error) {
	r, err := d.load(cfg)
	if err != nil {
		return "", err
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range r.summary.Rows {
		lo, hi = math.Min(lo, row.Std), math.Max(hi, row.Std)
	}
	if len(r.summary.Rows) == 0 {
		return "", fmt.Errorf("config %q has no rows", cfg)
	}
	return rangeText("%.3f", lo, hi), nil
}

func (d *resultsDoc) widths(cfg string) (string, error) {
	r, err := d.load(cfg)
	if err != nil {
		return "", err
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, cl := range r.summary.Claims {
		if cl.Interval == nil || cl.Clustered == nil || !(cl.Interval.Hi > cl.Interval.Lo) {
			continue
		}
		w := (cl.Clustered.Hi - cl.Clustered.Lo) / (cl.Interval.Hi - cl.Interval.Lo)
		lo, hi = math.Min(lo, w), math.Max(hi, w)
	}
	if math.IsInf(lo, 1) {
		return "", fmt.Errorf("config %q has no claim with both intervals", cfg)
	}
	return rangeText("%.1f", lo, hi), nil
}

func (d *resultsDoc) sharerange(cfg, label, prefix string) (string, error) {
	row, err := d.rowOf(cfg, label)
	if err != nil {
		return "", err
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, s := range row.KernelShare {
		if i < len(row.Kernels) && strings.HasPrefix(row.Kernels[i], prefix) {
			lo, hi = math.Min(lo, 100*s), math.Max(hi, 100*s)
		}
	}
	if math.IsInf(lo, 1) {
		return "", fmt.Errorf("config %q: row %q has no kernel share of a kernel named %s…", cfg, label, prefix)
	}
	return rangeText("%.1f", lo, hi) + "%", nil
}

func (d *resultsDoc) half(cfg, label string) (string, error) {
	row, err := d.rowOf(cfg, label)
	if err != nil {
		return "", err
	}
	if row.TestTallies == nil {
		return "", fmt.Errorf("config %q: row %q has no test tallies", cfg, label)
	}
	_, m, _ := row.HalfTies()
	return fmt.Sprintf("%.3f", m), nil
}

func (d *resultsDoc) anchors(cfg, claim string) (string, error) {
	cl, err := d.claimOf(cfg, claim)
	if err != nil {
		return "", err
	}
	if cl.Clustered == nil || cl.Clustered.Clusters == 0 {
		return "", fmt.Errorf("config %q: claim %q has no recorded clusters (mkpoe recheck records them)", cfg, claim)
	}
	return fmt.Sprintf("%d test comparisons from %d anchors", cl.Clustered.N, cl.Clustered.Clusters), nil
}

func (d *resultsDoc) split0(cfgN, cfg1 string, labels ...string) (string, error) {
	var parts []string
	for _, label := range labels {
		a, err := d.rowOf(cfgN, label)
		if err != nil {
			return "", err
		}
		b, err := d.rowOf(cfg1, label)
		if err != nil {
			return "", err
		}
		if len(a.Accuracy) == 0 || len(b.Accuracy) != 1 || a.Accuracy[0] != b.Accuracy[0] {
			return "", fmt.Errorf("row %q: split 0 of config %q (%v) is not config %q's one split (%v)", label, cfgN, a.Accuracy, cfg1, b.Accuracy)
		}
		parts = append(parts, fmt.Sprintf("%s %.4f", mdEscape(a.Label), a.Accuracy[0]))
	}
	return strings.Join(parts, ", "), nil
}

func (d *resultsDoc) splitdiff(cfg, better, worse string, split int) (string, error) {
	a, err := d.rowOf(cfg, better)
	if err != nil {
		return "", err
	}
	b, err := d.rowOf(cfg, worse)
	if err != nil {
		return "", err
	}
	if split < 0 || split >= len(a.Accuracy) || split >= len(b.Accuracy) {
		return "", fmt.Errorf("config %q has no split %d", cfg, split)
	}
	return fmt.Sprintf("%+.3f", a.Accuracy[split]-b.Accuracy[split]), nil
}

// designOf names the resampling of a claim's clustered interval; summaries
// written before it was recorded say nothing, and theirs is named by what
// ClusteredBootstrap did then.
func designOf(cl results.Claim) string {
	switch {
	case cl.Clustered == nil:
		return "none"
	case cl.Clustered.Design != "":
		return cl.Clustered.Design
	case cl.Clustered.Strata > 1:
		return stats.DesignWithinSplits + " (recorded before designs were)"
	}
	return "one split, percentile (recorded before designs were)"
}

func (d *resultsDoc) cut(cfg, label, baseline, measure string) (string, error) {
	if measure == "comparisons" {
		// The training comparisons of all splits, from summary.json.
		var n [2]int
		for i, l := range []string{label, baseline} {
			row, err := d.rowOf(cfg, l)
			if err != nil {
				return "", err
			}
			for _, c := range row.TrainComparisons {
				n[i] += c
			}
		}
		if n[1] == 0 {
			return "", fmt.Errorf("cut %q: %q has no training comparisons", cfg, baseline)
		}
		return fmt.Sprintf("%.0f%% (%s against %s)", 100*(1-float64(n[0])/float64(n[1])), thousands(n[0]), thousands(n[1])), nil
	}
	p, err := d.loadProvenance(cfg)
	if err != nil {
		return "", err
	}
	costOf := func(l string) (*results.RowCost, error) {
		for i := range p.Rows {
			if strings.EqualFold(p.Rows[i].Label, l) {
				return &p.Rows[i], nil
			}
		}
		return nil, fmt.Errorf("config %q has no learned row %q with a recorded cost", cfg, l)
	}
	r, err := costOf(label)
	if err != nil {
		return "", err
	}
	b, err := costOf(baseline)
	if err != nil {
		return "", err
	}
	switch measure {
	case "time":
		return fmt.Sprintf("%.0f%% (%s against %s)", 100*(1-r.Seconds/b.Seconds), duration(r.Seconds), duration(b.Seconds)), nil
	case "iterations":
		return fmt.Sprintf("%.0f%% (%s against %s)", 100*(1-float64(r.Iterations)/float64(b.Iterations)), thousands(r.Iterations), thousands(b.Iterations)), nil
	case "cpu":
		if r.ProcessCPUSeconds == nil || b.ProcessCPUSeconds == nil {
			return "", fmt.Errorf("cut %q: %q or %q has no process CPU time (a run with one worker records it)", cfg, label, baseline)
		}
		rc, bc := *r.ProcessCPUSeconds, *b.ProcessCPUSeconds
		return fmt.Sprintf("%.0f%% (%s against %s)", 100*(1-rc/bc), duration(rc), duration(bc)), nil
	}
	return "", fmt.Errorf("cut %q: measure %q, want \"time\", \"cpu\", \"iterations\" or \"comparisons\"", cfg, measure)
}

func (d *resultsDoc) tierate(cfg, label string) (string, error) {
	row, err := d.rowOf(cfg, label)
	if err != nil {
		return "", err
	}
	if row.TestTallies == nil {
		return "", fmt.Errorf("config %q: row %q has no test tallies", cfg, label)
	}
	return fmt.Sprintf("%.1f%%", 100*row.TieRate()), nil
}

func (d *resultsDoc) gap(cfg, label string) (string, error) {
	row, err := d.rowOf(cfg, label)
	if err != nil {
		return "", err
	}
	if row.Paper == nil {
		return "", fmt.Errorf("config %q: row %q has no paper value", cfg, label)
	}
	return fmt.Sprintf("%+.3f", row.Mean-*row.Paper), nil
}

func (d *resultsDoc) trains(cfg string, labels ...string) (string, error) {
	var parts []string
	for _, label := range labels {
		row, err := d.rowOf(cfg, label)
		if err != nil {
			return "", err
		}
		if len(row.TrainComparisons) == 0 {
			return "", fmt.Errorf("config %q: row %q has no training comparisons", cfg, label)
		}
		parts = append(parts, fmt.Sprintf("%s %d", mdEscape(row.Label), row.TrainComparisons[0]))
	}
	return strings.Join(parts, ", "), nil
}

func (d *resultsDoc) dirty(cfgs ...string) (string, error) {
	var parts []string
	for _, cfg := range cfgs {
		p, err := d.loadProvenance(cfg)
		if err != nil {
			return "", err
		}
		if p.Dirty != nil && *p.Dirty {
			parts = append(parts, fmt.Sprintf("`%s` (%s)", cfg, shortCommit(p.Commit)))
		}
	}
	if len(parts) == 0 {
		return "none", nil
	}
	return strings.Join(parts, ", "), nil
}

// workersText is "1 worker" or "n workers".
func workersText(n int) string { return plural(n, "worker") }

// workers is the number of workers the configs' runs had, from their
// provenance, as workersText: prose that names a run says so without
// typing it. An error when a config has no provenance, its provenance
// records no workers (a Slurm run, or a binary before the field), or two
// configs' counts differ.
func (d *resultsDoc) workers(cfgs ...string) (string, error) {
	return d.sameCount("workers", "ran with", cfgs, func(p *results.Provenance) int { return p.Workers }, workersText)
}

// coresText is "1 core" or "n cores".
func coresText(n int) string { return plural(n, "core") }

// cores is the number of cores of the machine the configs' runs had, from
// their provenance, as coresText; an error when a config's provenance
// records none or two configs' counts differ.
func (d *resultsDoc) cores(cfgs ...string) (string, error) {
	return d.sameCount("cores", "ran on", cfgs, func(p *results.Provenance) int { return p.Cores }, coresText)
}

// sameCount is a count that every config's provenance records (get) and
// that is the same in all of them, as text: an error that names what when
// one records none, and says the two counts with verb ("ran with") when
// two differ.
func (d *resultsDoc) sameCount(what, verb string, cfgs []string, get func(*results.Provenance) int, text func(int) string) (string, error) {
	n, err := agreed(what, cfgs, func(cfg string) (int, error) {
		p, err := d.loadProvenance(cfg)
		if err != nil {
			return 0, err
		}
		if k := get(p); k > 0 {
			return k, nil
		}
		return 0, fmt.Errorf("config %q: its provenance records no %s", cfg, what)
	}, func(first, cfg string, a, b int) error {
		_, prep, _ := strings.Cut(verb, " ") // "ran with": "with"
		return fmt.Errorf("config %q %s %s, config %q %s %s", first, verb, text(a), cfg, prep, text(b))
	})
	if err != nil {
		return "", err
	}
	return text(n), nil
}

// agreed is the value get gives for every config of cfgs, or get's error,
// or differ's for the first config whose value is not the first one's;
// an error that names what when cfgs is empty.
func agreed[T comparable](what string, cfgs []string, get func(cfg string) (T, error), differ func(first, cfg string, a, b T) error) (T, error) {
	var v T
	if len(cfgs) == 0 {
		return v, fmt.Errorf("%s: name at least one config", what)
	}
	for i, cfg := range cfgs {
		w, err := get(cfg)
		if err != nil {
			return v, err
		}
		if i == 0 {
			v = w
		} else if w != v {
			return v, differ(cfgs[0], cfg, v, w)
		}
	}
	return v, nil
}

// minworkers bounds from below the workers of a run whose provenance does
// not record them (a binary before the field): its task time sums the
// tasks' own times over the workers, so it is at most the workers times
// the wall time, and the workers are at least task time / wall time,
// rounded up (less 0.01: a task's clock and the run's round apart). An
// error when the provenance records the workers (use workers), the run
// was resumed (its task time counts earlier invocations, its wall time
// the last alone) or it records no times.
func (d *resultsDoc) minworkers(cfg string) (string, error) {
	p, err := d.loadProvenance(cfg)
	if err != nil {
		return "", err
	}
	switch {
	case p.Workers > 0:
		return "", fmt.Errorf("config %q: its provenance records %s; say so with {{workers}}", cfg, workersText(p.Workers))
	case p.Resumed:
		return "", fmt.Errorf("config %q was resumed: its task time and wall time are of different invocations", cfg)
	case p.WallSeconds <= 0 || p.TaskSeconds <= 0:
		return "", fmt.Errorf("config %q: its provenance records no wall or task time", cfg)
	}
	r := p.TaskSeconds / p.WallSeconds
	n := max(1, int(math.Ceil(r-0.01)))
	return fmt.Sprintf("at least %s, its task time being %.2f times its wall time", workersText(n), r), nil
}

// day is the UTC date on which the configs' runs finished, from their
// provenance; an error when one records no end or two ended on different
// days.
func (d *resultsDoc) day(cfgs ...string) (string, error) {
	return agreed("day", cfgs, func(cfg string) (string, error) {
		p, err := d.loadProvenance(cfg)
		if err != nil {
			return "", err
		}
		t, err := time.Parse(time.RFC3339, p.Finished)
		if err != nil {
			return "", fmt.Errorf("config %q: its provenance records no end (%q)", cfg, p.Finished)
		}
		return t.UTC().Format("2006-01-02"), nil
	}, func(first, cfg, a, b string) error {
		return fmt.Errorf("config %q finished on %s, config %q on %s", first, a, cfg, b)
	})
}

// atonce is the most of the configs' runs that ran at one time, from the
// start and end that their provenance records (a run that ends as another
// starts does not overlap it); an error when one records neither.
func (d *resultsDoc) atonce(cfgs ...string) (string, error) {
	type event struct {
		at    time.Time
		delta int
	}
	var events []event
	for _, cfg := range cfgs {
		p, err := d.loadProvenance(cfg)
		if err != nil {
			return "", err
		}
		start, err1 := time.Parse(time.RFC3339, p.Started)
		end, err2 := time.Parse(time.RFC3339, p.Finished)
		if err1 != nil || err2 != nil {
			return "", fmt.Errorf("config %q: its provenance records no start or end", cfg)
		}
		events = append(events, event{start, 1}, event{end, -1})
	}
	if len(events) == 0 {
		return "", fmt.Errorf("atonce: name at least one config")
	}
	// Ends before starts at the same moment.
	sort.Slice(events, func(i, j int) bool {
		if !events[i].at.Equal(events[j].at) {
			return events[i].at.Before(events[j].at)
		}
		return events[i].delta < events[j].delta
	})
	n, most := 0, 0
	for _, e := range events {
		n += e.delta
		most = max(most, n)
	}
	return strconv.Itoa(most), nil
}

// tasktime is the task time of the configs' runs, from their provenance:
// one config's, or the lowest and the highest of several ("A to B").
func (d *resultsDoc) tasktime(cfgs ...string) (string, error) {
	if len(cfgs) == 0 {
		return "", fmt.Errorf("tasktime: name at least one config")
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, cfg := range cfgs {
		p, err := d.loadProvenance(cfg)
		if err != nil {
			return "", err
		}
		if p.TaskSeconds <= 0 {
			return "", fmt.Errorf("config %q: its provenance records no task time", cfg)
		}
		lo, hi = math.Min(lo, p.TaskSeconds), math.Max(hi, p.TaskSeconds)
	}
	if a, b := duration(lo), duration(hi); a != b {
		return a + " to " + b, nil
	}
	return duration(lo), nil
}

// means is the lowest and highest mean accuracy of a config's rows whose
// label begins with prefix (case-insensitively), 3 decimals; an error when
// no row does.
func (d *resultsDoc) means(cfg, prefix string) (string, error) {
	r, err := d.load(cfg)
	if err != nil {
		return "", err
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range r.summary.Rows {
		if len(row.Label) >= len(prefix) && strings.EqualFold(row.Label[:len(prefix)], prefix) {
			lo, hi = math.Min(lo, row.Mean), math.Max(hi, row.Mean)
		}
	}
	if math.IsInf(lo, 1) {
		return "", fmt.Errorf("config %q has no row named %s…", cfg, prefix)
	}
	return rangeText("%.3f", lo, hi), nil
}

// comparisons is a row's training or test comparisons per split: one
// number when every split has the same, else the lowest and highest.
func (d *resultsDoc) comparisons(cfg, label, which string) (string, error) {
	row, err := d.rowOf(cfg, label)
	if err != nil {
		return "", err
	}
	var n []int
	switch which {
	case "train":
		n = row.TrainComparisons
	case "test":
		n = row.TestComparisons
	default:
		return "", fmt.Errorf("comparisons %q %q: %q, want \"train\" or \"test\"", cfg, label, which)
	}
	if len(n) == 0 {
		return "", fmt.Errorf("config %q: row %q records no %s comparisons", cfg, label, which)
	}
	return rangeText("%.0f", float64(slices.Min(n)), float64(slices.Max(n))), nil
}

// tol is the relative duality gap the configs' fits had to certify
// (summary.json solver_tol), as "1e-3"; an error when a summary records
// none or two differ.
func (d *resultsDoc) tol(cfgs ...string) (string, error) {
	t, err := agreed("tol", cfgs, func(cfg string) (float64, error) {
		r, err := d.load(cfg)
		if err != nil {
			return 0, err
		}
		if s := r.summary.SolverTol; s > 0 {
			return s, nil
		}
		return 0, fmt.Errorf("config %q: its summary records no solver tolerance", cfg)
	}, func(first, cfg string, a, b float64) error {
		return fmt.Errorf("config %q certified to %s, config %q to %s", first, tolText(a), cfg, tolText(b))
	})
	if err != nil {
		return "", err
	}
	return tolText(t), nil
}

// tolText is a tolerance in the docs' form: 0.001 as "1e-3", 2.5e-4 as
// "2.5e-4".
func tolText(t float64) string {
	m, e, _ := strings.Cut(strconv.FormatFloat(t, 'e', -1, 64), "e")
	n, err := strconv.Atoi(e)
	if err != nil {
		return strconv.FormatFloat(t, 'g', -1, 64)
	}
	return fmt.Sprintf("%se%d", m, n)
}
