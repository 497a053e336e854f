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
//     said once for the column instead of once per row.
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
	return out
}
