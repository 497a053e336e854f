package data

import (
	"fmt"
	"io"
	"os"
	"strconv"
)

// The perceptual-kernel triplet sets (Demiralp, Bernstein & Heer,
// "Learning Perceptual Kernels for Visualization Design", InfoVis 2014):
// for each of six palettes (color, shape, size and the pairs shapecolor,
// shapesize, sizecolor) and two triplet tasks (tm: matching, td:
// discrimination), one file data/raw/<palette>-<task>.txt of 20 lines, one
// per subject, each a comma-separated list of that subject's triplets
// i,j,k in the order answered: "x_i is more similar to x_j than to x_k".
// scripts/fetch_perceptual_kernels.sh places the 12 files under
// data/perceptual-kernels (docs/datasets.md).
const PerceptualDir = "perceptual-kernels"

// PerceptualPalettes and PerceptualTasks name the 12 triplet files,
// <palette>-<task>.txt.
var (
	PerceptualPalettes = []string{"color", "shape", "size", "shapecolor", "shapesize", "sizecolor"}
	PerceptualTasks    = []string{"tm", "td"}
)

// PerceptualLayout is how one subject's line is laid out. Each subject
// first answered PracticeTriplets practice triplets over PracticeStimuli
// stimuli outside the palette (indices 0..PracticeStimuli−1), then the
// palette's triplets, whose indices are offset by PracticeStimuli (palette
// item p is written PracticeStimuli+p). Among the palette's triplets are
// catch trials, triplets with a repeated index such as (i,i,k), which a
// subject paying attention answers with i = j. The authors' Matlab code
// (shared/matlab/getTestTriplets.m in their repository) drops the practice
// triplets and subtracts the offset the same way.
type PerceptualLayout struct {
	Fields           int // integers per line, 3 per triplet
	PracticeTriplets int // leading triplets to skip
	PracticeStimuli  int // index offset of the palette's items
	Items            int // palette size
}

// PerceptualLayouts are the published files' layouts, told apart by their
// number of fields: univariate palettes (color, shape, size) have 10 items
// and 138 triplets per subject (8 practice: the 4 triplets of 4 practice
// stimuli and 4 catch trials; 120 = C(10,3); 10 catch trials), bivariate
// ones 16 items and 594 (24 practice: C(6,3) + 4; 560 = C(16,3); 10 catch).
var PerceptualLayouts = []PerceptualLayout{
	{Fields: 414, PracticeTriplets: 8, PracticeStimuli: 4, Items: 10},
	{Fields: 1782, PracticeTriplets: 24, PracticeStimuli: 6, Items: 16},
}

// PerceptualTriplets is one file read: each subject's palette triplets
// (offset removed, catch trials dropped) and the catch trials' outcome.
type PerceptualTriplets struct {
	File   string
	Layout PerceptualLayout
	// Subjects holds each line's palette triplets (i,j,i,k) in the order
	// answered, indices in [0, Layout.Items).
	Subjects [][]Comparison
	// CatchPassed counts catch trials answered (i,i,k), CatchFailed the
	// others, e.g. (i,k,i): "i is closer to k than to itself".
	CatchPassed, CatchFailed int
}

// N is the number of palette items.
func (p *PerceptualTriplets) N() int { return p.Layout.Items }

// Triplets returns every subject's triplets, subject after subject.
func (p *PerceptualTriplets) Triplets() []Comparison {
	var out []Comparison
	for _, s := range p.Subjects {
		out = append(out, s...)
	}
	return out
}

// ReadPerceptualFile reads one raw triplet file, its layout told by the
// first line's number of fields (ReadPerceptual).
func ReadPerceptualFile(path string) (*PerceptualTriplets, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadPerceptual(f, path, nil)
}

// ReadPerceptual reads a raw triplet file: one line per subject of
// comma-separated integers (blank lines skipped), every line
// layout.Fields of them. With layout nil, the first line's number of
// fields picks one of PerceptualLayouts. Practice triplets must index
// practice stimuli, [0, PracticeStimuli); palette triplets palette items,
// [PracticeStimuli, PracticeStimuli+Items). Bad input is a *FileError
// naming the file (name), the line and the field.
func ReadPerceptual(r io.Reader, name string, layout *PerceptualLayout) (*PerceptualTriplets, error) {
	out := &PerceptualTriplets{File: name}
	if layout != nil {
		if err := layout.check(); err != nil {
			return nil, fmt.Errorf("data: %s: %w", name, err)
		}
		out.Layout = *layout
	}
	err := scanLines(r, func(tl textLine) error {
		lay := &out.Layout
		if lay.Fields == 0 {
			for _, l := range PerceptualLayouts {
				if l.Fields == len(tl.fields) {
					*lay = l
				}
			}
			if lay.Fields == 0 {
				return fileErr(name, tl.num, 0, fmt.Sprintf("a subject's line must hold %d (10 items) or %d (16 items) integers",
					PerceptualLayouts[0].Fields, PerceptualLayouts[1].Fields), "%d", len(tl.fields))
			}
		}
		if len(tl.fields) != lay.Fields {
			return fileErr(name, tl.num, 0, fmt.Sprintf("every subject's line must hold %d integers, as the first does", lay.Fields), "%d", len(tl.fields))
		}
		var subject []Comparison
		for t := 0; t < lay.Fields/3; t++ {
			lo, hi := lay.PracticeStimuli, lay.PracticeStimuli+lay.Items
			what := "a palette triplet's index"
			if t < lay.PracticeTriplets {
				lo, hi, what = 0, lay.PracticeStimuli, "a practice triplet's index"
			}
			var v [3]int
			for k := range v {
				f := tl.fields[3*t+k]
				x, err := strconv.Atoi(f.text)
				if err != nil {
					return fileErr(name, tl.num, f.col, "must be an integer", "%q", clip(f.text, 20))
				}
				if x < lo || x >= hi {
					return fileErr(name, tl.num, f.col, fmt.Sprintf("%s (triplet %d) must be in [%d,%d)", what, t+1, lo, hi), "%d", x)
				}
				v[k] = x - lay.PracticeStimuli
			}
			switch {
			case t < lay.PracticeTriplets:
			case v[0] == v[1] && v[0] != v[2]:
				out.CatchPassed++
			case v[0] == v[1] || v[0] == v[2] || v[1] == v[2]:
				out.CatchFailed++
			default:
				subject = append(subject, Triplet(v[0], v[1], v[2]))
			}
		}
		out.Subjects = append(out.Subjects, subject)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out.Subjects) == 0 {
		return nil, &FileError{File: name, Rule: "no subjects: the file must hold at least one line of triplets"}
	}
	return out, nil
}

// check validates a layout given by the caller.
func (l PerceptualLayout) check() error {
	if l.Fields <= 0 || l.Fields%3 != 0 || l.PracticeTriplets < 0 || l.PracticeTriplets > l.Fields/3 ||
		l.PracticeStimuli < 0 || (l.PracticeTriplets > 0 && l.PracticeStimuli < 1) || l.Items < 3 {
		return fmt.Errorf("invalid perceptual layout %+v: want Fields a positive multiple of 3, 0 ≤ PracticeTriplets ≤ Fields/3, practice stimuli for practice triplets, Items ≥ 3", l)
	}
	return nil
}
