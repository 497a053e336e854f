package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// ErrNotRunDir is returned by [Load] when the directory holds no
// summary.json, so it is not a finished run directory.
var ErrNotRunDir = errors.New("report: not a finished run directory (no summary.json; `mkpoe run CONFIG --out DIR` writes it once every task is done)")

// Run is everything a report reads from a run directory.
type Run struct {
	Summary *results.Summary
	Items   *results.Items              // nil if items.json is missing
	Env     map[string]string           // env.json (Go version, module, VCS revision); may be empty
	Timings map[string]results.TaskTime // timings.json: task ID → its times (either form); may be empty
	Config  string                      // config.resolved.yaml, verbatim; may be empty
	// Provenance is provenance.json, nil if the directory has none: the
	// committed results/<config>/ folders keep it, not env.json.
	Provenance *results.Provenance
	// Models maps a model path of Summary.Rows[i].Models to the model.
	Models map[string]*mkpoe.Model
	// Held maps a model path to the embedding of the split's held-out items
	// (models/<id>.test.tsv written by the refit), if the run has it.
	Held map[string]*mat.Dense
	// Tasks are the task results behind the summary (tasks/<id>.json for
	// every task ID of timings.json, or every tasks/*.json when it is
	// missing), in ID order; files that are missing or unreadable are left
	// out (the report's warnings name them). Only the csv format reads them.
	Tasks []results.TaskResult
	// MissingModels lists the model files the summary names that the
	// directory lacks (the committed results/<config>/ folders keep only
	// summary.json, table.md and provenance.json): the figures that need a
	// model leave those rows out, and the report's warnings say so.
	MissingModels []string
}

// Load reads a run directory through fsys (for example os.DirFS(dir)):
// summary.json (required), items.json, env.json, timings.json,
// config.resolved.yaml and every model file the summary names (a missing
// one is listed in Run.MissingModels, not an error). It
// returns [ErrNotRunDir] (wrapped) if summary.json is missing and an error
// naming the file for anything unreadable. Task files (tasks/*.json) are
// read leniently into Run.Tasks, for fits.csv only: the summary already
// holds what the rest of the report shows.
func Load(fsys fs.FS) (*Run, error) {
	r := &Run{Env: map[string]string{}, Timings: map[string]results.TaskTime{}, Models: map[string]*mkpoe.Model{}, Held: map[string]*mat.Dense{}}
	b, err := fs.ReadFile(fsys, "summary.json")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotRunDir
	} else if err != nil {
		return nil, fmt.Errorf("report: reading summary.json: %w", err)
	}
	if r.Summary, err = results.DecodeSummary(b, "summary.json"); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if b, err := fs.ReadFile(fsys, "items.json"); err == nil {
		if r.Items, err = results.DecodeItems(b, "items.json"); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("report: reading items.json: %w", err)
	}
	if err := readJSON(fsys, "env.json", &r.Env); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := readJSON(fsys, "timings.json", &r.Timings); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var p results.Provenance
	if err := readJSON(fsys, results.ProvenanceFile, &p); err == nil {
		r.Provenance = &p
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if b, err := fs.ReadFile(fsys, "config.resolved.yaml"); err == nil {
		r.Config = string(b)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("report: reading config.resolved.yaml: %w", err)
	}
	r.Tasks = loadTasks(fsys, r.Timings)
	for _, row := range r.Summary.Rows {
		for _, path := range row.Models {
			if _, ok := r.Models[path]; ok || path == "" {
				continue
			}
			b, err := fs.ReadFile(fsys, path)
			if errors.Is(err, fs.ErrNotExist) {
				r.MissingModels = append(r.MissingModels, path)
				continue
			} else if err != nil {
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

// loadTasks reads the task files of the IDs in timings (all of tasks/*.json
// if timings is empty), skipping any that is missing or unreadable.
func loadTasks(fsys fs.FS, timings map[string]results.TaskTime) []results.TaskResult {
	var paths []string
	if len(timings) > 0 {
		for _, id := range sortedKeys(timings) {
			paths = append(paths, "tasks/"+id+".json")
		}
	} else {
		paths, _ = fs.Glob(fsys, "tasks/*.json")
	}
	var out []results.TaskResult
	for _, p := range paths {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			continue
		}
		t, err := results.DecodeTaskResult(b, p)
		if err != nil || t.ID == "" {
			continue
		}
		out = append(out, *t)
	}
	return out
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

// Backend is the linear-algebra backend the run was built with
// (env.json's linalg_backend, else provenance.json's); "" if neither
// records it.
func (run *Run) Backend() string {
	if b := run.Env["linalg_backend"]; b != "" {
		return b
	}
	if run.Provenance != nil {
		return run.Provenance.LinalgBackend
	}
	return ""
}

// Revision is the VCS revision of the code that ran (env.json's
// vcs.revision or git_commit, else provenance.json's commit); "" if
// unknown.
func (run *Run) Revision() string {
	for _, k := range []string{"vcs.revision", "git_commit"} {
		if v := run.Env[k]; v != "" {
			return v
		}
	}
	if run.Provenance != nil {
		return run.Provenance.Commit
	}
	return ""
}

// model returns the model of row r on split s, or nil.
func (run *Run) model(r *results.Row, s int) *mkpoe.Model {
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
