package constraint

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/data"
)

// Step names accepted by [Run] and [ParseSteps].
const (
	StepDedup      = "dedup"      // [Dedup]
	StepLength2    = "length2"    // [Length2]
	StepVote       = "vote"       // [Vote]
	StepDegenerate = "degenerate" // [Degenerate]
	StepAcyclic    = "acyclic"    // [Acyclic]
	StepReduce     = "reduce"     // [Reduce]
)

// Steps lists the step names in a sensible order of application.
var Steps = []string{StepDedup, StepLength2, StepVote, StepDegenerate, StepAcyclic, StepReduce}

// PaperSteps is the "Processed" pipeline of McFee & Lanckriet (2011,
// Sec. 5.2.4, Table 5): length-2 pruning, a maximal acyclic subset and the
// transitive reduction, after dropping exact repeats.
var PaperSteps = []string{StepDedup, StepLength2, StepAcyclic, StepReduce}

// StepReport is what one step of [Run] did.
type StepReport struct {
	Step    string `json:"step"`
	In      int    `json:"in"`
	Removed int    `json:"removed"`
	Out     int    `json:"out"`
	// RemovedComparisons are the comparisons the step removed, in the order
	// of its input.
	RemovedComparisons []data.Comparison `json:"-"`
}

// ParseSteps splits a comma-separated list of step names ("dedup,reduce")
// and checks each name, case aside, returning its spelling in [Steps].
// Spaces around names are ignored; an empty string
// gives no steps. It returns an error naming an unknown or empty entry.
func ParseSteps(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var steps []string
	for i, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		j := slices.IndexFunc(Steps, func(step string) bool { return strings.EqualFold(step, f) })
		if j < 0 {
			return nil, fmt.Errorf("constraint: step %d of %q must be one of %s, got %q", i+1, s, strings.Join(Steps, ", "), f)
		}
		steps = append(steps, Steps[j])
	}
	return steps, nil
}

// Run applies steps to cs in order and returns the comparisons left and one
// report per step. The acyclic steps draw their random orders from one
// generator, rand.New(rand.NewPCG(seed, seed)), so a seed fixes the result.
// cs is not modified. Run returns an error for an unknown step, if cs fails
// [Validate], or the error of a step (a *[CycleError] from reduce on a cyclic
// set), wrapped with the step name.
func Run(cs []data.Comparison, steps []string, seed uint64) ([]data.Comparison, []StepReport, error) {
	if err := Validate(cs); err != nil {
		return nil, nil, err
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	cur := cs
	reports := make([]StepReport, 0, len(steps))
	for _, step := range steps {
		var kept, removed []data.Comparison
		var err error
		switch step {
		case StepDedup:
			kept, removed, err = Dedup(cur)
		case StepLength2:
			kept, removed, err = Length2(cur)
		case StepVote:
			kept, removed, err = Vote(cur)
		case StepDegenerate:
			kept, removed, err = Degenerate(cur)
		case StepAcyclic:
			kept, removed, err = Acyclic(cur, rng)
		case StepReduce:
			kept, removed, err = Reduce(cur)
		default:
			return nil, nil, fmt.Errorf("constraint: step must be one of %s, got %q", strings.Join(Steps, ", "), step)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%w (in step %s)", err, step)
		}
		reports = append(reports, StepReport{Step: step, In: len(cur), Removed: len(removed), Out: len(kept), RemovedComparisons: removed})
		cur = kept
	}
	if len(steps) == 0 {
		cur = slices.Clone(cs)
	}
	return cur, reports, nil
}
