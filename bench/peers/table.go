package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
)

// row is one line of the results table: one method on one size, over the
// repetitions.
type row struct {
	Size     size
	Method   string
	Seconds  []float64 // wall time per repetition (mkpoe: CV and refit)
	Refit    []float64 // mkpoe only: the refit's own seconds per repetition
	Accuracy []float64 // held-out accuracy per repetition
	Rank     string    // mkpoe: model rank; cblearn: d
	Gap      string    // mkpoe: the refit's relative gap; cblearn: "—"
	Note     string    // set when the method failed or was skipped
	// Betas is mkpoe's chosen β per repetition, with its multiple of β_min.
	Betas []string
	// Certs counts mkpoe's certified fits (nil for cblearn); Bounded says
	// the row's fits are rank-bounded, whose "certified" means stationary,
	// and Mixed that they are of both kinds.
	Certs          *certCount
	Bounded, Mixed bool
	// Set names a crowd set ("" for a planted one), whose Train training
	// and Test held-out comparisons the table and the summary show; Choice
	// marks the row of the CV's choice among ranks.
	Set         string
	Train, Test int
	Choice      bool
	// PeerCV marks the row of cblearn's CV choice (-peer-cv), and Chosen
	// lists its distinct chosen settings over the repetitions.
	PeerCV bool
	Chosen []string
}

// setCell is the table's first cell: n × training triplets, after the
// set's name for a crowd set.
func (r row) setCell() string {
	if r.Set == "" {
		return fmt.Sprintf("%d × %d", r.Size.N, r.Size.Triplets*8/10)
	}
	return fmt.Sprintf("%s: %d × %d", r.Set, r.Size.N, r.Train)
}

// median returns the median of xs (NaN for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// mean returns the mean of xs (NaN for none).
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// formatSeconds prints a duration in seconds with three significant digits.
func formatSeconds(s float64) string {
	switch {
	case s < 10:
		return fmt.Sprintf("%.2f s", s)
	case s < 100:
		return fmt.Sprintf("%.1f s", s)
	}
	return fmt.Sprintf("%.0f s", s)
}

// timeCell is the median time over the repetitions, the range when there
// are several, and the median refit time for mkpoe.
func (r row) timeCell() string {
	if r.Note != "" {
		return r.Note
	}
	c := formatSeconds(median(r.Seconds))
	if len(r.Seconds) > 1 {
		s := append([]float64(nil), r.Seconds...)
		sort.Float64s(s)
		c += fmt.Sprintf(" (%s–%s)", strings.TrimSuffix(formatSeconds(s[0]), " s"), formatSeconds(s[len(s)-1]))
	}
	return c
}

// refitCell is mkpoe's median refit time.
func (r row) refitCell() string {
	if len(r.Refit) == 0 {
		return "—"
	}
	return formatSeconds(median(r.Refit))
}

// accuracyCell is the mean held-out accuracy.
func (r row) accuracyCell() string {
	if len(r.Accuracy) == 0 {
		return "—"
	}
	return fmt.Sprintf("%.4f", mean(r.Accuracy))
}

// betaCell lists the distinct chosen β (with their multiples of β_min)
// over the repetitions.
func (r row) betaCell() string {
	var out []string
	for _, b := range r.Betas {
		if !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return orDash(strings.Join(out, "; "))
}

// betaText is one chosen β with its multiple of β_min.
func betaText(beta, multiple float64) string {
	return fmt.Sprintf("%.4g (%g×)", beta, multiple)
}

// certCell says how many of the CV fits and refits were certified
// (rank-bounded rows: stationary) and the worst gap among the convex ones,
// and says so in words when one was not.
func (r row) certCell() string {
	c := r.Certs
	if c == nil {
		return "—"
	}
	word := "certified"
	switch {
	case r.Bounded:
		word = "stationary"
	case r.Mixed:
		word = "certified (convex) or stationary (rank ≤ d)"
	}
	s := fmt.Sprintf("%d/%d CV + %d/%d refit %s", c.CVOK, c.CVFits, c.RefitOK, c.Refits, word)
	if c.CVOK < c.CVFits || c.RefitOK < c.Refits {
		s += fmt.Sprintf(", **%d not %s**", c.CVFits-c.CVOK+c.Refits-c.RefitOK, word)
	}
	if r.Bounded {
		return s
	}
	return s + fmt.Sprintf(", worst convex gap %.1e", c.Worst)
}

// writeTable writes rows as a Markdown table.
func writeTable(w io.Writer, rows []row) error {
	var b strings.Builder
	b.WriteString("| n × train triplets | method | β (× β_min) | time (mkpoe: CV + refit) | refit | held-out accuracy | rank / d | fits certified | refit gap |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.setCell(), r.Method, r.betaCell(), r.timeCell(), r.refitCell(), r.accuracyCell(), orDash(r.Rank), r.certCell(), orDash(r.Gap))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// orDash returns s, or "—" when s is empty.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
