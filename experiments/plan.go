package experiments

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/mkpoe/mkpoe/internal/progress"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// Task kinds and tasks are those of the results schema (pkg/results).
const (
	KindNative = results.KindNative
	KindCV     = results.KindCV
	KindRefit  = results.KindRefit
)

// Plan lists the tasks of a config: for every row and outer split, a native
// task, or InnerFolds cv tasks (each sweeping the β grid) plus a refit.
// Task IDs name the kind, the method and mode, the row's digest without
// its β grid (rowID) and the split and fold, e.g.
// "cv-k4diag-1f2e3d4c-s00-f03" or "native-5a6b7c8d-s01": they do not
// change when rows are added, removed or relabelled, nor when the β grid
// changes, and rows that compute the same thing share their tasks (listed
// once, under the first such row).
//
// A task's Inputs digest is what its result must have been computed from:
// a native task's and a refit's is rowID (a refit depends on the grid only
// through the β its cv tasks choose, which store.read checks), a cv task's
// is cvInputs (its sweep depends on the whole grid).
//
// A row that lists several ranks (Ranks) has InnerFolds cv tasks per rank,
// each that of a row of the one rank (with Task.Rank set): a row of that
// rank alone shares them, and they are listed once.
func Plan(c *Config) []results.Task {
	var tasks, refits []results.Task
	seen, seenCV := map[string]bool{}, map[string]bool{}
	for r, row := range c.Rows {
		id := c.rowID(row)
		if seen[id] {
			continue
		}
		seen[id] = true
		prefix := rowPrefix(row, id)
		for s := 0; s < c.Protocol.Splits; s++ {
			if row.Method == "native" {
				tasks = append(tasks, results.Task{ID: taskID(KindNative, prefix, s, -1), Kind: KindNative, Row: r, Split: s, Fold: -1, Inputs: id})
				continue
			}
			for _, k := range row.Rank.list() {
				rr, rid := row, id
				var rank *int
				if row.Rank.many() {
					rr = row.withRank(k)
					rid, rank = c.rowID(rr), &k
				}
				cvIn := cvInputs(rid, c.rowInputs(rr))
				for f := 0; f < c.Protocol.InnerFolds; f++ {
					t := results.Task{ID: taskID(KindCV, rowPrefix(rr, rid), s, f), Kind: KindCV, Row: r, Split: s, Fold: f, Inputs: cvIn, Rank: rank}
					if !seenCV[t.ID] {
						seenCV[t.ID] = true
						tasks = append(tasks, t)
					}
				}
			}
			refits = append(refits, refitTask(r, prefix, id, s))
		}
	}
	return append(tasks, refits...)
}

// cvInputs is a cv task's inputs digest: the first 8 digits of its row's
// rowID (those of its task ID, as for every task of the row), then the
// first 8 of rowInputs, which covers the β grid.
func cvInputs(rowID, rowInputs string) string { return rowID[:8] + rowInputs[:8] }

// refitTask is the refit of row r (with its task ID prefix and rowID) on
// split s.
func refitTask(r int, prefix, rowID string, s int) results.Task {
	return results.Task{ID: taskID(KindRefit, prefix, s, -1), Kind: KindRefit, Row: r, Split: s, Fold: -1, Phase: 1, Inputs: rowID}
}

// runOrder returns tasks (of one phase, in plan order) in the order the
// runner starts them: round-robin over the rows (progress.RoundRobin), so
// that the ETA learns each row's cost from its own fits early (rows of one
// shape differ up to 3× in cost). The order changes no result: each task
// is seeded by its split and fold alone.
func runOrder(tasks []results.Task) []results.Task {
	return progress.RoundRobin(tasks, func(t results.Task) int { return t.Row })
}

// rowPrefix is the part of a row's task IDs that names the row: method and
// mode, and the first 8 digits of its rowID (of any of its tasks' Inputs).
func rowPrefix(row RowConfig, inputs string) string {
	if row.Method == "native" {
		return inputs[:8]
	}
	return row.Method + row.Mode + "-" + inputs[:8]
}

func taskID(kind, rowPrefix string, split, fold int) string {
	if fold < 0 {
		return fmt.Sprintf("%s-%s-s%02d", kind, rowPrefix, split)
	}
	return fmt.Sprintf("%s-%s-s%02d-f%02d", kind, rowPrefix, split, fold)
}

// TaskID is the ID of the task of the given kind, split and fold (-1 for
// none) of config row number row.
func (c *Config) TaskID(kind string, row, split, fold int) string {
	return c.rowTaskID(kind, c.Rows[row], split, fold)
}

// rowTaskID is the ID of a row's task of the given kind, split and fold.
func (c *Config) rowTaskID(kind string, row RowConfig, split, fold int) string {
	return taskID(kind, rowPrefix(row, c.rowID(row)), split, fold)
}

// taskInputs is everything the tasks of a row read. Names, labels, the
// description, paper values, table rows, the output directory, the number
// of splits and other rows are left out: changing them reuses every result.
type taskInputs struct {
	Seed    uint64        `yaml:"seed"`
	Dataset DatasetConfig `yaml:"dataset"`
	Holdout string        `yaml:"holdout,omitempty"` // "comparisons" only: digests of item-holdout rows predate the field
	// Loader names a change in what a data set's loader returns from the
	// same files (loaderVersions), so that results computed before it are
	// not reused. Empty for loaders unchanged since digests began.
	Loader string `yaml:"loader,omitempty"`
	Outer  string `yaml:"outer,omitempty"` // "partition" or "given" only, as Holdout
	// Given is the SHA-256 of the given test file's contents (outer:
	// given): its contents, not its path, are an input.
	Given               string         `yaml:"given,omitempty"`
	TestFraction        float64        `yaml:"test_fraction"`
	InnerFolds          int            `yaml:"inner_folds"`
	MaxTrainComparisons int            `yaml:"max_train_comparisons"`
	MaxTestComparisons  int            `yaml:"max_test_comparisons"`
	TrainSteps          []string       `yaml:"train_steps"`
	TestSteps           []string       `yaml:"test_steps"`
	Kernels             []kernelInputs `yaml:"kernels"`
	Method              string         `yaml:"method"`
	Mode                string         `yaml:"mode,omitempty"`
	BetaGrid            []float64      `yaml:"beta_grid,omitempty"`
	BetaRelative        bool           `yaml:"beta_relative,omitempty"` // beta_grid holds multiples of β_min
	Rank                int            `yaml:"rank,omitempty"`          // the row's rank bound
	// Ranks are the ranks a row chooses among (rank: [0, 2, 5]), in
	// increasing order; the row's refit and its label depend on them, its
	// cv tasks each on one rank (Rank) as a row of that rank alone.
	Ranks  []int         `yaml:"ranks,omitempty"`
	Solver *SolverConfig `yaml:"solver,omitempty"`
}

// loaderVersions marks data set loaders whose output changed for the same
// files: aset400/2 drops the 17 degenerate triplets of triplets.tsv
// (data.Aset400.Dropped).
var loaderVersions = map[string]string{"aset400": "aset400/2"}

// kernelInputs is what a kernel's values depend on (not its name).
type kernelInputs struct {
	Source      string             `yaml:"source"`
	Type        string             `yaml:"type"`
	Params      map[string]float64 `yaml:"params,omitempty"`
	Normalize   string             `yaml:"normalize"`
	Standardize bool               `yaml:"standardize"`
}

// rowInputs returns the digest of a row's taskInputs: 16 hexadecimal digits
// of their SHA-256. Data paths enter it portable (portablePath), so that
// clones at different places agree.
func (c *Config) rowInputs(row RowConfig) string {
	return digestInputs(c.rowTaskInputs(row, portableDataset(c.Dataset)))
}

// rowID is the digest of a row's taskInputs without its β grid, which
// names its tasks (Plan).
func (c *Config) rowID(row RowConfig) string {
	in := c.rowTaskInputs(row, portableDataset(c.Dataset))
	in.BetaGrid, in.BetaRelative = nil, false
	return digestInputs(in)
}

// rowInputsWithGrid is rowInputs for the row had the config the β grid g
// (relative: multiples of β_min).
func (c *Config) rowInputsWithGrid(row RowConfig, g []float64, relative bool) string {
	in := c.rowTaskInputs(row, portableDataset(c.Dataset))
	in.BetaGrid, in.BetaRelative = g, relative
	return digestInputs(in)
}

// legacyRowInputs is rowInputs as mkpoe computed it before data paths
// entered it portable: with the absolute paths of this clone. A task file
// of that digest was computed from the same inputs (migrateLegacyTasks).
func (c *Config) legacyRowInputs(row RowConfig) string {
	return digestInputs(c.rowTaskInputs(row, c.Dataset))
}

// rowTaskInputs returns the taskInputs of a row, with the dataset section
// ds (c.Dataset with its paths in the form the digest takes).
func (c *Config) rowTaskInputs(row RowConfig, ds DatasetConfig) taskInputs {
	in := taskInputs{Seed: c.Seed, Dataset: ds, TestFraction: c.Protocol.TestFraction, InnerFolds: c.Protocol.InnerFolds,
		MaxTrainComparisons: c.Protocol.MaxTrainComparisons, MaxTestComparisons: c.Protocol.MaxTestComparisons,
		TrainSteps: c.Constraints.Train, TestSteps: c.Constraints.Test, Method: row.Method}
	if c.Protocol.Holdout == holdoutComparisons {
		in.Holdout = holdoutComparisons
	}
	in.Loader = loaderVersions[c.Dataset.Type]
	if c.Protocol.Outer == outerPartition || c.Protocol.Outer == outerGiven {
		in.Outer = c.Protocol.Outer
	}
	if c.Protocol.Outer == outerGiven {
		in.Given = c.givenDigest
	}
	if row.TrainSteps != nil {
		in.TrainSteps = *row.TrainSteps
	}
	for _, p := range c.rowKernels(row) {
		k := c.Kernels[p]
		in.Kernels = append(in.Kernels, kernelInputs{Source: k.Source, Type: k.Type, Params: k.Params, Normalize: k.Normalize, Standardize: k.Standardize})
	}
	if row.Method != "native" {
		solver := c.Solver
		in.Mode, in.BetaGrid, in.BetaRelative, in.Solver, in.Rank = row.Mode, c.BetaGrid.Values, c.BetaGrid.Relative, &solver, row.Rank.one()
		if row.Rank.many() {
			in.Rank, in.Ranks = 0, row.Rank.sorted()
		}
	}
	return in
}

// digestInputs is 16 hexadecimal digits of the SHA-256 of in's YAML.
func digestInputs(in taskInputs) string {
	// YAML, as Hash: nil and empty lists encode alike, so the digest
	// survives config.resolved.yaml's round trip.
	b, err := yaml.Marshal(in)
	if err != nil {
		panic(fmt.Sprintf("experiments: encoding task inputs: %v", err)) // only plain data: cannot fail
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// TaskFits returns the number of solver runs task t of c performs.
func TaskFits(c *Config, t results.Task) int {
	switch t.Kind {
	case KindCV:
		return len(c.BetaGrid.Values) // one rank's sweep
	case KindRefit:
		return 1
	}
	return 0
}
