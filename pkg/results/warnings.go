package results

import (
	"fmt"
	"math"
	"strings"
)

// Warnings lists what a reader of the summary's table must know before
// trusting it, in row order, one sentence each:
//
//   - a row whose accuracy is NaN on some outer splits: no held-out
//     comparison could be scored there (every test comparison involved an
//     item missing from a kernel, or the split had none), so the row's mean
//     is NaN;
//   - a column of the table (a method and mode) whose every row is NaN,
//     said once for the column instead of once per row;
//   - a learned row whose β was chosen at the smallest or the largest value
//     of the grid (of at least 3 values) on some splits: the best β may lie
//     beyond the grid.
//
// It is empty for a summary whose every number is defined.
func (s *Summary) Warnings() []string {
	type column struct{ method, mode string }
	colRows := map[column][]int{}
	var order []column
	for i, r := range s.Rows {
		c := column{r.Method, r.Mode}
		if _, ok := colRows[c]; !ok {
			order = append(order, c)
		}
		colRows[c] = append(colRows[c], i)
	}
	nanSplits := func(r *Row) []string {
		var out []string
		for sp, v := range r.Accuracy {
			if math.IsNaN(v) {
				out = append(out, fmt.Sprint(sp))
			}
		}
		return out
	}
	var out []string
	whole := map[column]bool{}
	for _, c := range order {
		all := true
		for _, i := range colRows[c] {
			all = all && len(s.Rows[i].Accuracy) > 0 && len(nanSplits(&s.Rows[i])) == len(s.Rows[i].Accuracy)
		}
		if all {
			whole[c] = true
			name := strings.TrimSpace(c.method + " " + c.mode)
			out = append(out, fmt.Sprintf("column %s: every row's accuracy is NaN on every split (no held-out comparison could be scored); the column holds no result", name))
		}
	}
	for i := range s.Rows {
		r := &s.Rows[i]
		if whole[column{r.Method, r.Mode}] {
			continue
		}
		if sp := nanSplits(r); len(sp) > 0 {
			out = append(out, fmt.Sprintf("row %q: accuracy is NaN on split(s) %s (no held-out comparison could be scored there), so its mean is NaN", r.Label, strings.Join(sp, ", ")))
		}
	}
	if g := s.BetaGrid; len(g) >= 3 { // on a grid of 1 or 2 values every β is an edge
		for i := range s.Rows {
			r := &s.Rows[i]
			for _, edge := range []struct {
				beta      float64
				where, to string
			}{{g[0], "smallest", "below"}, {g[len(g)-1], "largest", "above"}} {
				var at []string
				chosen := r.Beta
				if s.BetaRelative {
					chosen = r.BetaMultiple
				}
				for sp, b := range chosen {
					if b == edge.beta {
						at = append(at, fmt.Sprint(sp))
					}
				}
				if len(at) > 0 {
					out = append(out, fmt.Sprintf("row %q: β chosen at the %s value of the grid (%g) on split(s) %s: the best β may lie %s it; extend beta_grid to know", r.Label, edge.where, edge.beta, strings.Join(at, ", "), edge.to))
				}
			}
		}
	}
	return out
}
