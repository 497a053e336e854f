package experiments

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// store is a run directory: per-task results in tasks/<id>.json, each
// written atomically, so an interrupted run loses nothing it finished.
type store struct {
	dir string
	c   *Config
	// tasks maps each task ID of c's plan to its task; a result file
	// whose inputs digest is not its task's (or of a task outside the
	// plan) is stale.
	tasks map[string]results.Task
}

// openStore opens c's run directory c.Output, creating tasks/ and models/.
func openStore(c *Config) (*store, error) {
	for _, sub := range []string{"tasks", "models"} {
		if err := os.MkdirAll(filepath.Join(c.Output, sub), 0o755); err != nil {
			return nil, err
		}
	}
	return newStore(c), nil
}

// newStore is the store of c's run directory, which it only reads.
func newStore(c *Config) *store {
	plan := Plan(c)
	st := &store{dir: c.Output, c: c, tasks: make(map[string]results.Task, len(plan))}
	for _, t := range plan {
		st.tasks[t.ID] = t
	}
	return st
}

func (s *store) path(id string) string { return taskPath(s.dir, id) }

// taskPath is the result file of task id in run directory dir.
func taskPath(dir, id string) string { return filepath.Join(dir, "tasks", id+".json") }

// load returns a task's result if it is current (store.read).
func (s *store) load(id string) (results.TaskResult, bool) {
	t, ok := s.tasks[id]
	if !ok {
		return results.TaskResult{}, false
	}
	r, _ := s.read(t)
	if r == nil {
		return results.TaskResult{}, false
	}
	return *r, true
}

// done reports whether a task finished successfully under this config.
func (s *store) done(id string) bool {
	r, ok := s.load(id)
	return ok && r.Status == "ok"
}

// save writes a result atomically.
func (s *store) save(r results.TaskResult) error {
	return results.WriteFile(s.path(r.ID), &r)
}

// writeJSON writes v as indented JSON, atomically and readable by all
// (results.WriteFile).
func writeJSON(path string, v any) error {
	if err := results.WriteFile(path, v); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Prepare creates c's run directory (tasks/, models/) and writes
// config.resolved.yaml and env.json, as Run does first: "mkpoe slurm" calls
// it so that "mkpoe status" works before the first task starts. Like Run,
// it refuses a directory of another experiment unless force is set.
func Prepare(c *Config, force bool) error {
	if err := claimRunDir(c, force); err != nil {
		return err
	}
	if _, err := openStore(c); err != nil {
		return err
	}
	if err := reportLegacyTasks(c, Plan(c), io.Discard); err != nil {
		return err
	}
	return writeRunFiles(c, 0)
}

// readTaskFile reads the result of task t from run directory dir: the one
// check of a task file, used by the runner (store.load) and by status.
func readTaskFile(dir string, t results.Task) (*results.TaskResult, string) {
	p := taskPath(dir, t.ID)
	b, err := os.ReadFile(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, "no result"
	case err != nil:
		return nil, err.Error()
	}
	r, err := results.DecodeTaskResult(b, p)
	switch {
	case err != nil:
		return nil, "unreadable result file: " + err.Error()
	case r.ID != t.ID:
		return nil, fmt.Sprintf("the file holds task %s", r.ID)
	case t.Inputs != anyInputs && r.Inputs != t.Inputs:
		return nil, fmt.Sprintf("stale (computed from other inputs, digest %s)", r.Inputs)
	}
	return r, ""
}

// writeFileAtomic writes a file through a temporary file and a rename
// (results.WriteFileAtomic), readable by all.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	if err := results.WriteFileAtomic(path, write); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// writeModel writes a model file atomically.
func writeModel(path string, m *mkpoe.Model) error {
	return writeFileAtomic(path, m.WriteJSON)
}
