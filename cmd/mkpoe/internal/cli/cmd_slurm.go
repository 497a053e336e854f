package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mkpoe/mkpoe/experiments"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// Sharding a run (issue 7).
//
// A plan is a fixed, ordered list of tasks (experiments.Plan); phase-0 tasks (native,
// cv) come first, then phase-1 refits, which read their split's cv results.
// A shard runs a subset of the plan in the shared run directory, writing
// tasks/<id>.json exactly as a local run does, and never merges:
//
//   - --task-index I alone runs plan task I (the array index is the plan
//     index; this is what the generated sbatch scripts use, so that a
//     resubmission list printed by "mkpoe status" names plan tasks);
//   - --task-index I --task-count N (or --shard I/N) runs the tasks whose
//     plan index is ≡ I (mod N): N shards cover every task exactly once and
//     each gets a mix of rows and splits;
//   - with neither, SLURM_ARRAY_TASK_ID is the index, and the count is
//     --task-count, else SLURM_ARRAY_TASK_COUNT when the array is exactly
//     0..COUNT-1, else none (a resubmitted list such as 3,7-9 runs tasks 3,
//     7, 8 and 9);
//   - --phase P keeps only the tasks of phase P.
//
// Tasks already done under the same config are skipped, so overlapping or
// repeated shards are harmless.

// shardSpec selects part of a plan.
type shardSpec struct {
	Index  int // plan index (Count 0) or residue (Count > 0); -1: no sharding
	Count  int // 0: Index is one plan index
	Phase  int // -1: every phase
	Source string
}

// active reports whether the spec restricts the plan at all.
func (s shardSpec) active() bool { return s.Index >= 0 || s.Phase >= 0 }

// selects reports whether plan task i (of phase p) belongs to the shard.
func (s shardSpec) selects(i int, t results.Task) bool {
	if s.Phase >= 0 && t.Phase != s.Phase {
		return false
	}
	switch {
	case s.Index < 0:
		return true
	case s.Count == 0:
		return i == s.Index
	default:
		return i%s.Count == s.Index
	}
}

// indices lists the plan indices the shard selects.
func (s shardSpec) indices(plan []results.Task) []int {
	var out []int
	for i, t := range plan {
		if s.selects(i, t) {
			out = append(out, i)
		}
	}
	return out
}

// shardFlags are the run flags that select a shard.
type shardFlags struct {
	index, count, phase int
	shard               string
}

func addShardFlags(fs *flagSet) *shardFlags {
	f := &shardFlags{}
	fs.IntVar(&f.index, "task-index", -1, "run only plan task `I` (with --task-count N: the tasks with index ≡ I mod N); default $SLURM_ARRAY_TASK_ID")
	fs.IntVar(&f.count, "task-count", 0, "number of shards `N` for --task-index (default $SLURM_ARRAY_TASK_COUNT when the array is 0..N-1)")
	fs.StringVar(&f.shard, "shard", "", "shard `i/N`: the tasks with plan index ≡ i mod N (same as --task-index i --task-count N)")
	fs.IntVar(&f.phase, "phase", -1, "run only the tasks of phase `P` (0: native and cv, 1: refits); default both")
	return f
}

// resolve turns the flags and the Slurm environment into a shard of a plan
// of n tasks. getenv is os.Getenv outside tests.
func (f *shardFlags) resolve(n int, getenv func(string) string) (shardSpec, error) {
	s := shardSpec{Index: f.index, Count: f.count, Phase: f.phase}
	if f.phase < -1 || f.phase > 1 {
		return s, usagef("--phase: must be 0 or 1, got %d", f.phase)
	}
	if f.count < 0 {
		return s, usagef("--task-count: must be >= 1, got %d", f.count)
	}
	if f.shard != "" {
		if f.index >= 0 || f.count > 0 {
			return s, usagef("--shard: give either --shard i/N or --task-index/--task-count, not both")
		}
		a, b, ok := strings.Cut(f.shard, "/")
		i, err1 := strconv.Atoi(a)
		c, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || c < 1 || i < 0 || i >= c {
			return s, usagef("--shard: must be i/N with 0 <= i < N, got %q", f.shard)
		}
		s.Index, s.Count, s.Source = i, c, "--shard"
		return s, nil
	}
	if s.Index < -1 {
		return s, usagef("--task-index: must be a plan index >= 0, got %d", s.Index)
	}
	if s.Index >= 0 {
		s.Source = "--task-index"
	} else if id := getenv("SLURM_ARRAY_TASK_ID"); id != "" {
		i, err := strconv.Atoi(id)
		if err != nil || i < 0 {
			return s, usagef("SLURM_ARRAY_TASK_ID: must be a non-negative integer, got %q", id)
		}
		s.Index, s.Source = i, "SLURM_ARRAY_TASK_ID"
		if s.Count == 0 {
			cnt, _ := strconv.Atoi(getenv("SLURM_ARRAY_TASK_COUNT"))
			lo, errLo := strconv.Atoi(getenv("SLURM_ARRAY_TASK_MIN"))
			hi, errHi := strconv.Atoi(getenv("SLURM_ARRAY_TASK_MAX"))
			if cnt > 0 && errLo == nil && errHi == nil && lo == 0 && hi == cnt-1 {
				s.Count = cnt
			}
		}
	} else if s.Count > 0 {
		return s, usagef("--task-count: needs --task-index (or $SLURM_ARRAY_TASK_ID)")
	}
	switch {
	case s.Index < 0:
	case s.Count > 0 && s.Index >= s.Count:
		return s, usagef("%s: must be < --task-count %d, got %d", s.Source, s.Count, s.Index)
	case s.Count == 0 && s.Index >= n:
		return s, usagef("%s: the plan has %d tasks (0..%d), got %d", s.Source, n, n-1, s.Index)
	}
	return s, nil
}

func (s shardSpec) String() string {
	var parts []string
	switch {
	case s.Index < 0:
	case s.Count == 0:
		parts = append(parts, fmt.Sprintf("task %d", s.Index))
	default:
		parts = append(parts, fmt.Sprintf("shard %d/%d", s.Index, s.Count))
	}
	if s.Phase >= 0 {
		parts = append(parts, fmt.Sprintf("phase %d", s.Phase))
	}
	out := strings.Join(parts, ", ")
	if s.Source != "" && s.Source != "--task-index" {
		out += " (from " + s.Source + ")"
	}
	return out
}

// compressRanges writes sorted, distinct non-negative integers as a Slurm
// --array list: runs of consecutive values become ranges ("3,7-9").
func compressRanges(xs []int) string {
	xs = append([]int(nil), xs...)
	sort.Ints(xs)
	var b strings.Builder
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] <= xs[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(xs[i]))
		if xs[j] != xs[i] {
			b.WriteString("-" + strconv.Itoa(xs[j]))
		}
		i = j + 1
	}
	return b.String()
}

// defaultMaxArraySize is Slurm's default MaxArraySize: array indices are < 1001.
const defaultMaxArraySize = 1001

// slurmArray is one array job: the tasks of one phase whose plan index lies
// in [Offset, Offset+MaxArraySize). Array index a runs plan task Offset+a.
type slurmArray struct {
	Phase   int    `json:"phase"`
	Chunk   int    `json:"chunk"`
	Offset  int    `json:"offset"`
	Indices []int  `json:"indices"` // plan indices
	Array   string `json:"array"`   // the --array list (indices minus Offset)
	Script  string `json:"script"`  // absolute path
}

// slurmPlan is written to RUN_DIR/slurm/slurm.json; "mkpoe status" reads it
// to map missing tasks back to scripts and array indices.
type slurmPlan struct {
	Config       string       `json:"config"`
	RunDir       string       `json:"run_dir"`
	Binary       string       `json:"binary"`
	ConfigHash   string       `json:"config_hash"`
	MaxArraySize int          `json:"max_array_size"`
	Arrays       []slurmArray `json:"arrays"`
	Merge        string       `json:"merge"` // merge script
}

// chunkPlan splits a plan into array jobs, per phase and per block of
// maxArray plan indices, so that no array index reaches MaxArraySize.
func chunkPlan(plan []results.Task, maxArray int, scriptDir string) []slurmArray {
	byKey := map[[2]int]*slurmArray{}
	var out []*slurmArray
	for i, t := range plan {
		k := [2]int{t.Phase, i / maxArray}
		a := byKey[k]
		if a == nil {
			a = &slurmArray{Phase: t.Phase, Chunk: k[1], Offset: k[1] * maxArray}
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
	res := make([]slurmArray, len(out))
	for i, a := range out {
		a.Array = compressRanges(shift(a.Indices, -a.Offset))
		res[i] = *a
	}
	return res
}

func shift(xs []int, d int) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = x + d
	}
	return out
}

// sbatchOptions are the resources of the generated jobs.
type sbatchOptions struct {
	Partition, Time, Mem string
	CPUs, Parallel       int
}

func (o sbatchOptions) header(b *strings.Builder, name, array, log string, cpus int) {
	fmt.Fprintf(b, "#!/bin/bash\n#SBATCH --job-name=%s\n", name)
	if array != "" {
		fmt.Fprintf(b, "#SBATCH --array=%s\n", array)
	}
	fmt.Fprintf(b, "#SBATCH --output=%s\n#SBATCH --cpus-per-task=%d\n", log, cpus)
	if o.Partition != "" {
		fmt.Fprintf(b, "#SBATCH --partition=%s\n", o.Partition)
	}
	if o.Time != "" {
		fmt.Fprintf(b, "#SBATCH --time=%s\n", o.Time)
	}
	if o.Mem != "" {
		fmt.Fprintf(b, "#SBATCH --mem=%s\n", o.Mem)
	}
	fmt.Fprintf(b, "set -euo pipefail\nexport GOMAXPROCS=%[1]d OMP_NUM_THREADS=%[1]d OPENBLAS_NUM_THREADS=%[1]d MKL_NUM_THREADS=%[1]d\n", cpus)
}

// arrayScript is the sbatch script of one array job: array index a runs
// plan task Offset+a with "mkpoe run --phase P --task-index".
func arrayScript(p *slurmPlan, a slurmArray, name string, o sbatchOptions) string {
	var b strings.Builder
	array := a.Array
	if o.Parallel > 0 {
		array += "%" + strconv.Itoa(o.Parallel)
	}
	log := filepath.Join(p.RunDir, "slurm", "logs", fmt.Sprintf("phase%d-chunk%02d-%%a-%%A.out", a.Phase, a.Chunk))
	o.header(&b, fmt.Sprintf("mkpoe-%s-p%d-c%02d", name, a.Phase, a.Chunk), array, log, o.CPUs)
	what := "native and cv tasks"
	if a.Phase == 1 {
		what = "refits, submitted after every phase-0 job"
	}
	fmt.Fprintf(&b, "# Phase %d: %s. Array index a runs plan task %d+a.\n", a.Phase, what, a.Offset)
	fmt.Fprintf(&b, "exec %s run %s --out %s --phase %d --task-index $((SLURM_ARRAY_TASK_ID + %d))\n",
		shellQuote(p.Binary), shellQuote(p.Config), shellQuote(p.RunDir), a.Phase, a.Offset)
	return b.String()
}

// mergeScript is the sbatch script of the merge job.
func mergeScript(p *slurmPlan, name string, o sbatchOptions) string {
	var b strings.Builder
	o.header(&b, "mkpoe-"+name+"-merge", "", filepath.Join(p.RunDir, "slurm", "logs", "merge-%j.out"), 1)
	fmt.Fprintf(&b, "exec %s merge %s\n", shellQuote(p.Binary), shellQuote(p.RunDir))
	return b.String()
}

// shellQuote quotes s for bash when it holds anything but safe characters.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// submission is a list of sbatch calls in order: each depends (afterany)
// on the job ids of the calls named in After.
type submission struct {
	Var    string   // shell variable holding the job id
	Array  string   // --array override ("" keeps the script's)
	After  []string // variables of the jobs this one waits for
	Script string
}

// submissionFor chains arrays: phase-1 arrays after every phase-0 array,
// the merge job after everything. afterany, not afterok: one failed task
// must not leave the rest of the run pending forever; a refit whose cv
// results are missing records that as its error and "mkpoe status" lists it.
func submissionFor(arrays []slurmArray, lists []string, merge string) []submission {
	var subs []submission
	var phase0, all []string
	for i, a := range arrays {
		v := fmt.Sprintf("p%dc%02d", a.Phase, a.Chunk)
		s := submission{Var: v, Script: a.Script}
		if lists != nil {
			s.Array = lists[i]
		}
		if a.Phase == 1 {
			s.After = phase0
		} else {
			phase0 = append(phase0, v)
		}
		all = append(all, v)
		subs = append(subs, s)
	}
	return append(subs, submission{Var: "merge", After: all, Script: merge})
}

func (s submission) args() []string {
	args := []string{"--parsable"}
	if s.Array != "" {
		args = append(args, "--array="+s.Array)
	}
	return append(args, s.Script)
}

// shellLines renders submissions as bash lines that pass job ids along.
func shellLines(subs []submission) string {
	var b strings.Builder
	for _, s := range subs {
		args := s.args()
		if len(s.After) > 0 {
			var deps []string
			for _, v := range s.After {
				deps = append(deps, "$"+v)
			}
			args = append(args[:1], append([]string{"--dependency=afterany:" + strings.Join(deps, ":")}, args[1:]...)...)
		}
		for i := range args {
			if !strings.Contains(args[i], "$") {
				args[i] = shellQuote(args[i])
			}
		}
		fmt.Fprintf(&b, "%s=$(sbatch %s | cut -d';' -f1)\n", s.Var, strings.Join(args, " "))
	}
	fmt.Fprintf(&b, "echo \"merge job: $merge\"\n")
	return b.String()
}

// submit runs the sbatch calls and returns the job id of each variable.
func submit(ctx context.Context, subs []submission, stdout io.Writer) (map[string]string, error) {
	ids := map[string]string{}
	for _, s := range subs {
		args := s.args()
		if len(s.After) > 0 {
			var deps []string
			for _, v := range s.After {
				deps = append(deps, ids[v])
			}
			args = append(args[:1], append([]string{"--dependency=afterany:" + strings.Join(deps, ":")}, args[1:]...)...)
		}
		cmd := exec.CommandContext(ctx, "sbatch", args...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		out, err := cmd.Output()
		if err != nil {
			return ids, fmt.Errorf("sbatch %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
		}
		id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
		if _, err := strconv.Atoi(id); err != nil {
			return ids, fmt.Errorf("sbatch %s: cannot read a job id from %q", strings.Join(args, " "), out)
		}
		ids[s.Var] = id
		fmt.Fprintf(stdout, "submitted %s: job %s\n", filepath.Base(s.Script), id)
	}
	return ids, nil
}

// maxArraySize reads MaxArraySize from "scontrol show config", or returns
// the Slurm default when scontrol is absent or says nothing.
func maxArraySize(ctx context.Context) (int, string) {
	if _, err := exec.LookPath("scontrol"); err != nil {
		return defaultMaxArraySize, "default; scontrol not found"
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "scontrol", "show", "config").Output()
	if err != nil {
		return defaultMaxArraySize, "default; scontrol show config failed"
	}
	if n, ok := parseMaxArraySize(out); ok {
		return n, "scontrol show config"
	}
	return defaultMaxArraySize, "default; not in scontrol show config"
}

func parseMaxArraySize(out []byte) (int, bool) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.TrimSpace(k) == "MaxArraySize" {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			return n, err == nil && n > 0
		}
	}
	return 0, false
}

// runSlurm implements "mkpoe slurm CONFIG [--out DIR] [--submit] ...":
// write the sbatch scripts of a run (array jobs per phase, chunked below
// MaxArraySize, and a merge job) and print or run the sbatch commands.
func runSlurm(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o sbatchOptions
	var maxArray *int
	var doSubmit *bool
	var bin *string
	var force *bool
	c, err := loadConfigArgs("slurm", args, stderr, func(fs *flagSet) {
		fs.IntVar(&o.Parallel, "parallel", 0, "at most `K` array tasks of a job run at once (--array=...%K); 0: no limit")
		fs.StringVar(&o.Partition, "partition", "", "Slurm partition (default: the cluster's)")
		fs.StringVar(&o.Time, "time", "", "time limit per task, e.g. 2:00:00 (default: the partition's)")
		fs.StringVar(&o.Mem, "mem", "", "memory per task, e.g. 4G (default: the partition's)")
		fs.IntVar(&o.CPUs, "cpus", 1, "CPUs per task; also GOMAXPROCS and the BLAS/OpenMP thread counts")
		maxArray = fs.Int("max-array-size", 0, "Slurm's MaxArraySize (default: from scontrol show config, else 1001)")
		doSubmit = fs.Bool("submit", false, "submit the jobs with sbatch (default: only write and print the commands)")
		bin = fs.String("bin", "", "mkpoe binary the jobs run (default: this one)")
		force = fs.Bool("force", false, "take over a run directory that belongs to another experiment")
	})
	if err != nil {
		return err
	}
	if _, err := experiments.Check(c); err != nil {
		return err
	}
	if o.CPUs < 1 {
		return usagef("--cpus: must be >= 1, got %d", o.CPUs)
	}
	if o.Parallel < 0 {
		return usagef("--parallel: must be >= 0, got %d", o.Parallel)
	}
	if *maxArray < 0 {
		return usagef("--max-array-size: must be >= 1, got %d", *maxArray)
	}
	if o.Time != "" && !slurmTime.MatchString(o.Time) {
		return usagef("--time: must be a Slurm time limit (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS, e.g. 2:00:00), got %q", o.Time)
	}
	if o.Mem != "" && !slurmMem.MatchString(o.Mem) {
		return usagef("--mem: must be a Slurm memory size (a whole number with an optional K, M, G or T suffix, e.g. 4G), got %q", o.Mem)
	}
	for _, v := range []string{o.Partition, o.Time, o.Mem} {
		if strings.ContainsAny(v, " \t\n'\"$`\\") {
			return usagef("Slurm option %q: must not contain spaces, quotes or shell characters", v)
		}
	}
	p := &slurmPlan{ConfigHash: c.Hash(), MaxArraySize: *maxArray}
	if p.RunDir, err = filepath.Abs(c.Output); err != nil {
		return err
	}
	// The jobs read the run directory's resolved config, not CONFIG: editing
	// CONFIG while jobs wait in the queue cannot mix two configs in one run.
	p.Config = filepath.Join(p.RunDir, "config.resolved.yaml")
	p.Binary = *bin
	if p.Binary == "" {
		if p.Binary, err = os.Executable(); err != nil {
			return fmt.Errorf("finding the mkpoe binary (give --bin): %w", err)
		}
		if r, err := filepath.EvalSymlinks(p.Binary); err == nil {
			p.Binary = r
		}
		if strings.Contains(p.Binary, "go-build") {
			fmt.Fprintf(stderr, "warning: %s is a temporary binary of go run; build one (go build -o mkpoe ./cmd/mkpoe) or give --bin\n", p.Binary)
		}
	} else if p.Binary, err = filepath.Abs(p.Binary); err != nil {
		return err
	}
	source := "--max-array-size"
	if p.MaxArraySize == 0 {
		p.MaxArraySize, source = maxArraySize(ctx)
	}
	c.Output = p.RunDir
	// The run directory gets its resolved config now, so that "mkpoe
	// status DIR" works before the first task starts.
	if err := experiments.Prepare(c, *force); err != nil {
		return err
	}
	if back, err := experiments.LoadConfig(p.Config); err != nil || back.Hash() != p.ConfigHash {
		return fmt.Errorf("%s does not load back to config hash %s (%v): please report this", p.Config, p.ConfigHash, err)
	}
	dir := filepath.Join(p.RunDir, "slurm")
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		return err
	}
	plan := experiments.Plan(c)
	p.Arrays = chunkPlan(plan, p.MaxArraySize, dir)
	p.Merge = filepath.Join(dir, "merge.sbatch")
	name := jobName(c.Name)
	for _, a := range p.Arrays {
		if err := os.WriteFile(a.Script, []byte(arrayScript(p, a, name, o)), 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(p.Merge, []byte(mergeScript(p, name, o)), 0o755); err != nil {
		return err
	}
	if err := results.WriteFile(filepath.Join(dir, "slurm.json"), p); err != nil {
		return err
	}
	subs := submissionFor(p.Arrays, nil, p.Merge)
	lines := shellLines(subs)
	if err := os.WriteFile(filepath.Join(dir, "submit.sh"), []byte("#!/bin/bash\nset -euo pipefail\n"+lines), 0o755); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "plan: %d tasks in %d array job(s) (MaxArraySize %d, %s) and a merge job\n", len(plan), len(p.Arrays), p.MaxArraySize, source)
	for _, a := range p.Arrays {
		fmt.Fprintf(stdout, "  %s: phase %d, plan tasks %s\n", a.Script, a.Phase, compressRanges(a.Indices))
	}
	fmt.Fprintf(stdout, "run directory: %s\n", p.RunDir)
	if !*doSubmit {
		fmt.Fprintf(stdout, "submit with (also in %s):\n%s", filepath.Join(dir, "submit.sh"), lines)
		return nil
	}
	ids, err := submit(ctx, subs, stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "then: mkpoe status %s (the merge job is %s; its log is in %s)\n", p.RunDir, ids["merge"], filepath.Join(dir, "logs"))
	return nil
}

// jobName keeps a config name usable in a Slurm job name.
func jobName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// slurmTime matches sbatch's --time formats (minutes, minutes:seconds,
// hours:minutes:seconds, days-hours, days-hours:minutes,
// days-hours:minutes:seconds), with minutes and seconds below 60 where a
// larger unit precedes them.
var slurmTime = regexp.MustCompile(`^(\d+|\d+:[0-5]?\d|\d+:[0-5]?\d:[0-5]?\d|\d+-\d+|\d+-\d+:[0-5]?\d|\d+-\d+:[0-5]?\d:[0-5]?\d)$`)

// slurmMem matches sbatch's --mem sizes: a whole number and an optional unit.
var slurmMem = regexp.MustCompile(`^[1-9]\d*[KMGTkmgt]?$`)

// readSlurmPlan reads RUN_DIR/slurm/slurm.json, if "mkpoe slurm" wrote one.
func readSlurmPlan(runDir string) (*slurmPlan, error) {
	b, err := os.ReadFile(filepath.Join(runDir, "slurm", "slurm.json"))
	if err != nil {
		return nil, err
	}
	var p slurmPlan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(runDir, "slurm", "slurm.json"), err)
	}
	return &p, nil
}

// runShard runs one shard of c's plan without merging: a missing task of
// another shard is not an error, a failed task of this one is.
func runShard(ctx context.Context, c *experiments.Config, sh shardSpec, opts experiments.RunOptions, stdout, stderr io.Writer) error {
	start := time.Now()
	plan := experiments.Plan(c)
	idx := sh.indices(plan)
	fmt.Fprintf(stderr, "%s: %d of %d tasks (%s)\n", sh, len(idx), len(plan), compressRanges(idx))
	opts.Only, opts.NoMerge = sh.selects, true
	if _, err := experiments.Run(ctx, c, opts); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s done: %d task(s) in %s (%.1fs); when every shard is done: mkpoe merge %s\n",
		sh, len(idx), c.Output, time.Since(start).Seconds(), shellQuote(absPath(c.Output)))
	return nil
}
