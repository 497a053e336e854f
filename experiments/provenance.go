package experiments

import (
	"bufio"
	"cmp"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// writeProvenance writes provenance.json (results.Provenance) into the run
// directory of c, from env.json (written when the last `mkpoe run` on the
// directory started), the summary s, the task times and the task files'
// modification times: the last task's end is Finished, and a task file
// older than the run's start means the run was resumed.
//
// When no task ran in the last invocation (a rerun that only merged and
// reported), a previous provenance of the same config is kept as it is: it
// describes the invocation that computed the numbers.
func writeProvenance(c *Config, s *results.Summary, plan []results.Task, tasks []results.TaskResult, timings map[string]results.TaskTime) error {
	path := filepath.Join(c.Output, results.ProvenanceFile)
	env := map[string]string{}
	if b, err := os.ReadFile(filepath.Join(c.Output, "env.json")); err == nil {
		_ = json.Unmarshal(b, &env) // an unreadable env.json leaves the fields empty
	}
	started, _ := time.Parse(time.RFC3339, env["started"])
	var first, last time.Time
	for _, t := range plan {
		fi, err := os.Stat(taskPath(c.Output, t.ID))
		if err != nil {
			continue
		}
		if m := fi.ModTime(); first.IsZero() || m.Before(first) {
			first = m
		}
		if m := fi.ModTime(); m.After(last) {
			last = m
		}
	}
	ranNothing := started.IsZero() || !last.After(started)
	if ranNothing {
		if b, err := os.ReadFile(path); err == nil {
			var prev results.Provenance
			if json.Unmarshal(b, &prev) == nil && prev.ConfigHash == c.Hash() {
				return nil
			}
		}
	}
	p := results.Provenance{
		Config: c.Name, ConfigHash: c.Hash(),
		Commit:        cmp.Or(env["vcs.revision"], env["git_commit"]),
		Go:            cmp.Or(env["go"], runtime.Version()),
		LinalgBackend: env["linalg_backend"],
		OpenBLASCore:  env["openblas_core"], OpenBLASConfig: env["openblas_config"], OpenBLASCoretype: env["OPENBLAS_CORETYPE"],
		CPUModel: cmp.Or(env["cpu_model"], cpuModel()),
		OS:       cmp.Or(env["goos"], runtime.GOOS) + "/" + cmp.Or(env["goarch"], runtime.GOARCH),
		Started:  env["started"],
		Tasks:    len(plan),
	}
	if d := cmp.Or(env["vcs.modified"], env["git_dirty"]); d != "" {
		dirty := d == "true"
		p.Dirty = &dirty
	}
	if tags, ok := env["build_tags"]; ok {
		p.BuildTags = tags
	} else if p.LinalgBackend == "openblas" { // env.json written before build_tags
		p.BuildTags = "openblas"
	}
	p.Cores, _ = strconv.Atoi(env["cores"])
	if p.Cores == 0 {
		p.Cores = runtime.NumCPU()
	}
	p.Workers, _ = strconv.Atoi(env["workers"])
	if !last.IsZero() {
		p.Finished = last.UTC().Format(time.RFC3339)
	}
	if !ranNothing {
		p.WallSeconds = math.Round(last.Sub(started).Seconds()*10) / 10
		p.Resumed = first.Before(started)
	} else {
		p.Resumed = true // the computing invocation is unknown: no wall time
	}
	for _, tt := range timings {
		p.TaskSeconds += tt.Seconds
	}
	p.TaskSeconds = math.Round(p.TaskSeconds*10) / 10
	p.Rows = rowCosts(c, plan, tasks)
	for _, r := range s.Rows {
		if r.Fits != nil {
			p.Fits += *r.Fits
		}
		if r.UnconvergedFits != nil {
			p.UnconvergedFits += *r.UnconvergedFits
		}
		p.StationaryFits += r.Stationary()
		if r.MaxGap != nil {
			p.MaxGap = math.Max(p.MaxGap, *r.MaxGap)
		}
	}
	return writeJSON(path, p)
}

// rowCosts is what each learned row of c cost (results.RowCost): its cv
// and refit tasks' times, iterations and CPU times, tasks[i] being the
// result of plan[i].
func rowCosts(c *Config, plan []results.Task, tasks []results.TaskResult) []results.RowCost {
	costs := make([]results.RowCost, len(c.Rows))
	seen := make([]bool, len(c.Rows))
	for i, t := range plan {
		if t.Kind == KindNative {
			continue
		}
		costs[t.Row].AddTask(&tasks[i], !seen[t.Row])
		seen[t.Row] = true
	}
	var out []results.RowCost
	round := func(x *float64) {
		if x != nil {
			*x = math.Round(*x*1000) / 1000
		}
	}
	for i, r := range c.Rows {
		if r.Method == "native" {
			continue
		}
		rc := costs[i]
		rc.Label, rc.Seconds = r.Label, math.Round(rc.Seconds*1000)/1000
		round(rc.CPUSeconds)
		round(rc.ProcessCPUSeconds)
		for j := range rc.Stages {
			round(&rc.Stages[j].CPUSeconds)
		}
		out = append(out, rc)
	}
	return out
}

// cpuModel is the CPU's model name from /proc/cpuinfo ("" where there is
// none, as on macOS).
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
