package slurm

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mkpoe/mkpoe/internal/errkind"
)

// Options are the resources of the generated jobs. Empty strings and zero
// Parallel leave the cluster's defaults.
type Options struct {
	Partition, Time, Mem string
	CPUs, Parallel       int // CPUs per task (≥ 1); at most Parallel array tasks at once
}

// Validate checks that Time and Mem are in sbatch's formats and that no
// option can break out of the script's #SBATCH lines. Its errors are usage
// errors naming the flag of mkpoe slurm.
func (o Options) Validate() error {
	if o.Time != "" && !slurmTime.MatchString(o.Time) {
		return errkind.Usagef("--time: must be a Slurm time limit (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS, e.g. 2:00:00), got %q", o.Time)
	}
	if o.Mem != "" && !slurmMem.MatchString(o.Mem) {
		return errkind.Usagef("--mem: must be a Slurm memory size (a whole number with an optional K, M, G or T suffix, e.g. 4G), got %q", o.Mem)
	}
	for _, v := range []string{o.Partition, o.Time, o.Mem} {
		if strings.ContainsAny(v, " \t\n'\"$`\\") {
			return errkind.Usagef("Slurm option %q: must not contain spaces, quotes or shell characters", v)
		}
	}
	return nil
}

// slurmTime matches sbatch's --time formats (minutes, minutes:seconds,
// hours:minutes:seconds, days-hours, days-hours:minutes,
// days-hours:minutes:seconds), with minutes and seconds below 60 where a
// larger unit precedes them.
var slurmTime = regexp.MustCompile(`^(\d+|\d+:[0-5]?\d|\d+:[0-5]?\d:[0-5]?\d|\d+-\d+|\d+-\d+:[0-5]?\d|\d+-\d+:[0-5]?\d:[0-5]?\d)$`)

// slurmMem matches sbatch's --mem sizes: a whole number and an optional unit.
var slurmMem = regexp.MustCompile(`^[1-9]\d*[KMGTkmgt]?$`)

func (o Options) header(b *strings.Builder, name, array, log string, cpus int) {
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
func arrayScript(p *Plan, a Array, name string, o Options) string {
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
		ShellQuote(p.Binary), ShellQuote(p.Config), ShellQuote(p.RunDir), a.Phase, a.Offset)
	return b.String()
}

// mergeScript is the sbatch script of the merge job.
func mergeScript(p *Plan, name string, o Options) string {
	var b strings.Builder
	o.header(&b, "mkpoe-"+name+"-merge", "", filepath.Join(p.RunDir, "slurm", "logs", "merge-%j.out"), 1)
	fmt.Fprintf(&b, "exec %s merge %s\n", ShellQuote(p.Binary), ShellQuote(p.RunDir))
	return b.String()
}

// ShellQuote quotes s for bash when it holds anything but safe characters.
func ShellQuote(s string) string {
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
