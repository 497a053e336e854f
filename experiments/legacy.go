package experiments

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// migrateLegacyTasks renames the task files of a run directory made
// before task digests took data paths relative to their repository and
// task IDs left out the β grid (legacyRowInputs: one digest with this
// clone's absolute paths and the grid named every task of a row): a task
// file whose ID and inputs digest are those the task had then, computed
// from the same inputs, is rewritten under the task's current ID and
// digest (its numbers untouched) with its model files, and the old file
// removed, so that the run reuses it. A task that already has a current
// file keeps it. It returns how many it renamed.
func migrateLegacyTasks(c *Config, plan []results.Task) (int, error) {
	legacy := map[int]string{} // row → its legacy digest
	for r, row := range c.Rows {
		legacy[r] = c.legacyRowInputs(row)
	}
	n := 0
	for _, t := range plan {
		old := legacy[t.Row]
		oldID := taskID(t.Kind, rowPrefix(c.Rows[t.Row], old), t.Split, t.Fold)
		if oldID == t.ID {
			continue
		}
		if _, err := os.Stat(taskPath(c.Output, t.ID)); err == nil {
			continue
		}
		r, _ := readTaskFile(c.Output, results.Task{ID: oldID, Inputs: old})
		if r == nil {
			continue // none, or computed from other inputs: the task runs
		}
		if err := renameTask(c, r, t, oldID); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// renameTask writes r, the result of task t under its legacy ID oldID,
// as t's result: the current ID and inputs digest, the config hash when r
// was merged for this config, and its model files renamed.
func renameTask(c *Config, r *results.TaskResult, t results.Task, oldID string) error {
	if r.ConfigHash == c.legacyHash() {
		r.ConfigHash = c.Hash()
	}
	r.ID, r.Inputs = t.ID, t.Inputs
	if r.Model != "" {
		model := filepath.Join("models", t.ID+".json")
		for _, f := range [][2]string{{r.Model, model}, {filepath.Join("models", oldID+".test.tsv"), filepath.Join("models", t.ID+".test.tsv")}} {
			if err := os.Rename(filepath.Join(c.Output, f[0]), filepath.Join(c.Output, f[1])); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("renaming a model of task %s: %w", oldID, err)
			}
		}
		r.Model = model
	}
	if err := results.WriteFile(taskPath(c.Output, t.ID), r); err != nil {
		return fmt.Errorf("writing %s: %w", taskPath(c.Output, t.ID), err)
	}
	return os.Remove(taskPath(c.Output, oldID))
}

// reportLegacyTasks runs migrateLegacyTasks and says on log how many task
// files it renamed, and how many task files are left that belong to no
// task of the plan: a row whose inputs changed has new task IDs, and an
// older mkpoe's files made where the clone then lived (other absolute
// paths) cannot be matched.
func reportLegacyTasks(c *Config, plan []results.Task, log io.Writer) error {
	n, err := migrateLegacyTasks(c, plan)
	if n > 0 {
		fmt.Fprintf(log, "renamed %d task files of an older mkpoe (its task IDs held the β grid and this clone's absolute data paths) to their current IDs; their results are unchanged and reused\n", n)
	}
	if err != nil {
		return err
	}
	planned := map[string]bool{}
	for _, t := range plan {
		planned[t.ID] = true
	}
	files, _ := filepath.Glob(filepath.Join(c.Output, "tasks", "*.json"))
	other := 0
	for _, f := range files {
		if !planned[strings.TrimSuffix(filepath.Base(f), ".json")] {
			other++
		}
	}
	if other > 0 {
		fmt.Fprintf(log, "%d task files in %s are of no task of this config, and are kept but not used: of rows whose inputs (data, seed, protocol, kernels, mode or solver) changed, or of an mkpoe older than portable task IDs run with the data at other absolute paths\n",
			other, filepath.Join(c.Output, "tasks"))
	}
	return nil
}
