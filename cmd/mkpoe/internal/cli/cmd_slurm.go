package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mkpoe/mkpoe/experiments"
	"github.com/mkpoe/mkpoe/experiments/slurm"
)

// Sharding a run and its Slurm array jobs (experiments/slurm; docs/slurm.md).

// addShardFlags adds the run flags that select a shard of the plan.
func addShardFlags(fs *flagSet) *slurm.ShardRequest {
	f := &slurm.ShardRequest{}
	fs.IntVar(&f.Index, "task-index", -1, "run only plan task `I` (with --task-count N: the tasks with index ≡ I mod N); default $SLURM_ARRAY_TASK_ID")
	fs.IntVar(&f.Count, "task-count", 0, "number of shards `N` for --task-index (default $SLURM_ARRAY_TASK_COUNT when the array is 0..N-1)")
	fs.StringVar(&f.Shard, "shard", "", "shard `i/N`: the tasks with plan index ≡ i mod N (same as --task-index i --task-count N)")
	fs.IntVar(&f.Phase, "phase", -1, "run only the tasks of phase `P` (0: native and cv, 1: refits, -1: both)")
	return f
}

// runSlurm implements "mkpoe slurm CONFIG [--out DIR] [--submit] ...":
// write the sbatch scripts of a run (array jobs per phase, chunked below
// MaxArraySize, and a merge job) and print or run the sbatch commands.
func runSlurm(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o slurm.Options
	var maxArray *int
	var doSubmit *bool
	var bin *string
	var force *bool
	var extra stringList
	c, err := loadConfigArgs("slurm", args, stderr, func(fs *flagSet) {
		fs.IntVar(&o.Parallel, "parallel", 0, "at most `K` array tasks of a job run at once (--array=...%K); 0: no limit")
		fs.StringVar(&o.Partition, "partition", "", "Slurm partition (default: the cluster's)")
		fs.StringVar(&o.Time, "time", "", "time limit per task, e.g. 2:00:00 (default: the partition's)")
		fs.StringVar(&o.Mem, "mem", "", "memory per task, e.g. 4G (default: the partition's)")
		fs.StringVar(&o.Account, "account", "", "Slurm account `A` the jobs are charged to (default: your default account)")
		fs.StringVar(&o.QOS, "qos", "", "Slurm quality of service `Q` (default: the account's)")
		fs.StringVar(&o.Constraint, "constraint", "", "node features the jobs need, e.g. intel&ib (sbatch --constraint)")
		fs.Var(&extra, "sbatch-option", "further sbatch option `--key=value` or --key for every job (repeatable), e.g. --sbatch-option=--gres=gpu:1;\nnot the options mkpoe slurm sets (--array, --output, --dependency, --parsable, --job-name, --cpus-per-task, --wrap) nor those with their own flag")
		fs.IntVar(&o.CPUs, "cpus", 1, "CPUs per task; also GOMAXPROCS and the BLAS/OpenMP thread counts")
		maxArray = fs.Int("max-array-size", 0, "Slurm's MaxArraySize (default: from scontrol show config, else 1001)")
		doSubmit = fs.Bool("submit", false, "submit the jobs with sbatch (default: only write and print the commands)")
		bin = fs.String("bin", "", "mkpoe binary the jobs run (default: this one)")
		force = fs.Bool("force", false, "take over a run directory that belongs to another experiment, or use a folder that holds other files")
	})
	if err != nil {
		return err
	}
	if _, err := experiments.Check(c); err != nil {
		return err
	}
	switch {
	case o.CPUs < 1:
		return usagef("--cpus: must be >= 1, got %d", o.CPUs)
	case o.Parallel < 0:
		return usagef("--parallel: must be >= 0, got %d", o.Parallel)
	case *maxArray < 0:
		return usagef("--max-array-size: must be >= 1, got %d", *maxArray)
	}
	o.Extra = extra
	if err := o.Validate(); err != nil {
		return err
	}
	p := &slurm.Plan{ConfigHash: c.Hash(), MaxArraySize: *maxArray}
	if p.RunDir, err = filepath.Abs(c.Output); err != nil {
		return err
	}
	// The jobs read the run directory's resolved config, not CONFIG: editing
	// CONFIG while jobs wait in the queue cannot mix two configs in one run.
	p.Config = filepath.Join(p.RunDir, "config.resolved.yaml")
	if p.Binary, err = jobBinary(*bin, stderr); err != nil {
		return err
	}
	source := "--max-array-size"
	if p.MaxArraySize == 0 {
		p.MaxArraySize, source = slurm.MaxArraySize(ctx)
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
	plan := experiments.Plan(c)
	subs, err := p.Write(plan, c.Name, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "plan: %d tasks in %d array job(s) (MaxArraySize %d, %s) and a merge job\n", len(plan), len(p.Arrays), p.MaxArraySize, source)
	for _, a := range p.Arrays {
		fmt.Fprintf(stdout, "  %s: phase %d, plan tasks %s\n", a.Script, a.Phase, slurm.CompressRanges(a.Indices))
	}
	fmt.Fprintf(stdout, "run directory: %s\n", p.RunDir)
	if !*doSubmit {
		fmt.Fprintf(stdout, "submit with (also in %s):\n%s", filepath.Join(p.Dir(), "submit.sh"), subs.Shell())
		return nil
	}
	ids, err := subs.Submit(ctx, stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "then: mkpoe status %s (the merge job is %s; its log is in %s)\n", p.RunDir, ids["merge"], filepath.Join(p.Dir(), "logs"))
	return nil
}

// jobBinary is the absolute path of the mkpoe binary the jobs run: bin,
// else this process's own (warning when it is a temporary one of go run).
func jobBinary(bin string, stderr io.Writer) (string, error) {
	if bin != "" {
		return filepath.Abs(bin)
	}
	bin, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the mkpoe binary (give --bin): %w", err)
	}
	if r, err := filepath.EvalSymlinks(bin); err == nil {
		bin = r
	}
	if strings.Contains(bin, "go-build") {
		fmt.Fprintf(stderr, "warning: %s is a temporary binary of go run; build one (go build -o mkpoe ./cmd/mkpoe) or give --bin\n", bin)
	}
	return bin, nil
}

// runShard runs one shard of c's plan without merging: a missing task of
// another shard is not an error, a failed task of this one is.
func runShard(ctx context.Context, c *experiments.Config, sh slurm.Shard, opts experiments.RunOptions, stdout, stderr io.Writer) error {
	start := time.Now()
	plan := experiments.Plan(c)
	idx := sh.Indices(plan)
	fmt.Fprintf(stderr, "%s: %d of %d tasks (%s)\n", sh, len(idx), len(plan), slurm.CompressRanges(idx))
	opts.Only, opts.NoMerge = sh.Selects, true
	if _, err := experiments.Run(ctx, c, opts); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s done: %d task(s) in %s (%.1fs); when every shard is done: mkpoe merge %s\n",
		sh, len(idx), c.Output, time.Since(start).Seconds(), slurm.ShellQuote(absPath(c.Output)))
	return nil
}
