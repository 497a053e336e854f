package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"gonum.org/v1/gonum/mat"
)

// ErrNotRunDir is returned by [Load] when the directory holds no
// summary.json, so it is not a finished run directory.
var ErrNotRunDir = errors.New("report: not a finished run directory (no summary.json; `mkpoe run CONFIG --out DIR` writes it once every task is done)")

// Summary mirrors summary.json of a run directory (written by the harness,
// experiments.Summary): every number of a run's table.
type Summary struct {
	Name       string    `json:"name"`
	ConfigHash string    `json:"config_hash"`
	Splits     int       `json:"splits"`
	InnerFolds int       `json:"inner_folds"`
	BetaGrid   []float64 `json:"beta_grid"`
	Rows       []Row     `json:"rows"`
	// SolverTol is the relative duality gap each fit had to certify
	// (0: not recorded, summaries of older runs).
	SolverTol float64 `json:"solver_tol,omitempty"`
}

// Row mirrors one row of summary.json.
type Row struct {
	Label    string    `json:"label"`
	Method   string    `json:"method"` // native, k1 or k4
	Mode     string    `json:"mode,omitempty"`
	Kernels  []string  `json:"kernels"`
	Accuracy []float64 `json:"accuracy"` // test accuracy per outer split
	Mean     float64   `json:"mean"`
	Std      float64   `json:"std"`
	Beta     []float64 `json:"beta,omitempty"` // chosen β per split
	// ValCurve[s][b] is the mean inner-CV validation accuracy of
	// β = BetaGrid[b] on outer split s.
	ValCurve         [][]float64 `json:"val_curve,omitempty"`
	Models           []string    `json:"models,omitempty"` // per split, relative to the run directory
	TrainComparisons []int       `json:"train_comparisons"`
	TestComparisons  []int       `json:"test_comparisons"`
	Paper            *float64    `json:"paper,omitempty"` // the paper's value, if the config gives one
	// Group names the kernel or kernel group of the row (the config's
	// kernel: or group: field). summary.json does not carry it; a caller
	// that knows the config may fill it in to name the table rows.
	Group string `json:"group,omitempty"`
	// Fits counts the solver runs of a learned row (cv sweeps and refits),
	// UnconvergedFits those whose certified relative gap stayed above the
	// solver's tolerance, MaxGap the largest certified gap. nil means
	// unknown (native rows, and summaries written before convergence was
	// recorded): never read as converged.
	Fits            *int     `json:"fits,omitempty"`
	UnconvergedFits *int     `json:"unconverged_fits,omitempty"`
	MaxGap          *float64 `json:"max_gap,omitempty"`
}

// Learned reports whether the row fits a model (k1 or k4).
func (r *Row) Learned() bool { return r.Method != "native" }

// NotConverged reports whether some fit of the row is known to have
// stopped above the solver's tolerance (the table marks it †).
func (r *Row) NotConverged() bool { return r.UnconvergedFits != nil && *r.UnconvergedFits > 0 }

// ConvergenceKnown reports whether the summary records the convergence of
// the row's fits (false for native rows: they have none).
func (r *Row) ConvergenceKnown() bool { return r.UnconvergedFits != nil }

// Items mirrors items.json: item names, class labels (may be nil) and per
// outer split the global indices of training and test items. A model's
// training item r is Splits[s].Train[r].
type Items struct {
	Names  []string `json:"names"`
	Labels []int    `json:"labels,omitempty"`
	Splits []Split  `json:"splits"`
}

// Split lists the training and test items of one outer split.
type Split struct {
	Train []int `json:"train"`
	Test  []int `json:"test"`
}

// Run is everything a report reads from a run directory.
type Run struct {
	Summary *Summary
	Items   *Items             // nil if items.json is missing
	Env     map[string]string  // env.json (Go version, module, VCS revision); may be empty
	Timings map[string]float64 // timings.json: task ID → seconds; may be empty
	Config  string             // config.resolved.yaml, verbatim; may be empty
	// Models maps a model path of Summary.Rows[i].Models to the model.
	Models map[string]*mkpoe.Model
	// Held maps a model path to the embedding of the split's held-out items
	// (models/<id>.test.tsv written by the refit), if the run has it.
	Held map[string]*mat.Dense
}

// Load reads a run directory through fsys (for example os.DirFS(dir)):
// summary.json (required), items.json, env.json, timings.json,
// config.resolved.yaml and every model file the summary names. It
// returns [ErrNotRunDir] (wrapped) if summary.json is missing and an error
// naming the file for anything unreadable. Task files (tasks/*.json) are
// not read: the summary already holds what the report shows.
func Load(fsys fs.FS) (*Run, error) {
	r := &Run{Summary: &Summary{}, Env: map[string]string{}, Timings: map[string]float64{}, Models: map[string]*mkpoe.Model{}, Held: map[string]*mat.Dense{}}
	if err := readJSON(fsys, "summary.json", r.Summary); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNotRunDir
		}
		return nil, err
	}
	if err := r.Summary.validate(); err != nil {
		return nil, err
	}
	r.Items = &Items{}
	if err := readJSON(fsys, "items.json", r.Items); errors.Is(err, fs.ErrNotExist) {
		r.Items = nil
	} else if err != nil {
		return nil, err
	}
	if err := readJSON(fsys, "env.json", &r.Env); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := readJSON(fsys, "timings.json", &r.Timings); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if b, err := fs.ReadFile(fsys, "config.resolved.yaml"); err == nil {
		r.Config = string(b)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("report: reading config.resolved.yaml: %w", err)
	}
	for _, row := range r.Summary.Rows {
		for _, path := range row.Models {
			if _, ok := r.Models[path]; ok || path == "" {
				continue
			}
			b, err := fs.ReadFile(fsys, path)
			if err != nil {
				return nil, fmt.Errorf("report: reading model of row %q: %w", row.Label, err)
			}
			m, err := mkpoe.ReadJSON(bytes.NewReader(b), path)
			if err != nil {
				return nil, fmt.Errorf("report: %w", err)
			}
			r.Models[path] = m
			held := strings.TrimSuffix(path, ".json") + ".test.tsv"
			if b, err := fs.ReadFile(fsys, held); err == nil {
				x, err := data.ReadMatrix(bytes.NewReader(b), held)
				if err != nil {
					return nil, fmt.Errorf("report: %w", err)
				}
				r.Held[path] = x
			}
		}
	}
	return r, nil
}

func readJSON(fsys fs.FS, name string, v any) error {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return fmt.Errorf("report: reading %s: %w", name, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("report: parsing %s: %w", name, err)
	}
	return nil
}

// validate checks the shapes the report relies on, naming the offending row.
func (s *Summary) validate() error {
	var errs []error
	for i, r := range s.Rows {
		at := fmt.Sprintf("report: summary.json rows[%d] (%q)", i, r.Label)
		if len(r.ValCurve) > 0 {
			for sp, c := range r.ValCurve {
				if len(c) != len(s.BetaGrid) {
					errs = append(errs, fmt.Errorf("%s: val_curve[%d] must have one value per beta_grid entry (%d), got %d", at, sp, len(s.BetaGrid), len(c)))
				}
			}
		}
		if len(r.Beta) > 0 && len(r.Beta) != len(r.Accuracy) {
			errs = append(errs, fmt.Errorf("%s: beta must have one value per split (%d), got %d", at, len(r.Accuracy), len(r.Beta)))
		}
	}
	return errors.Join(errs...)
}

// model returns the model of row r on split s, or nil.
func (run *Run) model(r *Row, s int) *mkpoe.Model {
	if s >= len(r.Models) {
		return nil
	}
	return run.Models[r.Models[s]]
}

// sortedKeys returns the keys of m in increasing order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
