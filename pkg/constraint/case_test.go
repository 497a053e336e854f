package constraint

import (
	"slices"
	"testing"
)

// TestParseStepsCaseAside: step names are read case aside and returned as
// Steps spells them.
func TestParseStepsCaseAside(t *testing.T) {
	got, err := ParseSteps("Dedup, LENGTH2,acyclic ,Reduce")
	if want := []string{StepDedup, StepLength2, StepAcyclic, StepReduce}; err != nil || !slices.Equal(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
	if _, err := ParseSteps("dedup,sort"); err == nil {
		t.Error(`"dedup,sort": want an error`)
	}
}
