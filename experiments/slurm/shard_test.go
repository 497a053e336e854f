package slurm_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/experiments"
	"github.com/mkpoe/mkpoe/experiments/slurm"
	"github.com/mkpoe/mkpoe/internal/errkind"
	"github.com/mkpoe/mkpoe/internal/testconfigs"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// fakePlan is plan_test.go's (exported to this package by export_test.go).
var fakePlan = slurm.FakePlan

// tinyPlan is the plan of testconfigs.Tiny (16 phase-0 and 6 phase-1 tasks).
func tinyPlan(t *testing.T) []results.Task {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.yaml")
	if err := os.WriteFile(p, []byte(testconfigs.Tiny), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := experiments.LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	return experiments.Plan(c)
}

func TestShardsCoverPlanOnce(t *testing.T) {
	t.Parallel()
	for _, plan := range [][]results.Task{tinyPlan(t), fakePlan(1, 0), fakePlan(7, 3), fakePlan(1000, 37)} {
		for _, n := range []int{1, 2, 3, 5, 7, 22, 64} {
			for _, byPhase := range []bool{false, true} {
				seen := make([]int, len(plan))
				phases := []int{-1}
				if byPhase {
					phases = []int{0, 1}
				}
				for _, ph := range phases {
					for i := 0; i < n; i++ {
						for _, k := range (slurm.Shard{Index: i, Count: n, Phase: ph}).Indices(plan) {
							seen[k]++
						}
					}
				}
				for k, s := range seen {
					if s != 1 {
						t.Fatalf("plan of %d, %d shards, by phase %v: task %d run %d times", len(plan), n, byPhase, k, s)
					}
				}
			}
		}
		// One task per array index: the array index is the plan index.
		for k := range plan {
			if got := (slurm.Shard{Index: k, Phase: -1}).Indices(plan); !slices.Equal(got, []int{k}) {
				t.Fatalf("task-index %d selects %v", k, got)
			}
			if got := (slurm.Shard{Index: k, Phase: 1 - plan[k].Phase}).Indices(plan); len(got) != 0 {
				t.Fatalf("task-index %d of phase %d selected under the other phase", k, plan[k].Phase)
			}
		}
	}
}

func TestShardRequestResolve(t *testing.T) {
	t.Parallel()
	type req = slurm.ShardRequest
	type shard = slurm.Shard
	for _, test := range []struct {
		name string
		req  req
		env  map[string]string
		want shard
		err  string
	}{
		{name: "none", req: req{Index: -1, Phase: -1}, want: shard{Index: -1, Phase: -1}},
		{name: "one task", req: req{Index: 4, Phase: -1}, want: shard{Index: 4, Phase: -1, Source: "--task-index"}},
		{name: "mod", req: req{Index: 2, Count: 3, Phase: 0}, want: shard{Index: 2, Count: 3, Phase: 0, Source: "--task-index"}},
		{name: "shard", req: req{Index: -1, Phase: -1, Shard: "1/4"}, want: shard{Index: 1, Count: 4, Phase: -1, Source: "--shard"}},
		{name: "flag beats env", req: req{Index: 4, Phase: -1}, env: map[string]string{"SLURM_ARRAY_TASK_ID": "7"},
			want: shard{Index: 4, Phase: -1, Source: "--task-index"}},
		{name: "env contiguous array", req: req{Index: -1, Phase: -1},
			env:  map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3"},
			want: shard{Index: 2, Count: 4, Phase: -1, Source: "SLURM_ARRAY_TASK_ID"}},
		{name: "env resubmitted list", req: req{Index: -1, Phase: -1},
			env:  map[string]string{"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "3", "SLURM_ARRAY_TASK_MAX": "9"},
			want: shard{Index: 8, Phase: -1, Source: "SLURM_ARRAY_TASK_ID"}},
		{name: "env with count flag", req: req{Index: -1, Count: 5, Phase: 1}, env: map[string]string{"SLURM_ARRAY_TASK_ID": "3"},
			want: shard{Index: 3, Count: 5, Phase: 1, Source: "SLURM_ARRAY_TASK_ID"}},
		{name: "index past plan", req: req{Index: 22, Phase: -1}, err: "the plan has 22 tasks"},
		{name: "index past count", req: req{Index: 3, Count: 3, Phase: -1}, err: "must be < --task-count 3"},
		{name: "count alone", req: req{Index: -1, Count: 3, Phase: -1}, err: "needs --task-index"},
		{name: "bad phase", req: req{Index: -1, Phase: 2}, err: "--phase"},
		{name: "bad shard", req: req{Index: -1, Phase: -1, Shard: "4/4"}, err: "i/N with 0 <= i < N"},
		{name: "shard and index", req: req{Index: 1, Phase: -1, Shard: "0/2"}, err: "not both"},
		{name: "bad env", req: req{Index: -1, Phase: -1}, env: map[string]string{"SLURM_ARRAY_TASK_ID": "x"}, err: "SLURM_ARRAY_TASK_ID"},
	} {
		t.Run(test.name, func(t *testing.T) {
			got, err := test.req.Resolve(22, func(k string) string { return test.env[k] })
			if test.err != "" {
				var in errkind.Input
				if err == nil || !strings.Contains(err.Error(), test.err) || !errors.As(err, &in) {
					t.Fatalf("error %v, want a usage error containing %q", err, test.err)
				}
				return
			}
			if err != nil || got != test.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, test.want)
			}
		})
	}
}

func TestShardString(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		s    slurm.Shard
		want string
	}{
		{slurm.Shard{Index: -1, Phase: -1}, ""},
		{slurm.Shard{Index: 4, Phase: -1, Source: "--task-index"}, "task 4"},
		{slurm.Shard{Index: 1, Count: 4, Phase: 0, Source: "--shard"}, "shard 1/4, phase 0 (from --shard)"},
		{slurm.Shard{Index: 8, Phase: 1, Source: "SLURM_ARRAY_TASK_ID"}, "task 8, phase 1 (from SLURM_ARRAY_TASK_ID)"},
	} {
		if got := test.s.String(); got != test.want {
			t.Errorf("%+v: %q, want %q", test.s, got, test.want)
		}
	}
}

func TestCompressRanges(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		in   []int
		want string
	}{
		{nil, ""},
		{[]int{5}, "5"},
		{[]int{0, 1, 2}, "0-2"},
		{[]int{3, 7, 8, 9}, "3,7-9"},
		{[]int{9, 3, 8, 7, 3}, "3,7-9"}, // unsorted, repeated
		{[]int{0, 2, 4, 5, 1000}, "0,2,4-5,1000"},
	} {
		in := slices.Clone(test.in)
		if got := slurm.CompressRanges(test.in); got != test.want {
			t.Errorf("CompressRanges(%v) = %q, want %q", test.in, got, test.want)
		}
		if !slices.Equal(in, test.in) {
			t.Errorf("CompressRanges modified its input: %v, was %v", test.in, in)
		}
	}
}

func TestShellQuote(t *testing.T) {
	t.Parallel()
	for _, test := range []struct{ in, want string }{
		{"/opt/mkpoe", "/opt/mkpoe"},
		{"a b", "'a b'"},
		{"", "''"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
	} {
		if got := slurm.ShellQuote(test.in); got != test.want {
			t.Errorf("ShellQuote(%q) = %s, want %s", test.in, got, test.want)
		}
	}
}
