package slurm

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Submission is one sbatch call: it depends (afterany) on the job ids of
// the calls named in After.
type Submission struct {
	Var    string   // shell variable holding the job id
	Array  string   // --array override ("" keeps the script's)
	After  []string // variables of the jobs this one waits for
	Script string
}

// Submissions are sbatch calls in the order they must be made.
type Submissions []Submission

// submissionFor chains arrays: phase-1 arrays after every phase-0 array,
// the merge job after everything. afterany, not afterok: one failed task
// must not leave the rest of the run pending forever; a refit whose cv
// results are missing records that as its error and "mkpoe status" lists it.
// lists, when not nil, overrides each array's --array list.
func submissionFor(arrays []Array, lists []string, merge string) Submissions {
	var subs Submissions
	var phase0, all []string
	for i, a := range arrays {
		v := fmt.Sprintf("p%dc%02d", a.Phase, a.Chunk)
		s := Submission{Var: v, Script: a.Script}
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
	return append(subs, Submission{Var: "merge", After: all, Script: merge})
}

// args are the arguments of the call, with the dependency on the job ids
// that dep gives for each variable of After.
func (s Submission) args(dep func(v string) string) []string {
	args := []string{"--parsable"}
	if len(s.After) > 0 {
		var deps []string
		for _, v := range s.After {
			deps = append(deps, dep(v))
		}
		args = append(args, "--dependency=afterany:"+strings.Join(deps, ":"))
	}
	if s.Array != "" {
		args = append(args, "--array="+s.Array)
	}
	return append(args, s.Script)
}

// Shell renders the submissions as bash lines that pass job ids along.
func (subs Submissions) Shell() string {
	var b strings.Builder
	for _, s := range subs {
		args := s.args(func(v string) string { return "$" + v })
		for i := range args {
			if !strings.Contains(args[i], "$") {
				args[i] = ShellQuote(args[i])
			}
		}
		fmt.Fprintf(&b, "%s=$(sbatch %s | cut -d';' -f1)\n", s.Var, strings.Join(args, " "))
	}
	fmt.Fprintf(&b, "echo \"merge job: $merge\"\n")
	return b.String()
}

// Submit runs the sbatch calls, reports each job id on stdout, and returns
// the job id of each variable.
func (subs Submissions) Submit(ctx context.Context, stdout io.Writer) (map[string]string, error) {
	ids := map[string]string{}
	for _, s := range subs {
		args := s.args(func(v string) string { return ids[v] })
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

// MaxArraySize reads MaxArraySize from "scontrol show config", or returns
// DefaultMaxArraySize when scontrol is absent or says nothing; the string
// says where the value came from.
func MaxArraySize(ctx context.Context) (int, string) {
	if _, err := exec.LookPath("scontrol"); err != nil {
		return DefaultMaxArraySize, "default; scontrol not found"
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "scontrol", "show", "config").Output()
	if err != nil {
		return DefaultMaxArraySize, "default; scontrol show config failed"
	}
	if n, ok := parseMaxArraySize(out); ok {
		return n, "scontrol show config"
	}
	return DefaultMaxArraySize, "default; not in scontrol show config"
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
