package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// nfloat is a float64 that is written as null when NaN and read back from
// null as NaN (encoding/json cannot write NaN).
type nfloat float64

func (f nfloat) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

func (f *nfloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = nfloat(math.NaN())
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = nfloat(v)
	return nil
}

func toN(x []float64) []nfloat {
	if x == nil {
		return nil
	}
	out := make([]nfloat, len(x))
	for i, v := range x {
		out[i] = nfloat(v)
	}
	return out
}

func fromN(x []nfloat) []float64 {
	if x == nil {
		return nil
	}
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

func toN2(x [][]float64) [][]nfloat {
	if x == nil {
		return nil
	}
	out := make([][]nfloat, len(x))
	for i, v := range x {
		out[i] = toN(v)
	}
	return out
}

func fromN2(x [][]nfloat) [][]float64 {
	if x == nil {
		return nil
	}
	out := make([][]float64, len(x))
	for i, v := range x {
		out[i] = fromN(v)
	}
	return out
}

// strictUnmarshal decodes b into v, rejecting unknown fields and trailing data.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the JSON value")
	}
	return nil
}

// The fields of Row and TaskResult that may be NaN are shadowed by nfloat
// fields of the same JSON name (the shallower field wins in encoding/json).

type plainRow Row

type rowJSON struct {
	plainRow
	Accuracy   []nfloat   `json:"accuracy"`
	Mean       nfloat     `json:"mean"`
	Std        nfloat     `json:"std"`
	ValCurve   [][]nfloat `json:"val_curve,omitempty"`
	ValFoldMin [][]nfloat `json:"val_fold_min,omitempty"`
	ValFoldMax [][]nfloat `json:"val_fold_max,omitempty"`
}

// MarshalJSON writes NaN accuracies as null.
func (r Row) MarshalJSON() ([]byte, error) {
	return json.Marshal(rowJSON{plainRow(r), toN(r.Accuracy), nfloat(r.Mean), nfloat(r.Std), toN2(r.ValCurve), toN2(r.ValFoldMin), toN2(r.ValFoldMax)})
}

// UnmarshalJSON reads null accuracies as NaN and rejects unknown fields.
func (r *Row) UnmarshalJSON(b []byte) error {
	var aux rowJSON
	if err := strictUnmarshal(b, &aux); err != nil {
		return err
	}
	*r = Row(aux.plainRow)
	r.Accuracy, r.Mean, r.Std, r.ValCurve = fromN(aux.Accuracy), float64(aux.Mean), float64(aux.Std), fromN2(aux.ValCurve)
	r.ValFoldMin, r.ValFoldMax = fromN2(aux.ValFoldMin), fromN2(aux.ValFoldMax)
	return nil
}

type plainTaskResult TaskResult

type taskResultJSON struct {
	plainTaskResult
	TestAccuracy nfloat   `json:"test_accuracy"`
	ValAccuracy  []nfloat `json:"val_accuracy,omitempty"`
	Gaps         []nfloat `json:"gaps,omitempty"`
}

// MarshalJSON writes NaN accuracies and gaps as null.
func (r TaskResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(taskResultJSON{plainTaskResult(r), nfloat(r.TestAccuracy), toN(r.ValAccuracy), toN(r.Gaps)})
}

// UnmarshalJSON reads null accuracies and gaps as NaN and rejects unknown fields.
func (r *TaskResult) UnmarshalJSON(b []byte) error {
	var aux taskResultJSON
	if err := strictUnmarshal(b, &aux); err != nil {
		return err
	}
	*r = TaskResult(aux.plainTaskResult)
	r.TestAccuracy, r.ValAccuracy, r.Gaps = float64(aux.TestAccuracy), fromN(aux.ValAccuracy), fromN(aux.Gaps)
	return nil
}

// checkFormat accepts the expected tag, or none (files written before the
// tags existed have the same fields).
func checkFormat(got, want string) error {
	if got != "" && got != want {
		return fmt.Errorf("format %q, want %q (written by another version of mkpoe?)", got, want)
	}
	return nil
}

// DecodeSummary reads summary.json strictly; name is used in errors.
func DecodeSummary(b []byte, name string) (*Summary, error) {
	var s Summary
	if err := strictUnmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", name, err)
	}
	if err := checkFormat(s.Format, SummaryFormat); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s.Format = SummaryFormat
	return &s, nil
}

// Validate checks the shapes readers rely on, naming the offending row and
// field.
func (s *Summary) Validate() error {
	var errs []error
	for i, b := range s.BetaGrid {
		// β is positive: the reports draw it on a log axis.
		if !(b > 0) || math.IsInf(b, 0) {
			errs = append(errs, fmt.Errorf("beta_grid[%d] must be > 0 and finite, got %g", i, b))
		} else if i > 0 && !(b > s.BetaGrid[i-1]) {
			// A run's grid increases (pkg/cv refuses any other).
			errs = append(errs, fmt.Errorf("beta_grid[%d] must be above beta_grid[%d] (%g), got %g", i, i-1, s.BetaGrid[i-1], b))
		}
	}
	for i, r := range s.Rows {
		at := fmt.Sprintf("rows[%d] (%q)", i, r.Label)
		bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(at+": "+format, a...)) }
		if s.Splits > 0 && len(r.Accuracy) != s.Splits {
			bad("accuracy must have one value per split (%d), got %d", s.Splits, len(r.Accuracy))
		}
		for sp, c := range r.ValCurve {
			if len(c) != len(s.BetaGrid) {
				bad("val_curve[%d] must have one value per beta_grid entry (%d), got %d", sp, len(s.BetaGrid), len(c))
			}
		}
		for _, nb := range []struct {
			name string
			band [][]float64
		}{{"val_fold_min", r.ValFoldMin}, {"val_fold_max", r.ValFoldMax}} {
			name, band := nb.name, nb.band
			if band != nil && len(band) != len(r.ValCurve) {
				bad("%s must have one list per val_curve split (%d), got %d", name, len(r.ValCurve), len(band))
			}
			for sp, c := range band {
				if len(c) != len(s.BetaGrid) {
					bad("%s[%d] must have one value per beta_grid entry (%d), got %d", name, sp, len(s.BetaGrid), len(c))
				}
			}
		}
		if r.ValZeroFolds != nil && len(r.ValZeroFolds) != len(r.ValCurve) {
			bad("val_zero_folds must have one list per val_curve split (%d), got %d", len(r.ValCurve), len(r.ValZeroFolds))
		}
		for sp, z := range r.ValZeroFolds {
			if len(z) != len(s.BetaGrid) {
				bad("val_zero_folds[%d] must have one count per beta_grid entry (%d), got %d", sp, len(s.BetaGrid), len(z))
			}
			for b, k := range z {
				if k < 0 || (s.InnerFolds > 0 && k > s.InnerFolds) {
					bad("val_zero_folds[%d][%d] must count folds in [0, %d], got %d", sp, b, s.InnerFolds, k)
				}
			}
		}
		if r.TestMissing != nil && len(r.TestMissing) != len(r.Accuracy) {
			bad("test_missing must have one count per split (%d), got %d", len(r.Accuracy), len(r.TestMissing))
		}
		if r.TestTallies != nil && len(r.TestTallies) != len(r.Accuracy) {
			bad("test_tallies must have one tally per split (%d), got %d", len(r.Accuracy), len(r.TestTallies))
		}
		for sp, t := range r.TestTallies {
			if t.Right < 0 || t.Ties < 0 || t.Wrong < 0 || (sp < len(r.TestComparisons) && t.Right+t.Ties+t.Wrong != r.TestComparisons[sp]) {
				bad("test_tallies[%d] must count the split's test comparisons (%v) with no negative count, got %+v", sp, r.TestComparisons, t)
			}
		}
		if len(r.Beta) > 0 && len(r.Beta) != len(r.Accuracy) {
			bad("beta must have one value per split (%d), got %d", len(r.Accuracy), len(r.Beta))
		}
		if len(r.Models) > 0 && len(r.Models) != len(r.Accuracy) {
			bad("models must have one path per split (%d), got %d", len(r.Accuracy), len(r.Models))
		}
		if r.KernelShare != nil && len(r.KernelShare) != len(r.Kernels) {
			bad("kernel_share must have one value per kernel (%d), got %d", len(r.Kernels), len(r.KernelShare))
		}
	}
	return errors.Join(errs...)
}

// DecodeTaskResult reads a task file strictly; name is used in errors.
func DecodeTaskResult(b []byte, name string) (*TaskResult, error) {
	var r TaskResult
	if err := strictUnmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", name, err)
	}
	if err := checkFormat(r.Format, TaskFormat); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	r.Format = TaskFormat
	return &r, nil
}

// DecodeItems reads items.json strictly; name is used in errors.
func DecodeItems(b []byte, name string) (*Items, error) {
	var it Items
	if err := strictUnmarshal(b, &it); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", name, err)
	}
	if err := checkFormat(it.Format, ItemsFormat); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for s, sp := range it.Splits {
		for _, i := range append(append([]int(nil), sp.Train...), sp.Test...) {
			if i < 0 || i >= len(it.Names) {
				return nil, fmt.Errorf("%s: splits[%d] names item %d, outside 0..%d", name, s, i, len(it.Names)-1)
			}
		}
	}
	if len(it.LabelNames) > 0 {
		for i, l := range it.Labels {
			if l < 0 || l >= len(it.LabelNames) {
				return nil, fmt.Errorf("%s: labels[%d] is %d, but label_names names labels 0..%d only", name, i, l, len(it.LabelNames)-1)
			}
		}
	}
	it.Format = ItemsFormat
	return &it, nil
}

// Encode writes v (a *Summary, *TaskResult or *Items, or any value) as
// indented JSON, setting the format tag of the result types.
func Encode(w io.Writer, v any) error {
	switch x := v.(type) {
	case *Summary:
		x.Format = SummaryFormat
	case *TaskResult:
		x.Format = TaskFormat
	case *Items:
		x.Format = ItemsFormat
	case *CostReport:
		x.Format = CostFormat
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteFile writes v with Encode to path atomically (a temporary file in the
// same directory, then a rename), readable by everyone (mode 0644: a run
// directory is often shared, e.g. on a cluster).
func WriteFile(path string, v any) error {
	return WriteFileAtomic(path, func(w io.Writer) error { return Encode(w, v) })
}

// WriteFileAtomic writes a file through write into a temporary file in the
// same directory and renames it to path, so that readers and a killed
// writer never leave a partial file; the file gets mode 0644.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename this fails harmlessly
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
