package experiments

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// A run reuses every finished task whose numbers cannot change
// (docs/configs.md, "What a rerun reuses"):
//
//   - a native task, whenever its row's inputs are unchanged: the β grid
//     is not one of them;
//   - a cv task only under the same β grid: its sweep fits the grid in
//     order, each fit warm-started from the one before (cv.Sweep), so a
//     fit depends on every β before it, and a new β after the last needs
//     the last fit's model, which the task file does not keep;
//   - a refit whenever its row's inputs are unchanged and its split's cv
//     tasks choose the same β again: it fits cold at that β, so the grid
//     matters only through the choice.

// read returns task t's result if it is current: the file is t's, was
// computed from t's inputs and, for a refit that finished, was fitted at
// the β its split's current cv tasks choose. Otherwise nil and why (a
// stale file: what changed, as explainStale says).
func (s *store) read(t results.Task) (*results.TaskResult, string) {
	r, why := readTaskFile(s.dir, t)
	if r == nil {
		if raw := rawTask(s.dir, t.ID); raw != nil && strings.HasPrefix(why, "stale") {
			if cut := s.truncated(t, raw); cut != nil {
				return cut, ""
			}
			why = s.explainStale(t, raw)
		}
		return nil, why
	}
	if t.Kind == KindRefit && r.Status == "ok" {
		if why := s.refitStale(t, r); why != "" {
			return nil, why
		}
	}
	return r, ""
}

// rawTask reads task id's file whatever its inputs; nil if it has none
// that reads.
func rawTask(dir, id string) *results.TaskResult {
	r, _ := readTaskFile(dir, results.Task{ID: id, Inputs: anyInputs})
	return r
}

// anyInputs, as a task's Inputs, makes readTaskFile accept a file of any
// inputs digest.
const anyInputs = "*"

// refitStale says why refit r of task t is not current although its
// inputs are ("" if it is): its split's cv tasks are not all done, or
// choose another β (or, for a row of several ranks, another rank) than
// r's.
func (s *store) refitStale(t results.Task, r *results.TaskResult) string {
	had := refitChoice(s.c, t, r)
	rank, beta, err := chooseRankBeta(s.c, s, t)
	if err != nil {
		return fmt.Sprintf("stale until its split's cv tasks are done: reused if they choose %s again", had)
	}
	if now := choiceText(s.c, t, rank, beta); now != had {
		return fmt.Sprintf("stale: its split's cv tasks now choose %s, it was fitted at %s", now, had)
	}
	return ""
}

// refitChoice is what refit r of task t was fitted at, as choiceText
// writes it ("rank ?" for a file of a row of several ranks that lacks its
// rank).
func refitChoice(c *Config, t results.Task, r *results.TaskResult) string {
	if !c.Rows[t.Row].Rank.many() {
		return choiceText(c, t, 0, refitBeta(c, r))
	}
	if r.ChosenRank == nil {
		return fmt.Sprintf("β=%s, rank ?", fmtBeta(refitBeta(c, r)))
	}
	return choiceText(c, t, *r.ChosenRank, refitBeta(c, r))
}

// choiceText is a refit's β as the grid writes it and, for a row of
// several ranks, its rank: "β=100" or "β=100, rank 5".
func choiceText(c *Config, t results.Task, rank int, beta float64) string {
	if !c.Rows[t.Row].Rank.many() {
		return "β=" + fmtBeta(beta)
	}
	return fmt.Sprintf("β=%s, %s", fmtBeta(beta), results.RankText(rank))
}

// refitBeta is the β a refit was fitted at, as the grid writes it: a
// multiple of β_min for a relative grid.
func refitBeta(c *Config, r *results.TaskResult) float64 {
	if c.BetaGrid.Relative {
		return r.BetaMultiple
	}
	return r.Beta
}

// explainStale says why r, the file of task t computed from other
// inputs, is not reused: for a cv task of the same row inputs under
// another β grid, which β first differs and why the fits from there on
// can change; otherwise that it was computed from other inputs.
func (s *store) explainStale(t results.Task, r *results.TaskResult) string {
	old, ok := s.oldGrid(t, r)
	if !ok {
		return fmt.Sprintf("stale (computed from other inputs, digest %s)", r.Inputs)
	}
	return "stale: " + gridChange(old, s.c.BetaGrid.Values)
}

// oldGrid returns the β grid (for a relative grid, the multiples) that
// cv result r of task t swept, and whether r was computed from t's row
// inputs under that grid: then only the grid changed.
func (s *store) oldGrid(t results.Task, r *results.TaskResult) ([]float64, bool) {
	if t.Kind != KindCV || r.Status != "ok" || len(r.Betas) == 0 {
		return nil, false
	}
	old := r.Betas // the β values fitted, in sweep order
	grid := s.c.BetaGrid.Values
	if s.c.BetaGrid.Relative {
		// The multiples the file was fitted at: each β is m·β_min for a
		// multiple m of the file's grid (exact where m is in this grid).
		old = make([]float64, len(r.Betas))
		for i, b := range r.Betas {
			old[i] = b / r.MinBeta
			for _, m := range grid {
				if m*r.MinBeta == b {
					old[i] = m
				}
			}
		}
	}
	return old, cvInputs(t.Inputs, s.c.rowInputsWithGrid(taskRow(s.c, t), old, s.c.BetaGrid.Relative)) == r.Inputs
}

// truncated returns cv result r of task t cut to the current grid when
// that grid is the start of the one r swept: its fits are the sweep's
// first ones, which the βs after them cannot change. nil otherwise. Its
// seconds stay those of the whole sweep.
func (s *store) truncated(t results.Task, r *results.TaskResult) *results.TaskResult {
	old, ok := s.oldGrid(t, r)
	n := len(s.c.BetaGrid.Values)
	if !ok || n >= len(old) || !slices.Equal(old[:n], s.c.BetaGrid.Values) {
		return nil
	}
	cut := *r
	cut.Inputs = t.Inputs
	cut.Betas, cut.ValAccuracy, cut.Objectives = r.Betas[:n], prefix(r.ValAccuracy, n), prefix(r.Objectives, n)
	cut.Iterations, cut.Gaps, cut.Converged, cut.ZeroModel = prefix(r.Iterations, n), prefix(r.Gaps, n), prefix(r.Converged, n), prefix(r.ZeroModel, n)
	cut.FitStatus, cut.FitSolver = prefix(r.FitStatus, n), prefix(r.FitSolver, n)
	return &cut
}

// prefix is the first n elements of x, or x if it has fewer (a field
// an older task file lacks).
func prefix[T any](x []T, n int) []T {
	if len(x) < n {
		return x
	}
	return slices.Clip(x[:n])
}

// gridChange says how the sweep over grid differs from the one over old
// (both in sweep order) and why its fits from there on can change.
func gridChange(old, grid []float64) string {
	k := 0
	for k < len(old) && k < len(grid) && old[k] == grid[k] {
		k++
	}
	switch {
	case k == len(old) && k < len(grid):
		return fmt.Sprintf("β=%s new after β=%s, whose fit it warm-starts from and the task file does not keep: the sweep reruns from β=%s",
			fmtBetas(grid[k:]), fmtBeta(old[k-1]), fmtBeta(grid[0]))
	case k == len(grid):
		return fmt.Sprintf("the grid now ends at β=%s, before β=%s", fmtBeta(grid[k-1]), fmtBetas(old[k:]))
	case k == 0:
		return fmt.Sprintf("the sweep now starts at β=%s, where it started at β=%s: every fit warm-starts from a changed fit", fmtBeta(grid[0]), fmtBeta(old[0]))
	}
	return fmt.Sprintf("β=%s follows β=%s where β=%s did: the fits from there on warm-start from a changed fit, and the sweep reruns from β=%s",
		fmtBeta(grid[k]), fmtBeta(grid[k-1]), fmtBeta(old[k]), fmtBeta(grid[0]))
}

func fmtBeta(b float64) string { return strconv.FormatFloat(b, 'g', -1, 64) }

func fmtBetas(bs []float64) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = fmtBeta(b)
	}
	return strings.Join(parts, ", ")
}

// taskWhere names a task for people: its row's label, split and fold.
func taskWhere(c *Config, t results.Task) string {
	w := fmt.Sprintf("%s, split %d", c.Rows[t.Row].Label, t.Split)
	if t.Kind == KindCV {
		w += fmt.Sprintf(", fold %d", t.Fold)
	}
	return w
}

// reportReruns says on log, for every task of todo that has a result file
// which is not reused, why it reruns (store.read); tasks without a file
// run for the first time and are not listed.
func reportReruns(st *store, todo []results.Task, log io.Writer) {
	for _, t := range todo {
		r, why := st.read(t)
		if r != nil && r.Status != "ok" {
			why = "failed: " + r.Error
		}
		if why == "no result" || (r != nil && r.Status == "ok") {
			continue
		}
		fmt.Fprintf(log, "rerun %s (%s): %s\n", t.ID, taskWhere(st.c, t), strings.TrimPrefix(why, "stale: "))
	}
}

// saveTruncated rewrites the cv task files of plan that store.read cuts
// to the current β grid (store.truncated) as their cut form, so that the
// run directory's files are what its summary is made of, and says so on
// log.
func saveTruncated(st *store, plan []results.Task, log io.Writer) error {
	n := 0
	for _, t := range plan {
		if t.Kind != KindCV {
			continue
		}
		raw := rawTask(st.dir, t.ID)
		if raw == nil || raw.Inputs == t.Inputs {
			continue
		}
		if cut := st.truncated(t, raw); cut != nil {
			if err := st.save(*cut); err != nil {
				return err
			}
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(log, "kept the first %d fits of %d cv tasks: the β grid is now the start of the one they swept, whose later βs cannot change them\n", len(st.c.BetaGrid.Values), n)
	}
	return nil
}
