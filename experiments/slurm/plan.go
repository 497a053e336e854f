package slurm

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// DefaultMaxArraySize is Slurm's default MaxArraySize: array indices are < 1001.
const DefaultMaxArraySize = 1001

// Array is one array job: the tasks of one phase whose plan index lies
// in [Offset, Offset+MaxArraySize). Array index a runs plan task Offset+a.
type Array struct {
	Phase   int    `json:"phase"`
	Chunk   int    `json:"chunk"`
	Offset  int    `json:"offset"`
	Indices []int  `json:"indices"` // plan indices
	Array   string `json:"array"`   // the --array list (indices minus Offset)
	Script  string `json:"script"`  // absolute path
}

// Plan is the Slurm side of a run, written to RUN_DIR/slurm/slurm.json;
// "mkpoe status" reads it to map missing tasks back to scripts and array
// indices.
type Plan struct {
	Config       string  `json:"config"`
	RunDir       string  `json:"run_dir"`
	Binary       string  `json:"binary"`
	ConfigHash   string  `json:"config_hash"`
	MaxArraySize int     `json:"max_array_size"`
	Arrays       []Array `json:"arrays"`
	Merge        string  `json:"merge"` // merge script
}

// Dir is the directory of the plan's scripts, slurm.json and logs.
func (p *Plan) Dir() string { return filepath.Join(p.RunDir, "slurm") }

// chunkPlan splits a plan into array jobs, per phase and per block of
// maxArray plan indices, so that no array index reaches MaxArraySize.
func chunkPlan(plan []results.Task, maxArray int, scriptDir string) []Array {
	byKey := map[[2]int]*Array{}
	var out []*Array
	for i, t := range plan {
		k := [2]int{t.Phase, i / maxArray}
		a := byKey[k]
		if a == nil {
			a = &Array{Phase: t.Phase, Chunk: k[1], Offset: k[1] * maxArray}
			a.Script = filepath.Join(scriptDir, fmt.Sprintf("phase%d-chunk%02d.sbatch", a.Phase, a.Chunk))
			byKey[k] = a
			out = append(out, a)
		}
		a.Indices = append(a.Indices, i)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Phase != out[j].Phase {
			return out[i].Phase < out[j].Phase
		}
		return out[i].Chunk < out[j].Chunk
	})
	res := make([]Array, len(out))
	for i, a := range out {
		a.Array = CompressRanges(shift(a.Indices, -a.Offset))
		res[i] = *a
	}
	return res
}

// Write splits tasks (the run's plan) into p's array jobs (p.Arrays, below
// p.MaxArraySize) and writes, under p.Dir(), the logs directory, one sbatch
// script per array job, the merge job's script (p.Merge), slurm.json and
// submit.sh. name is the experiment's name (made safe for a job name).
// It returns the submissions, in order, that submit.sh holds.
func (p *Plan) Write(tasks []results.Task, name string, o Options) (Submissions, error) {
	dir := p.Dir()
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		return nil, err
	}
	p.Arrays = chunkPlan(tasks, p.MaxArraySize, dir)
	p.Merge = filepath.Join(dir, "merge.sbatch")
	name = jobName(name)
	for _, a := range p.Arrays {
		if err := os.WriteFile(a.Script, []byte(arrayScript(p, a, name, o)), 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(p.Merge, []byte(mergeScript(p, name, o)), 0o755); err != nil {
		return nil, err
	}
	if err := results.WriteFile(filepath.Join(dir, "slurm.json"), p); err != nil {
		return nil, err
	}
	subs := submissionFor(p.Arrays, nil, p.Merge)
	if err := os.WriteFile(filepath.Join(dir, "submit.sh"), []byte("#!/bin/bash\nset -euo pipefail\n"+subs.Shell()), 0o755); err != nil {
		return nil, err
	}
	return subs, nil
}

// ReadPlan reads RUN_DIR/slurm/slurm.json, if "mkpoe slurm" wrote one.
func ReadPlan(runDir string) (*Plan, error) {
	b, err := os.ReadFile(filepath.Join(runDir, "slurm", "slurm.json"))
	if err != nil {
		return nil, err
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(runDir, "slurm", "slurm.json"), err)
	}
	return &p, nil
}

// Resubmit is one array job to resubmit: the script "mkpoe slurm" wrote
// (none for a run without scripts) and the --array list of the tasks still
// to do.
type Resubmit struct {
	Phase  int    `json:"phase"`
	Script string `json:"script,omitempty"`
	Array  string `json:"array"`
	Tasks  []int  `json:"tasks"` // plan indices
}

// Resubmit lists, per array job of p, the plan tasks that redo selects,
// and the bash lines that resubmit only those array jobs (with their new
// --array lists) and then the merge job.
func (p *Plan) Resubmit(redo func(i int) bool) ([]Resubmit, string) {
	out := []Resubmit{}
	var arrays []Array
	var keep []string
	for _, a := range p.Arrays {
		var tasks []int
		for _, i := range a.Indices {
			if redo(i) {
				tasks = append(tasks, i)
			}
		}
		list := CompressRanges(shift(tasks, -a.Offset))
		if len(tasks) > 0 {
			out = append(out, Resubmit{Phase: a.Phase, Script: a.Script, Array: list, Tasks: tasks})
		}
		if list != "" {
			arrays, keep = append(arrays, a), append(keep, list)
		}
	}
	return out, submissionFor(arrays, keep, p.Merge).Shell()
}

// ResubmitLocal lists, per phase, the plan tasks that redo selects, for a
// run without Slurm scripts: the --array lists are plan indices.
func ResubmitLocal(plan []results.Task, redo func(i int) bool) []Resubmit {
	out := []Resubmit{}
	for phase := 0; phase <= 1; phase++ {
		var tasks []int
		for i, t := range plan {
			if redo(i) && t.Phase == phase {
				tasks = append(tasks, i)
			}
		}
		if len(tasks) > 0 {
			out = append(out, Resubmit{Phase: phase, Array: CompressRanges(tasks), Tasks: tasks})
		}
	}
	return out
}
