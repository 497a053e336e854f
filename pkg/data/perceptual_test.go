package data

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// tinyLayout: 2 practice triplets over stimuli 0..2, then 4 palette
// triplets over items 3..6 (palette items 0..3).
var tinyLayout = PerceptualLayout{Fields: 18, PracticeTriplets: 2, PracticeStimuli: 3, Items: 4}

func TestReadPerceptual(t *testing.T) {
	in := "0,1,2, 2,2,1, 3,4,5, 6,6,4, 5,3,6, 4,5,4\n" +
		"\n" +
		"1,0,2,0,0,1,4,6,3,3,5,4,5,5,6,6,3,3\n"
	p, err := ReadPerceptual(strings.NewReader(in), "p.txt", &tinyLayout)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]Comparison{
		{Triplet(0, 1, 2), Triplet(2, 0, 3)},
		{Triplet(1, 3, 0), Triplet(0, 2, 1)},
	}
	if !reflect.DeepEqual(p.Subjects, want) {
		t.Errorf("subjects %v, want %v", p.Subjects, want)
	}
	// Catch trials: (6,6,4) and (5,5,6) passed; (4,5,4) and (6,3,3) failed.
	if p.CatchPassed != 2 || p.CatchFailed != 2 || p.N() != 4 {
		t.Errorf("catch %d passed, %d failed, N %d; want 2, 2, 4", p.CatchPassed, p.CatchFailed, p.N())
	}
	if got := p.Triplets(); !reflect.DeepEqual(got, append(append([]Comparison(nil), want[0]...), want[1]...)) {
		t.Errorf("Triplets() = %v", got)
	}
}

// TestReadPerceptualErrors: each rule's error names the file, the line,
// the field, the rule and the value.
func TestReadPerceptualErrors(t *testing.T) {
	good := "0,1,2,2,0,1,3,4,5,6,6,4,5,3,6,4,5,4"
	tests := []struct {
		in, want string
	}{
		{"", "p.txt: no subjects"},
		{good + ",1\n", "p.txt:1: every subject's line must hold 18 integers, as the first does, got 19"},
		{good + "\n0,1\n", "p.txt:2: every subject's line must hold 18 integers, as the first does, got 2"},
		{strings.Replace(good, "0,1,2", "0,x,2", 1), `p.txt:1:2: must be an integer, got "x"`},
		{strings.Replace(good, "0,1,2", "0,3,2", 1), "p.txt:1:2: a practice triplet's index (triplet 1) must be in [0,3), got 3"},
		{strings.Replace(good, "3,4,5", "3,2,5", 1), "p.txt:1:8: a palette triplet's index (triplet 3) must be in [3,7), got 2"},
		{strings.Replace(good, "3,4,5", "3,4,7", 1), "p.txt:1:9: a palette triplet's index (triplet 3) must be in [3,7), got 7"},
		{good + "\n" + strings.Replace(good, "3,4,5", "3,4,-1", 1), "p.txt:2:9: a palette triplet's index (triplet 3) must be in [3,7), got -1"},
	}
	for _, tc := range tests {
		_, err := ReadPerceptual(strings.NewReader(tc.in), "p.txt", &tinyLayout)
		var fe *FileError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want a *FileError containing %q", tc.in, err, tc.want)
		}
	}
	if _, err := ReadPerceptual(strings.NewReader(good), "p.txt", &PerceptualLayout{Fields: 17, Items: 4}); err == nil || !strings.Contains(err.Error(), "invalid perceptual layout") {
		t.Errorf("a layout of 17 fields: %v", err)
	}
}

// univariateLine is one subject's line in the published univariate layout:
// the 8 practice triplets (0,1,2) and the 130 palette triplets, first all
// (p, q, r) = (4+i, 4+j, 4+k) for i < j < k, then catch trials, the first
// failed.
func univariateLine() string {
	var v []string
	for range 8 {
		v = append(v, "0", "1", "2")
	}
	for i := 0; i < 10; i++ {
		for j := i + 1; j < 10; j++ {
			for k := j + 1; k < 10; k++ {
				v = append(v, fmt.Sprint(4+i), fmt.Sprint(4+j), fmt.Sprint(4+k))
			}
		}
	}
	v = append(v, "4", "5", "4")
	for i := 1; i < 10; i++ {
		v = append(v, fmt.Sprint(4+i), fmt.Sprint(4+i), "4")
	}
	return strings.Join(v, ",")
}

// TestReadPerceptualFileLayouts: the layout is told by the first line's
// number of fields, 414 (10 items) here; any other count is refused.
func TestReadPerceptualFileLayouts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "color-tm.txt")
	line := univariateLine()
	if err := os.WriteFile(path, []byte(line+"\n"+line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := ReadPerceptualFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Layout != PerceptualLayouts[0] || len(p.Subjects) != 2 || len(p.Subjects[0]) != 120 || p.CatchPassed != 18 || p.CatchFailed != 2 {
		t.Errorf("layout %+v, %d subjects, %d triplets, catch %d/%d", p.Layout, len(p.Subjects), len(p.Subjects[0]), p.CatchPassed, p.CatchFailed)
	}
	if got, want := p.Subjects[0][119], Triplet(7, 8, 9); got != want {
		t.Errorf("last palette triplet %v, want %v", got, want)
	}
	if err := os.WriteFile(path, []byte("0,1,2,3,4,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPerceptualFile(path); err == nil || !strings.Contains(err.Error(), "color-tm.txt:1: a subject's line must hold 414 (10 items) or 1782 (16 items) integers, got 6") {
		t.Errorf("6 fields: %v", err)
	}
}

// TestReadPerceptualFetched reads the real files when they have been
// fetched (scripts/fetch_perceptual_kernels.sh): 20 subjects each, 2400
// triplets over 10 items or 11200 over 16, 200 catch trials.
func TestReadPerceptualFetched(t *testing.T) {
	dir := filepath.Join("..", "..", "data", PerceptualDir)
	if _, err := os.Stat(filepath.Join(dir, "color-tm.txt")); err != nil {
		t.Skip("perceptual-kernel set not fetched (scripts/fetch_perceptual_kernels.sh)")
	}
	for i, pal := range PerceptualPalettes {
		for _, task := range PerceptualTasks {
			p, err := ReadPerceptualFile(filepath.Join(dir, pal+"-"+task+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			n, m := 10, 2400
			if i >= 3 {
				n, m = 16, 11200
			}
			if p.N() != n || len(p.Subjects) != 20 || len(p.Triplets()) != m || p.CatchPassed+p.CatchFailed != 200 {
				t.Errorf("%s-%s: N %d, %d subjects, %d triplets, %d catch trials", pal, task, p.N(), len(p.Subjects), len(p.Triplets()), p.CatchPassed+p.CatchFailed)
			}
		}
	}
}
