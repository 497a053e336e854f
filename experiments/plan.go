package experiments

import (
	"fmt"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// Task kinds and tasks are those of the results schema (pkg/results).
const (
	KindNative = results.KindNative
	KindCV     = results.KindCV
	KindRefit  = results.KindRefit
)

// Plan lists the tasks of a config: for every row and outer split, a native
// task, or InnerFolds cv tasks (each sweeping the β grid) plus a refit. The
// order and IDs depend only on the config.
func Plan(c *Config) []results.Task {
	var tasks []results.Task
	for r, row := range c.Rows {
		for s := 0; s < c.Protocol.Splits; s++ {
			if row.Method == "native" {
				tasks = append(tasks, results.Task{ID: taskID(KindNative, r, s, -1), Kind: KindNative, Row: r, Split: s, Fold: -1})
				continue
			}
			for f := 0; f < c.Protocol.InnerFolds; f++ {
				tasks = append(tasks, results.Task{ID: taskID(KindCV, r, s, f), Kind: KindCV, Row: r, Split: s, Fold: f})
			}
		}
	}
	for r, row := range c.Rows {
		if row.Method == "native" {
			continue
		}
		for s := 0; s < c.Protocol.Splits; s++ {
			tasks = append(tasks, results.Task{ID: taskID(KindRefit, r, s, -1), Kind: KindRefit, Row: r, Split: s, Fold: -1, Phase: 1})
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
func taskFits(t results.Task, c *Config) int {
	switch t.Kind {
	case KindCV:
		return len(c.BetaGrid)
	case KindRefit:
		return 1
	}
	return 0
}
