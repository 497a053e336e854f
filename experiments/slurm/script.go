package slurm

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mkpoe/mkpoe/internal/errkind"
)

// Options are the resources of the generated jobs. Empty strings and zero
// Parallel leave the cluster's defaults.
type Options struct {
	Partition, Time, Mem string
	Account, QOS         string // --account, --qos: Slurm names
	Constraint           string // --constraint: node features, e.g. "intel&(ib|opa)"
	CPUs, Parallel       int    // CPUs per task (≥ 1); at most Parallel array tasks at once
	// Extra are further sbatch options, each "--key=value" or "--key"
	// (mkpoe slurm --sbatch-option), written as #SBATCH lines in order.
	Extra []string
}

// Validate checks that Time and Mem are in sbatch's formats, that Account,
// QOS and Constraint are Slurm names and feature expressions, that every
// Extra option is a long sbatch option that mkpoe slurm does not set itself,
// and that no option can break out of the script's #SBATCH lines. Its errors
// are usage errors naming the flag of mkpoe slurm, the rule and the value.
func (o Options) Validate() error {
	if o.Time != "" && !slurmTime.MatchString(o.Time) {
		return errkind.Usagef("--time: must be a Slurm time limit (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS, e.g. 2:00:00), got %q", o.Time)
	}
	if o.Mem != "" && !slurmMem.MatchString(o.Mem) {
		return errkind.Usagef("--mem: must be a Slurm memory size (a whole number with an optional K, M, G or T suffix, e.g. 4G), got %q", o.Mem)
	}
	if strings.ContainsAny(o.Partition, " \t\n\r'\"$`\\#") || !printable(o.Partition) {
		return errkind.Usagef("--partition: must be a Slurm partition name or comma-separated list, without spaces, quotes, '#' or shell characters, got %q", o.Partition)
	}
	for _, f := range []struct{ flag, v string }{{"--account", o.Account}, {"--qos", o.QOS}} {
		if f.v != "" && !slurmName.MatchString(f.v) {
			return errkind.Usagef("%s: must be a Slurm name (letters, digits, '_', '.', '-' or '+', starting with a letter, digit or '_'), got %q", f.flag, f.v)
		}
	}
	if o.Constraint != "" && !slurmConstraint.MatchString(o.Constraint) {
		return errkind.Usagef("--constraint: must be a Slurm feature expression (feature names of letters, digits, '_', '.', '-', ':' or '=', joined by &, |, ',', with *COUNT, [...] and (...)), got %q", o.Constraint)
	}
	for _, e := range o.Extra {
		if err := validateExtra(e); err != nil {
			return err
		}
	}
	return nil
}

// slurmName matches account and QOS names.
var slurmName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`)

// slurmConstraint matches sbatch --constraint expressions by their
// characters: feature names and the operators & | , * [ ] ( ).
var slurmConstraint = regexp.MustCompile(`^[A-Za-z0-9_.:=&|,*\[\]()-]+$`)

// sbatchKey matches the name of a long sbatch option, without its "--".
var sbatchKey = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// managed are the sbatch options that mkpoe slurm sets itself: the
// --sbatch-option pass-through refuses them (and their abbreviations,
// which sbatch accepts), saying what sets them instead.
var managed = []struct{ key, why string }{
	{"array", "the array lists of the plan's chunks; use --parallel K for a %K throttle"},
	{"output", "the per-task logs under RUN_DIR/slurm/logs, which mkpoe status points to"},
	{"dependency", "the chaining of refits after phase 0 and of the merge job after every array job"},
	{"parsable", "the job ids that submit.sh and --submit read"},
	{"job-name", "the job names mkpoe-NAME-pP-cKK and mkpoe-NAME-merge"},
	{"cpus-per-task", "--cpus, which also sets GOMAXPROCS and the BLAS thread counts"},
	{"wrap", "the generated scripts, which are the jobs"},
	{"partition", "--partition"},
	{"time", "--time"},
	{"mem", "--mem"},
	{"account", "--account"},
	{"qos", "--qos"},
	{"constraint", "--constraint"},
}

// validateExtra checks one --sbatch-option value.
func validateExtra(e string) error {
	key, _, _ := strings.Cut(e, "=")
	name, long := strings.CutPrefix(key, "--")
	if !long || !sbatchKey.MatchString(name) {
		return errkind.Usagef("--sbatch-option: must be a long sbatch option, --key=value or --key (key of lowercase letters, digits and '-'; give -A X as --account=X), got %q", e)
	}
	if !printable(e) {
		return errkind.Usagef("--sbatch-option: must not contain newlines, tabs or other control characters, got %q", e)
	}
	for _, m := range managed {
		if strings.HasPrefix(m.key, name) {
			return errkind.Usagef("--sbatch-option: --%s is set by mkpoe slurm (%s), got %q", m.key, m.why, e)
		}
	}
	return nil
}

// printable reports whether s is valid UTF-8 without control characters:
// nothing in it can end an #SBATCH line.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return true
}

// slurmTime matches sbatch's --time formats (minutes, minutes:seconds,
// hours:minutes:seconds, days-hours, days-hours:minutes,
// days-hours:minutes:seconds), with minutes and seconds below 60 where a
// larger unit precedes them.
var slurmTime = regexp.MustCompile(`^(\d+|\d+:[0-5]?\d|\d+:[0-5]?\d:[0-5]?\d|\d+-\d+|\d+-\d+:[0-5]?\d|\d+-\d+:[0-5]?\d:[0-5]?\d)$`)

// slurmMem matches sbatch's --mem sizes: a whole number and an optional unit.
var slurmMem = regexp.MustCompile(`^[1-9]\d*[KMGTkmgt]?$`)

// sbatchLines are the #SBATCH lines of the user's options, in a fixed
// order: partition, time, mem, account, qos, constraint, then Extra as
// given. Values are quoted for sbatch's parser of #SBATCH lines (sbatchQuote);
// to bash the lines are comments.
func (o Options) sbatchLines() []string {
	var lines []string
	for _, kv := range [][2]string{{"partition", o.Partition}, {"time", o.Time}, {"mem", o.Mem}, {"account", o.Account}, {"qos", o.QOS}, {"constraint", o.Constraint}} {
		if kv[1] != "" {
			lines = append(lines, "#SBATCH --"+kv[0]+"="+sbatchQuote(kv[1]))
		}
	}
	for _, e := range o.Extra {
		if key, v, ok := strings.Cut(e, "="); ok {
			lines = append(lines, "#SBATCH "+key+"="+sbatchQuote(v))
		} else {
			lines = append(lines, "#SBATCH "+key)
		}
	}
	return lines
}

// sbatchQuote quotes v for an #SBATCH line when it holds anything but safe
// characters. sbatch splits those lines at unquoted white space, ends them
// at an unquoted '#', and takes quotes ' or " and backslash escapes (also
// inside quotes); so v goes in single quotes with \ and ' escaped.
func sbatchQuote(v string) string {
	safe := v != ""
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%&|*[]()", r)) {
			safe = false
			break
		}
	}
	if safe {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

func (o Options) header(b *strings.Builder, name, array, log string, cpus int) {
	fmt.Fprintf(b, "#!/bin/bash\n#SBATCH --job-name=%s\n", name)
	if array != "" {
		fmt.Fprintf(b, "#SBATCH --array=%s\n", array)
	}
	fmt.Fprintf(b, "#SBATCH --output=%s\n#SBATCH --cpus-per-task=%d\n", log, cpus)
	for _, l := range o.sbatchLines() {
		b.WriteString(l + "\n")
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
