package experiments

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
)

// store is a run directory: per-task results in tasks/<id>.json, each
// written atomically, so an interrupted run loses nothing it finished.
type store struct {
	dir  string
	hash string // config hash; results under another hash are stale
}

func openStore(dir, hash string) (*store, error) {
	for _, sub := range []string{"tasks", "models"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	return &store{dir: dir, hash: hash}, nil
}

func (s *store) path(id string) string { return filepath.Join(s.dir, "tasks", id+".json") }

// load returns a task's result if it exists and belongs to this config.
func (s *store) load(id string) (TaskResult, bool) {
	b, err := os.ReadFile(s.path(id))
	if err != nil {
		return TaskResult{}, false
	}
	var r TaskResult
	if err := json.Unmarshal(b, &r); err != nil || r.ConfigHash != s.hash {
		return TaskResult{}, false
	}
	return r, true
}

// done reports whether a task finished successfully under this config.
func (s *store) done(id string) bool {
	r, ok := s.load(id)
	return ok && r.Status == "ok"
}

// save writes a result atomically.
func (s *store) save(r TaskResult) error {
	return writeJSON(s.path(r.ID), r)
}

// writeJSON writes v as indented JSON through a temporary file and a rename.
func writeJSON(path string, v any) error {
	return writeFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}
