package experiments

import (
	"fmt"
)

// Task kinds.
const (
	KindNative = "native" // native-space accuracy of a row's kernel (or sum) on a split's test comparisons
	KindCV     = "cv"     // one inner fold of a split: fit every β of the grid, score validation comparisons
	KindRefit  = "refit"  // choose β from the split's cv tasks, refit on all training items, score the test set
)

// Task is one independent unit of work of a run, with a stable ID. Tasks of
// phase 0 (native, cv) need nothing else; a refit (phase 1) reads the
// results of its split's cv tasks.
type Task struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Row   int    `json:"row"`
	Split int    `json:"split"`
	Fold  int    `json:"fold"` // inner fold of a cv task, -1 otherwise
	Phase int    `json:"phase"`
}

// Plan lists the tasks of a config: for every row and outer split, a native
// task, or InnerFolds cv tasks (each sweeping the β grid) plus a refit. The
// order and IDs depend only on the config.
func Plan(c *Config) []Task {
	var tasks []Task
	for r, row := range c.Rows {
		for s := 0; s < c.Protocol.Splits; s++ {
			if row.Method == "native" {
				tasks = append(tasks, Task{ID: taskID(KindNative, r, s, -1), Kind: KindNative, Row: r, Split: s, Fold: -1})
				continue
			}
			for f := 0; f < c.Protocol.InnerFolds; f++ {
				tasks = append(tasks, Task{ID: taskID(KindCV, r, s, f), Kind: KindCV, Row: r, Split: s, Fold: f})
			}
		}
	}
	for r, row := range c.Rows {
		if row.Method == "native" {
			continue
		}
		for s := 0; s < c.Protocol.Splits; s++ {
			tasks = append(tasks, Task{ID: taskID(KindRefit, r, s, -1), Kind: KindRefit, Row: r, Split: s, Fold: -1, Phase: 1})
		}
	}
	return tasks
}

func taskID(kind string, row, split, fold int) string {
	if fold < 0 {
		return fmt.Sprintf("%s-r%02d-s%02d", kind, row, split)
	}
	return fmt.Sprintf("%s-r%02d-s%02d-f%02d", kind, row, split, fold)
}

// fits returns the number of solver runs a task performs.
func (t Task) fits(c *Config) int {
	switch t.Kind {
	case KindCV:
		return len(c.BetaGrid)
	case KindRefit:
		return 1
	}
	return 0
}
