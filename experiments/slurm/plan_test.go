package slurm

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// fakePlan has n0 phase-0 tasks followed by n1 phase-1 tasks, like experiments.Plan.
func fakePlan(n0, n1 int) []results.Task {
	var plan []results.Task
	for i := 0; i < n0+n1; i++ {
		t := results.Task{ID: fmt.Sprintf("t%05d", i)}
		if i >= n0 {
			t.Phase = 1
		}
		plan = append(plan, t)
	}
	return plan
}

func TestChunkPlanBelowMaxArraySize(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		n0, n1, max int
		want        []string // phase:chunk:offset:array
	}{
		{16, 6, 1001, []string{"0:0:0:0-15", "1:0:0:16-21"}},
		{16, 6, 10, []string{"0:0:0:0-9", "0:1:10:0-5", "1:1:10:6-9", "1:2:20:0-1"}},
		{2000, 500, 1001, []string{"0:0:0:0-1000", "0:1:1001:0-998", "1:1:1001:999-1000", "1:2:2002:0-497"}},
	} {
		plan := fakePlan(test.n0, test.n1)
		arrays := chunkPlan(plan, test.max, "/s")
		var got []string
		seen := make([]int, len(plan))
		for _, a := range arrays {
			got = append(got, fmt.Sprintf("%d:%d:%d:%s", a.Phase, a.Chunk, a.Offset, a.Array))
			for _, i := range a.Indices {
				seen[i]++
				if i-a.Offset < 0 || i-a.Offset >= test.max || plan[i].Phase != a.Phase {
					t.Errorf("task %d in array %+v", i, a)
				}
			}
		}
		if !slices.Equal(got, test.want) {
			t.Errorf("%d+%d tasks, MaxArraySize %d: arrays %v, want %v", test.n0, test.n1, test.max, got, test.want)
		}
		for i, s := range seen {
			if s != 1 {
				t.Errorf("task %d in %d arrays", i, s)
			}
		}
	}
}

func TestParseMaxArraySize(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		out  string
		want int
		ok   bool
	}{
		{"MaxArraySize            = 40001\nMaxJobCount = 10000\n", 40001, true},
		{"MaxJobCount = 10000\n", 0, false},
		{"MaxArraySize = 0\n", 0, false},
		{"MaxArraySize = many\n", 0, false},
	} {
		if n, ok := parseMaxArraySize([]byte(test.out)); ok != test.ok || (ok && n != test.want) {
			t.Errorf("parseMaxArraySize(%q) = %d, %v; want %d, %v", test.out, n, ok, test.want, test.ok)
		}
	}
}

// TestPlanWrite writes the scripts of a 16+6 task plan (the shape of
// testconfigs.Tiny) chunked at 10 and checks them, slurm.json and submit.sh.
func TestPlanWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := &Plan{Config: dir + "/config.resolved.yaml", RunDir: dir, Binary: "/opt/mkpoe", ConfigHash: "abc", MaxArraySize: 10}
	o := Options{Partition: "debug", Time: "0:10:00", Mem: "1G", CPUs: 3, Parallel: 2}
	subs, err := p.Write(fakePlan(16, 6), "tiny run", o)
	if err != nil {
		t.Fatal(err)
	}
	script := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, "slurm", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	p0 := script("phase0-chunk01.sbatch")
	want := "#!/bin/bash\n#SBATCH --job-name=mkpoe-tiny_run-p0-c01\n#SBATCH --array=0-5%2\n" +
		"#SBATCH --output=" + dir + "/slurm/logs/phase0-chunk01-%a-%A.out\n" +
		"#SBATCH --cpus-per-task=3\n#SBATCH --partition=debug\n#SBATCH --time=0:10:00\n#SBATCH --mem=1G\n" +
		"set -euo pipefail\nexport GOMAXPROCS=3 OMP_NUM_THREADS=3 OPENBLAS_NUM_THREADS=3 MKL_NUM_THREADS=3\n" +
		"# Phase 0: native and cv tasks. Array index a runs plan task 10+a.\n" +
		"exec /opt/mkpoe run " + dir + "/config.resolved.yaml --out " + dir + " --phase 0 --task-index $((SLURM_ARRAY_TASK_ID + 10))\n"
	if p0 != want {
		t.Errorf("phase0-chunk01.sbatch:\n%s\nwant\n%s", p0, want)
	}
	if p1 := script("phase1-chunk02.sbatch"); !strings.Contains(p1, "#SBATCH --array=0-1%2\n") || !strings.Contains(p1, "--phase 1 --task-index $((SLURM_ARRAY_TASK_ID + 20))") {
		t.Errorf("phase1-chunk02.sbatch:\n%s", p1)
	}
	if m := script("merge.sbatch"); !strings.Contains(m, "#SBATCH --cpus-per-task=1\n") || !strings.HasSuffix(m, "exec /opt/mkpoe merge "+dir+"\n") || strings.Contains(m, "--array") {
		t.Errorf("merge.sbatch:\n%s", m)
	}
	sub := script("submit.sh")
	if !strings.HasPrefix(sub, "#!/bin/bash\nset -euo pipefail\n") || !strings.HasSuffix(sub, subs.Shell()) {
		t.Errorf("submit.sh does not hold the submissions:\n%s", sub)
	}
	for _, want := range []string{
		"p0c00=$(sbatch --parsable " + dir + "/slurm/phase0-chunk00.sbatch | cut -d';' -f1)\n",
		"p1c01=$(sbatch --parsable --dependency=afterany:$p0c00:$p0c01 " + dir + "/slurm/phase1-chunk01.sbatch",
		"merge=$(sbatch --parsable --dependency=afterany:$p0c00:$p0c01:$p1c01:$p1c02 " + dir + "/slurm/merge.sbatch",
		"echo \"merge job: $merge\"\n",
	} {
		if !strings.Contains(sub, want) {
			t.Errorf("submit.sh lacks %q:\n%s", want, sub)
		}
	}
	back, err := ReadPlan(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%+v", *back) != fmt.Sprintf("%+v", *p) {
		t.Errorf("slurm.json reads back as\n%+v\nwant\n%+v", *back, *p)
	}
}

func TestResubmit(t *testing.T) {
	t.Parallel()
	plan := fakePlan(16, 6)
	redo := func(i int) bool { return i == 3 || i == 7 || i == 8 || i == 17 }
	local := ResubmitLocal(plan, redo)
	if got := fmt.Sprint(local); got != "[{0  3,7-8 [3 7 8]} {1  17 [17]}]" {
		t.Errorf("ResubmitLocal: %s", got)
	}
	if got := ResubmitLocal(plan, func(int) bool { return false }); got == nil || len(got) != 0 {
		t.Errorf("ResubmitLocal of nothing: %#v, want an empty list", got)
	}
	p := &Plan{RunDir: "/r", MaxArraySize: 10, Merge: "/r/slurm/merge.sbatch"}
	p.Arrays = chunkPlan(plan, 10, "/r/slurm")
	arrays, commands := p.Resubmit(redo)
	if got := fmt.Sprint(arrays); got != "[{0 /r/slurm/phase0-chunk00.sbatch 3,7-8 [3 7 8]} {1 /r/slurm/phase1-chunk01.sbatch 7 [17]}]" {
		t.Errorf("Resubmit: %s", got)
	}
	want := "p0c00=$(sbatch --parsable --array=3,7-8 /r/slurm/phase0-chunk00.sbatch | cut -d';' -f1)\n" +
		"p1c01=$(sbatch --parsable --dependency=afterany:$p0c00 --array=7 /r/slurm/phase1-chunk01.sbatch | cut -d';' -f1)\n" +
		"merge=$(sbatch --parsable --dependency=afterany:$p0c00:$p1c01 /r/slurm/merge.sbatch | cut -d';' -f1)\n" +
		"echo \"merge job: $merge\"\n"
	if commands != want {
		t.Errorf("commands:\n%s\nwant\n%s", commands, want)
	}
}

func TestOptionsValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		o   Options
		err string // "" for none
	}{
		{Options{Time: "90"}, ""}, {Options{Time: "2:00:00"}, ""}, {Options{Time: "1-12"}, ""}, {Options{Time: "1-12:30:00"}, ""}, {Options{Time: "30:15"}, ""},
		{Options{Time: "99:99:99x"}, "--time"}, {Options{Time: "2:60:00"}, "--time"}, {Options{Time: "abc"}, "--time"}, {Options{Time: "-1"}, "--time"},
		{Options{Mem: "4G"}, ""}, {Options{Mem: "1500"}, ""}, {Options{Mem: "512m"}, ""},
		{Options{Mem: "abc"}, "--mem"}, {Options{Mem: "4GB"}, "--mem"}, {Options{Mem: "0"}, "--mem"}, {Options{Mem: "1.5G"}, "--mem"},
		{Options{Partition: "debug"}, ""}, {Options{Partition: "a b"}, "--partition: must be"}, {Options{Partition: "$(x)"}, "--partition: must be"},
	} {
		err := tc.o.Validate()
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%+v: %v, want an error containing %q", tc.o, err, tc.err)
		}
	}
}

func TestJobName(t *testing.T) {
	t.Parallel()
	if got := jobName("aset400 K4/diag-1.0_x"); got != "aset400_K4_diag-1.0_x" {
		t.Errorf("jobName: %q", got)
	}
}
