package slurm

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mkpoe/mkpoe/internal/errkind"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// Shard selects part of a plan.
type Shard struct {
	Index  int // plan index (Count 0) or residue (Count > 0); -1: no sharding
	Count  int // 0: Index is one plan index
	Phase  int // -1: every phase
	Source string
}

// Active reports whether the shard restricts the plan at all.
func (s Shard) Active() bool { return s.Index >= 0 || s.Phase >= 0 }

// Selects reports whether plan task i (of phase t.Phase) belongs to the
// shard. It has the signature of experiments.RunOptions.Only.
func (s Shard) Selects(i int, t results.Task) bool {
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

// Indices lists the plan indices the shard selects.
func (s Shard) Indices(plan []results.Task) []int {
	var out []int
	for i, t := range plan {
		if s.Selects(i, t) {
			out = append(out, i)
		}
	}
	return out
}

// String describes the shard for people: "shard 1/4, phase 0 (from --shard)".
func (s Shard) String() string {
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

// ShardRequest is a shard as the flags of mkpoe run ask for it.
type ShardRequest struct {
	Index int    // --task-index; -1: not given
	Count int    // --task-count; 0: not given
	Phase int    // --phase; -1: not given
	Shard string // --shard i/N; "": not given
}

// Resolve turns the request and the Slurm environment into a shard of a
// plan of n tasks. getenv is os.Getenv outside tests. Errors are usage
// errors naming the flag or variable at fault.
func (f ShardRequest) Resolve(n int, getenv func(string) string) (Shard, error) {
	s := Shard{Index: f.Index, Count: f.Count, Phase: f.Phase}
	if f.Phase < -1 || f.Phase > 1 {
		return s, errkind.Usagef("--phase: must be 0 or 1, got %d", f.Phase)
	}
	if f.Count < 0 {
		return s, errkind.Usagef("--task-count: must be >= 1, got %d", f.Count)
	}
	if f.Shard != "" {
		return f.resolveShard(s)
	}
	if s.Index < -1 {
		return s, errkind.Usagef("--task-index: must be a plan index >= 0, got %d", s.Index)
	}
	if s.Index >= 0 {
		s.Source = "--task-index"
	} else if id := getenv("SLURM_ARRAY_TASK_ID"); id != "" {
		i, err := strconv.Atoi(id)
		if err != nil || i < 0 {
			return s, errkind.Usagef("SLURM_ARRAY_TASK_ID: must be a non-negative integer, got %q", id)
		}
		s.Index, s.Source = i, "SLURM_ARRAY_TASK_ID"
		if s.Count == 0 {
			s.Count = arrayCount(getenv)
		}
	} else if s.Count > 0 {
		return s, errkind.Usagef("--task-count: needs --task-index (or $SLURM_ARRAY_TASK_ID)")
	}
	switch {
	case s.Index < 0:
	case s.Count > 0 && s.Index >= s.Count:
		return s, errkind.Usagef("%s: must be < --task-count %d, got %d", s.Source, s.Count, s.Index)
	case s.Count == 0 && s.Index >= n:
		return s, errkind.Usagef("%s: the plan has %d tasks (0..%d), got %d", s.Source, n, n-1, s.Index)
	}
	return s, nil
}

// resolveShard reads --shard i/N, which excludes --task-index and --task-count.
func (f ShardRequest) resolveShard(s Shard) (Shard, error) {
	if f.Index >= 0 || f.Count > 0 {
		return s, errkind.Usagef("--shard: give either --shard i/N or --task-index/--task-count, not both")
	}
	a, b, ok := strings.Cut(f.Shard, "/")
	i, err1 := strconv.Atoi(a)
	c, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || c < 1 || i < 0 || i >= c {
		return s, errkind.Usagef("--shard: must be i/N with 0 <= i < N, got %q", f.Shard)
	}
	s.Index, s.Count, s.Source = i, c, "--shard"
	return s, nil
}

// arrayCount is SLURM_ARRAY_TASK_COUNT when the array is exactly
// 0..COUNT-1, else 0 (a resubmitted list such as 3,7-9 is not a sharding).
func arrayCount(getenv func(string) string) int {
	cnt, _ := strconv.Atoi(getenv("SLURM_ARRAY_TASK_COUNT"))
	lo, errLo := strconv.Atoi(getenv("SLURM_ARRAY_TASK_MIN"))
	hi, errHi := strconv.Atoi(getenv("SLURM_ARRAY_TASK_MAX"))
	if cnt > 0 && errLo == nil && errHi == nil && lo == 0 && hi == cnt-1 {
		return cnt
	}
	return 0
}

// CompressRanges writes sorted, distinct non-negative integers as a Slurm
// --array list: runs of consecutive values become ranges ("3,7-9"). The
// input may be unsorted or repeat values; it is not modified.
func CompressRanges(xs []int) string {
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

func shift(xs []int, d int) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = x + d
	}
	return out
}
