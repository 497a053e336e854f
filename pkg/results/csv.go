package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// CSV forms of a run's results, for pandas and spreadsheets: a header row,
// no index column, RFC 4180 quoting (encoding/csv), one value per cell.
// Numbers are written in the shortest form that reads back exactly; an
// unknown or undefined value (NaN, a field absent from an older file, a
// column that does not apply to the line) is an empty cell, which
// pd.read_csv reads as NaN. Booleans are "true" or "false".

// Names of the CSV files a run directory and its report hold.
const (
	TableCSV = "table.csv"
	FitsCSV  = "fits.csv"
)

// csvFloat formats x for a CSV cell: empty for NaN.
func csvFloat(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

func csvIntPtr(p *int) string {
	if p == nil {
		return ""
	}
	return strconv.Itoa(*p)
}

func csvFloatPtr(p *float64) string {
	if p == nil {
		return ""
	}
	return csvFloat(*p)
}

// at returns x[i], or NaN past its end.
func at(x []float64, i int) float64 {
	if i < len(x) {
		return x[i]
	}
	return math.NaN()
}

// TableCSVHeader returns the header of [WriteTableCSV] for a summary with
// the given number of outer splits and grid kind.
func TableCSVHeader(splits int, relative bool) []string {
	h := []string{"label", "table_row", "method", "mode", "kernels", "mean_accuracy", "std_accuracy",
		"mean_accuracy_half_ties", "tie_rate", "paper", "fits", "unconverged_fits", "stationary_fits", "max_gap", "max_iterations"}
	for s := range splits {
		h = append(h, fmt.Sprintf("accuracy_s%d", s), fmt.Sprintf("beta_s%d", s))
		if relative {
			h = append(h, fmt.Sprintf("beta_multiple_s%d", s), fmt.Sprintf("min_beta_s%d", s))
		}
		h = append(h, fmt.Sprintf("train_comparisons_s%d", s), fmt.Sprintf("test_comparisons_s%d", s))
	}
	return h
}

// WriteTableCSV writes the summary's table as CSV (table.csv): one line per
// row of the config, in config order, with the test accuracy's mean and
// sample standard deviation over outer splits and, per split s, the test
// accuracy, the chosen β (and, for a relative grid, the chosen multiple
// and β_min) and the comparison counts. See results/README.md for every
// column.
func WriteTableCSV(w io.Writer, s *Summary) error {
	cw := csv.NewWriter(w)
	splits := s.Splits
	for _, r := range s.Rows {
		splits = max(splits, len(r.Accuracy))
	}
	if err := cw.Write(TableCSVHeader(splits, s.BetaRelative)); err != nil {
		return err
	}
	for i := range s.Rows {
		r := &s.Rows[i]
		_, htMean, _ := r.HalfTies()
		paper := ""
		if r.Paper != nil {
			paper = csvFloat(*r.Paper)
		}
		line := []string{r.Label, r.TableRow, r.Method, r.Mode, strings.Join(r.Kernels, ";"), csvFloat(r.Mean), csvFloat(r.Std),
			csvFloat(htMean), csvFloat(r.TieRate()), paper, csvIntPtr(r.Fits), csvIntPtr(r.UnconvergedFits), stationaryCell(r), csvFloatPtr(r.MaxGap), csvIntPtr(r.MaxIterations)}
		for sp := range splits {
			line = append(line, csvFloat(at(r.Accuracy, sp)), csvFloat(at(r.Beta, sp)))
			if s.BetaRelative {
				line = append(line, csvFloat(at(r.BetaMultiple, sp)), csvFloat(at(r.MinBeta, sp)))
			}
			line = append(line, csvInt(r.TrainComparisons, sp), csvInt(r.TestComparisons, sp))
		}
		if err := cw.Write(line); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// stationaryCell is table.csv's stationary_fits: the row's count, 0 where
// its convergence is known and none stopped so, empty where unknown.
func stationaryCell(r *Row) string {
	if r.UnconvergedFits == nil {
		return ""
	}
	return strconv.Itoa(r.Stationary())
}

func csvInt(x []int, i int) string {
	if i < len(x) {
		return strconv.Itoa(x[i])
	}
	return ""
}

// FitsCSVHeader is the header of [WriteFitsCSV] for a run whose rows
// have one rank each.
var FitsCSVHeader = []string{"row", "label", "method", "mode", "split", "fold", "task_id", "kind",
	"beta_index", "beta", "beta_multiple", "min_beta", "chosen", "val_accuracy", "test_accuracy",
	"objective", "gap", "iterations", "converged", "status", "solver", "zero_model", "task_seconds", "task_cpu_seconds", "task_process_cpu_seconds"}

// rankColumn is where the rank column goes in fits.csv (before chosen):
// present when a row of the run lists several ranks (FitsCSVColumns).
const rankColumn = 12

// FitsCSVColumns is the header of [WriteFitsCSV] for summary s:
// FitsCSVHeader, with a rank column after min_beta when a row lists
// several ranks (Row.Ranks).
func FitsCSVColumns(s *Summary) []string {
	if !s.choosesRanks() {
		return FitsCSVHeader
	}
	return slices.Insert(slices.Clone(FitsCSVHeader), rankColumn, "rank")
}

// choosesRanks reports whether a row of s lists several ranks.
func (s *Summary) choosesRanks() bool {
	return slices.ContainsFunc(s.Rows, func(r Row) bool { return len(r.Ranks) > 0 })
}

// fitTasks returns the tasks that fit models (ok cv tasks and refits) in
// fits.csv's order: by row, split, kind (cv before refit), fold and ID.
func fitTasks(tasks []TaskResult) []*TaskResult {
	var ts []*TaskResult
	for i := range tasks {
		t := &tasks[i]
		if t.Status == "ok" && (t.Kind == KindCV || t.Kind == KindRefit) {
			ts = append(ts, t)
		}
	}
	sort.SliceStable(ts, func(i, j int) bool {
		a, b := ts[i], ts[j]
		if a.Row != b.Row {
			return a.Row < b.Row
		}
		if a.Split != b.Split {
			return a.Split < b.Split
		}
		if a.Kind != b.Kind {
			return a.Kind == KindCV
		}
		if a.Fold != b.Fold {
			return a.Fold < b.Fold
		}
		return a.ID < b.ID
	})
	return ts
}

// WriteFitsCSV writes every solver fit of the run's tasks as tidy long-form
// CSV (fits.csv): one line per cv task × β of the grid (a cv task is one
// inner fold of one outer split, and for a row of several ranks one rank)
// and one per refit, ordered by row, split, kind (cv before refit), fold
// and β. Native tasks fit nothing and are left out (table.csv holds their
// accuracy); so are failed tasks. Row labels and the chosen β (and rank)
// come from the summary. See results/README.md for every column.
func WriteFitsCSV(w io.Writer, s *Summary, tasks []TaskResult) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(FitsCSVColumns(s)); err != nil {
		return err
	}
	ranks := s.choosesRanks()
	for _, t := range fitTasks(tasks) {
		var row *Row
		if t.Row >= 0 && t.Row < len(s.Rows) {
			row = &s.Rows[t.Row]
		}
		n := max(len(t.Betas), len(t.Gaps), len(t.Iterations), len(t.Objectives), len(t.Converged))
		if t.Kind == KindRefit {
			n = max(n, 1)
		}
		for b := range n {
			line := fitLine(s, row, t, b)
			if ranks {
				line = slices.Insert(line, rankColumn, fitRank(t))
			}
			if err := cw.Write(line); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// fitRank is the rank cell of task t's lines: a cv task's rank, or the
// rank a refit chose; empty for a task of a row of one rank.
func fitRank(t *TaskResult) string {
	switch {
	case t.Kind == KindCV && t.Rank != nil:
		return strconv.Itoa(*t.Rank)
	case t.Kind == KindRefit && t.ChosenRank != nil:
		return strconv.Itoa(*t.ChosenRank)
	}
	return ""
}

// fitLine is fits.csv's line (FitsCSVHeader) of fit b of task t of
// summary row row (nil if the summary lacks it).
func fitLine(s *Summary, row *Row, t *TaskResult, b int) []string {
	label, method, mode := "", "", ""
	// chosenMult is the grid value the split's refit chose (a multiple of
	// β_min for a relative grid), NaN if unknown.
	chosenMult := math.NaN()
	if row != nil {
		label, method, mode = row.Label, row.Method, row.Mode
		if s.BetaRelative {
			chosenMult = at(row.BetaMultiple, t.Split)
		} else {
			chosenMult = at(row.Beta, t.Split)
		}
		if t.Kind == KindCV && t.Split < len(row.Rank) && (t.Rank == nil || *t.Rank != row.Rank[t.Split]) {
			chosenMult = math.Inf(1) // another rank's sweep: none of its β is chosen
		}
	}
	fold := ""
	if t.Kind == KindCV {
		fold = strconv.Itoa(t.Fold)
	}
	var beta, mult, minBeta, val, test float64 = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
	betaIndex, chosen := "", ""
	if s.BetaRelative && t.MinBeta != 0 {
		minBeta = t.MinBeta
	}
	switch t.Kind {
	case KindCV:
		beta, val = at(t.Betas, b), at(t.ValAccuracy, b)
		betaIndex = strconv.Itoa(b)
		if s.BetaRelative {
			mult = at(s.BetaGrid, b)
		}
		g := at(s.BetaGrid, b)
		if !math.IsNaN(chosenMult) && !math.IsNaN(g) {
			chosen = strconv.FormatBool(g == chosenMult)
		}
	case KindRefit:
		beta, test = t.Beta, t.TestAccuracy
		g := beta
		if s.BetaRelative {
			mult = t.BetaMultiple
			g = mult
		}
		for i, v := range s.BetaGrid {
			if v == g {
				betaIndex = strconv.Itoa(i)
			}
		}
		chosen = "true"
	}
	conv, status, solver, zero := "", "", "", ""
	if b < len(t.Converged) {
		conv = strconv.FormatBool(t.Converged[b])
	}
	if b < len(t.FitStatus) {
		status = t.FitStatus[b]
	}
	if b < len(t.FitSolver) {
		solver = t.FitSolver[b]
	}
	if b < len(t.ZeroModel) {
		zero = strconv.FormatBool(t.ZeroModel[b])
	}
	iters := ""
	if b < len(t.Iterations) {
		iters = strconv.Itoa(t.Iterations[b])
	}
	return []string{strconv.Itoa(t.Row), label, method, mode, strconv.Itoa(t.Split), fold, t.ID, t.Kind,
		betaIndex, csvFloat(beta), csvFloat(mult), csvFloat(minBeta), chosen, csvFloat(val), csvFloat(test),
		csvFloat(at(t.Objectives, b)), csvFloat(at(t.Gaps, b)), iters, conv, status, solver, zero, csvFloat(t.Seconds),
		csvFloatPtr(t.CPUSeconds), csvFloatPtr(t.ProcessCPUSeconds)}
}
