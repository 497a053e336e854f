package results

import (
	"fmt"
	"math"
	"strings"
)

// FitGap is one fit of a task that did not converge: its β and the
// certified relative gap it stopped at.
type FitGap struct {
	Beta float64 `json:"beta"`
	Gap  float64 `json:"gap"`
}

// Convergence describes the fits of a task: how many there were, which did
// not reach the solver's tolerance, and the largest certified gap. known is
// false for a task file that predates the converged field (it has fits but
// no record of their convergence).
func (r *TaskResult) Convergence() (fits int, unconverged []FitGap, maxGap float64, known bool) {
	fits = len(r.Objectives)
	if len(r.Converged) != fits {
		return fits, nil, math.NaN(), false
	}
	maxGap = math.NaN()
	for i, ok := range r.Converged {
		gap := math.NaN()
		if i < len(r.Gaps) {
			gap = r.Gaps[i]
		}
		if !math.IsNaN(gap) && !(gap <= maxGap) {
			maxGap = gap
		}
		if ok {
			continue
		}
		beta := r.Beta
		if i < len(r.Betas) {
			beta = r.Betas[i]
		}
		unconverged = append(unconverged, FitGap{Beta: beta, Gap: gap})
	}
	return fits, unconverged, maxGap, true
}

// StationaryFits counts the fits of a task that converged without
// certifying tol: fixed-rank fits stopped at a stationary point, or the
// subgradient method's stall (FitStatus "stationary"). They are not among Convergence's unconverged
// fits, and not certified. A task file written before FitStatus was
// recorded counts its converged fits whose gap is above tol, which can only
// have stopped so.
func (r *TaskResult) StationaryFits(tol float64) int { return len(r.stationary(tol)) }

// stationary lists the indices of StationaryFits' fits.
func (r *TaskResult) stationary(tol float64) []int {
	var out []int
	if len(r.FitStatus) > 0 {
		for i, s := range r.FitStatus {
			if s == StatusStationary {
				out = append(out, i)
			}
		}
		return out
	}
	for i, ok := range r.Converged {
		if ok && i < len(r.Gaps) && r.Gaps[i] > tol {
			out = append(out, i)
		}
	}
	return out
}

// StationaryNote describes a task's stationary fits for people, e.g.
// "stationary, not certified (2 of 2 fits, max gap
// 4.3e-01)", or returns "" if there are none.
func (r *TaskResult) StationaryNote(tol float64) string {
	idx := r.stationary(tol)
	if len(idx) == 0 {
		return ""
	}
	maxGap := math.NaN()
	for _, i := range idx {
		if i < len(r.Gaps) && !(r.Gaps[i] <= maxGap) {
			maxGap = r.Gaps[i]
		}
	}
	return fmt.Sprintf("stationary, not certified (%d of %d fits, max gap %s)", len(idx), len(r.Objectives), FormatGap(maxGap))
}

// StatusStationary is the FitStatus of a fit that converged at a
// stationary point without certifying solver.tol (mkpoe.StatusStationary).
const StatusStationary = "stationary"

// NotConvergedNote describes a task's unconverged fits for people, e.g.
// "not converged (gap 2.3e-02 at β=10; 1 of 2 fits above tol 0.01)", or
// returns "" if every fit converged (or nothing is known).
func (r *TaskResult) NotConvergedNote(tol float64) string {
	fits, bad, _, known := r.Convergence()
	if !known || len(bad) == 0 {
		return ""
	}
	var parts []string
	if len(bad) <= 3 {
		for _, fg := range bad {
			parts = append(parts, fmt.Sprintf("gap %s at β=%g", FormatGap(fg.Gap), fg.Beta))
		}
	} else { // a long sweep: the worst fit only
		worst := bad[0]
		for _, fg := range bad[1:] {
			if fg.Gap > worst.Gap {
				worst = fg
			}
		}
		parts = append(parts, fmt.Sprintf("max gap %s at β=%g", FormatGap(worst.Gap), worst.Beta))
	}
	return fmt.Sprintf("not converged (%s; %d of %d fits above tol %g)", strings.Join(parts, ", "), len(bad), fits, tol)
}

// FormatGap prints a relative gap with two significant digits.
func FormatGap(g float64) string {
	if math.IsNaN(g) {
		return "unknown"
	}
	return fmt.Sprintf("%.1e", g)
}
