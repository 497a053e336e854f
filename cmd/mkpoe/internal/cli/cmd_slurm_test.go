package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/experiments"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// writeTiny writes tinyConfig into a temporary directory and returns its path.
func writeTiny(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.yaml")
	if err := os.WriteFile(p, []byte(tinyConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSlurmScripts(t *testing.T) {
	cfg := writeTiny(t)
	dir := filepath.Join(t.TempDir(), "run")
	code, out, errs := run("slurm", cfg, "--out", dir, "--max-array-size", "10", "--parallel", "2", "--cpus", "3",
		"--mem", "1G", "--time", "0:10:00", "--partition", "debug", "--bin", "/opt/mkpoe",
		"--account", "proj-42", "--qos", "high", "--constraint", "intel&ib", "--sbatch-option", "--gres=gpu:1", "--sbatch-option=--comment=a b; $(rm -rf /)", "--sbatch-option", "--requeue")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	script := func(name string) string { return string(readFile(t, filepath.Join(dir, "slurm", name))) }
	p0 := script("phase0-chunk01.sbatch")
	for _, want := range []string{
		"#!/bin/bash\n#SBATCH --job-name=mkpoe-tiny-p0-c01\n#SBATCH --array=0-5%2\n",
		"#SBATCH --output=" + dir + "/slurm/logs/phase0-chunk01-%a-%A.out\n",
		"#SBATCH --cpus-per-task=3\n#SBATCH --partition=debug\n#SBATCH --time=0:10:00\n#SBATCH --mem=1G\n" +
			"#SBATCH --account=proj-42\n#SBATCH --qos=high\n#SBATCH --constraint=intel&ib\n" +
			"#SBATCH --gres=gpu:1\n#SBATCH --comment='a b; $(rm -rf /)'\n#SBATCH --requeue\nset -euo pipefail\n",
		"export GOMAXPROCS=3 OMP_NUM_THREADS=3 OPENBLAS_NUM_THREADS=3 MKL_NUM_THREADS=3\n",
		"exec /opt/mkpoe run " + dir + "/config.resolved.yaml --out " + dir + " --phase 0 --task-index $((SLURM_ARRAY_TASK_ID + 10))\n",
	} {
		if !strings.Contains(p0, want) {
			t.Errorf("phase0-chunk01.sbatch lacks %q:\n%s", want, p0)
		}
	}
	if p1 := script("phase1-chunk02.sbatch"); !strings.Contains(p1, "#SBATCH --array=0-1%2\n") || !strings.Contains(p1, "--phase 1 --task-index $((SLURM_ARRAY_TASK_ID + 20))") {
		t.Errorf("phase1-chunk02.sbatch:\n%s", p1)
	}
	if m := script("merge.sbatch"); !strings.Contains(m, "exec /opt/mkpoe merge "+dir+"\n") || strings.Contains(m, "--array") ||
		!strings.Contains(m, "#SBATCH --account=proj-42\n#SBATCH --qos=high\n#SBATCH --constraint=intel&ib\n#SBATCH --gres=gpu:1\n#SBATCH --comment='a b; $(rm -rf /)'\n#SBATCH --requeue\n") {
		t.Errorf("merge.sbatch:\n%s", m)
	}
	sub := script("submit.sh")
	for _, want := range []string{
		"p0c00=$(sbatch --parsable " + dir + "/slurm/phase0-chunk00.sbatch | cut -d';' -f1)\n",
		"p1c01=$(sbatch --parsable --dependency=afterany:$p0c00:$p0c01 " + dir + "/slurm/phase1-chunk01.sbatch",
		"merge=$(sbatch --parsable --dependency=afterany:$p0c00:$p0c01:$p1c01:$p1c02 " + dir + "/slurm/merge.sbatch",
	} {
		if !strings.Contains(sub, want) || !strings.Contains(out, want) {
			t.Errorf("submit.sh and the output lack %q:\n%s", want, sub)
		}
	}
	// The run directory is a run directory before any job starts.
	code, out, errs = run("status", dir)
	if code != 0 || !strings.Contains(out, "22 tasks: 0 done, 22 missing, 0 failed") {
		t.Errorf("status of a fresh run: exit %d\n%s%s", code, out, errs)
	}

	for _, bad := range [][]string{
		{"--cpus", "0"}, {"--parallel", "-1"}, {"--mem", "1G; rm -rf /"}, {"--max-array-size", "-3"}, {"--bogus"},
		{"--account", "a b"}, {"--sbatch-option", "--array=1-3"},
	} {
		if code, _, errs := run(append([]string{"slurm", cfg, "--out", dir}, bad...)...); code != ExitUsage {
			t.Errorf("slurm %v: exit %d, want 2\n%s", bad, code, errs)
		}
	}
}

// TestResolvedConfigReloadsToSameHash: a run directory's config.resolved.yaml
// loads back (as "mkpoe status DIR" and the Slurm jobs load it) to the hash
// of the config it came from, for the shipped configs given by relative path.
func TestResolvedConfigReloadsToSameHash(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(repoRoot, "configs", "*.yaml"))
	paths = append(paths, writeTiny(t))
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			dir := t.TempDir()
			c, err := loadConfigArgs("check", []string{p, "--out", dir}, &bytes.Buffer{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := experiments.Prepare(c, false); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			back, err := loadRunArgs("status", []string{dir}, &stderr, nil)
			if err != nil {
				t.Fatal(err)
			}
			if back.Hash() != c.Hash() {
				t.Errorf("hash %s after reloading %s, was %s", back.Hash(), filepath.Join(dir, "config.resolved.yaml"), c.Hash())
			}
			if back.Dataset.Dir != c.Dataset.Dir || (c.Dataset.Dir != "" && !filepath.IsAbs(c.Dataset.Dir)) {
				t.Errorf("dataset dir %q after reloading, was %q (want an absolute path)", back.Dataset.Dir, c.Dataset.Dir)
			}
			again, err := experiments.LoadConfig(filepath.Join(dir, "config.resolved.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if again.Output != dir {
				t.Errorf("the resolved config names output %q, want the run directory %s", again.Output, dir)
			}
		})
	}
}

func TestStatusResubmitAndMerge(t *testing.T) {
	cfg := writeTiny(t)
	dir := filepath.Join(t.TempDir(), "run")
	if code, out, errs := run("run", cfg, "--out", dir, "--workers", "2"); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	want := readFile(t, filepath.Join(dir, "summary.json"))
	plan := experiments.Plan(loadTiny(t, dir))

	// Merging a complete run again changes nothing.
	if code, out, errs := run("merge", dir); code != 0 || !strings.Contains(out, "merged 22 tasks") {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errs)
	}
	if got := readFile(t, filepath.Join(dir, "summary.json")); !bytes.Equal(got, want) {
		t.Fatal("a second merge changed summary.json")
	}

	// Lose task 3, fail task 7 and refit 17, make task 8 stale: refit 18
	// (task 8's split) then waits for it to choose its β again.
	task := func(i int) string { return filepath.Join(dir, "tasks", plan[i].ID+".json") }
	edit := func(i int, f func(r *results.TaskResult)) {
		var r results.TaskResult
		if err := json.Unmarshal(readFile(t, task(i)), &r); err != nil {
			t.Fatal(err)
		}
		f(&r)
		if err := results.WriteFile(task(i), &r); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(task(3)); err != nil {
		t.Fatal(err)
	}
	edit(7, func(r *results.TaskResult) { r.Status, r.Error = "failed", "β=10: boom" })
	edit(17, func(r *results.TaskResult) { r.Status, r.Error = "failed", "refit needs the results of [x] first" })
	edit(8, func(r *results.TaskResult) { r.Inputs = "0123456789abcdef" })

	code, out, errs := run("status", dir, "--json")
	if code != 0 {
		t.Fatalf("status: exit %d\n%s", code, errs)
	}
	var s experiments.RunState
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if s.Total != 22 || s.Done != 17 || len(s.Missing) != 3 || len(s.Failed) != 2 {
		t.Fatalf("status: %+v", s)
	}
	if s.Missing[0].Index != 3 || s.Missing[0].Reason != "no result" || s.Missing[1].Index != 8 || !strings.HasPrefix(s.Missing[1].Reason, "stale") ||
		s.Missing[2].Index != 18 || !strings.HasPrefix(s.Missing[2].Reason, "stale until its split's cv tasks are done: reused if they choose β=") {
		t.Errorf("missing: %+v", s.Missing)
	}
	if s.Failed[0].Index != 7 || s.Failed[0].Error != "β=10: boom" || s.Failed[1].Index != 17 {
		t.Errorf("failed: %+v", s.Failed)
	}
	// No Slurm scripts yet: plan indices per phase.
	if len(s.Resubmit) != 2 || s.Resubmit[0].Array != "3,7-8" || s.Resubmit[1].Array != "17-18" {
		t.Errorf("resubmit: %+v", s.Resubmit)
	}

	// With scripts chunked at 10, the lists are per array job.
	if code, _, errs := run("slurm", cfg, "--out", dir, "--max-array-size", "10"); code != 0 {
		t.Fatalf("slurm: exit %d\n%s", code, errs)
	}
	if code, out, errs = run("status", dir); code != 0 {
		t.Errorf("status: exit %d\n%s", code, errs)
	}
	for _, w := range []string{
		"22 tasks: 17 done, 3 missing, 2 failed\n",
		"  7 {cv 2 1 1}: β=10: boom\n",
		"  8 {cv 3 0 0}: stale (computed from other inputs, digest 0123456789abcdef)\n",
		"resubmit phase 0 (phase0-chunk00.sbatch): --array=3,7-8\n",
		"resubmit phase 1 (phase1-chunk01.sbatch): --array=7-8\n",
		"p0c00=$(sbatch --parsable --array=3,7-8 " + dir + "/slurm/phase0-chunk00.sbatch",
		"p1c01=$(sbatch --parsable --dependency=afterany:$p0c00 --array=7-8 " + dir + "/slurm/phase1-chunk01.sbatch",
		"merge=$(sbatch --parsable --dependency=afterany:$p0c00:$p1c01 " + dir + "/slurm/merge.sbatch",
	} {
		if w = expandIDs(loadTiny(t, dir), w); !strings.Contains(out, w) {
			t.Errorf("status lacks %q:\n%s", w, out)
		}
	}

	// experiments.Merge names what is missing and exits 1, leaving the summary alone.
	code, _, errs = run("merge", dir)
	if code != ExitFailure || !strings.Contains(errs, "run incomplete: 3 missing, 2 failed of 22 tasks") || !strings.Contains(errs, expandIDs(loadTiny(t, dir), "3 {native 1 1 -1}: no result")) {
		t.Errorf("merge of an incomplete run: exit %d\n%s", code, errs)
	}

	// A shard runs only its tasks, does not merge, and ignores the others.
	os.Remove(filepath.Join(dir, "summary.json"))
	for _, i := range []string{"3", "7", "8"} {
		if code, out, errs := run("run", filepath.Join(dir, "config.resolved.yaml"), "--out", dir, "--phase", "0", "--task-index", i); code != 0 {
			t.Fatalf("run --task-index %s: exit %d\n%s%s", i, code, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err == nil {
		t.Error("a shard wrote summary.json")
	}
	if code, _, errs := run("run", cfg, "--out", dir, "--shard", "1/4", "--phase", "1"); code != 0 {
		t.Fatalf("run --shard 1/4 (holds task 17): exit %d\n%s", code, errs)
	}
	if code, out, errs := run("merge", dir); code != 0 {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errs)
	}
	if got := readFile(t, filepath.Join(dir, "summary.json")); !bytes.Equal(got, want) {
		t.Errorf("summary after resubmitting differs:\n%s\n%s", want, got)
	}
	code, out, _ = run("status", cfg, "--out", dir)
	if code != 0 || !strings.Contains(out, "22 tasks: 22 done, 0 missing, 0 failed") {
		t.Errorf("status: exit %d\n%s", code, out)
	}
}

// TestSlurmResourceFlags: --time and --mem take sbatch's formats, --account
// and --qos Slurm names, --constraint feature expressions, --sbatch-option
// long options that mkpoe slurm does not set itself; anything else is a
// usage error naming the flag and the value, before any file is written.
func TestSlurmResourceFlags(t *testing.T) {
	cfg := writeTiny(t)
	for _, tc := range []struct {
		flag, value string
		ok          bool
	}{
		{"--time", "90", true}, {"--time", "2:00:00", true}, {"--time", "1-12", true}, {"--time", "1-12:30:00", true}, {"--time", "30:15", true},
		{"--time", "99:99:99x", false}, {"--time", "2:60:00", false}, {"--time", "abc", false}, {"--time", "-1", false},
		{"--mem", "4G", true}, {"--mem", "1500", true}, {"--mem", "512m", true},
		{"--mem", "abc", false}, {"--mem", "4GB", false}, {"--mem", "0", false}, {"--mem", "1.5G", false},
		{"--account", "proj-42", true}, {"--account", "my proj", false}, {"--account", "a;reboot", false}, {"--account", "a\nb", false},
		{"--qos", "high", true}, {"--qos", "$(id)", false},
		{"--constraint", "intel&(ib|opa)", true}, {"--constraint", "a b", false}, {"--constraint", "a`id`", false},
		{"--partition", "gpu,cpu", true}, {"--partition", "a b", false}, {"--partition", "a'b", false},
		{"--sbatch-option", "--gres=gpu:1", true}, {"--sbatch-option", "--comment=a b $(id) `id` 'q' \"d\" #c", true}, {"--sbatch-option", "--exclusive", true},
		{"--sbatch-option", "gres=gpu:1", false}, {"--sbatch-option", "-A x", false}, {"--sbatch-option", "--comment=a\nb", false},
		{"--sbatch-option", "--array=0-3", false}, {"--sbatch-option", "--arr=0-3", false}, {"--sbatch-option", "--output=x", false},
		{"--sbatch-option", "--dependency=afterok:1", false}, {"--sbatch-option", "--parsable", false}, {"--sbatch-option", "--account=x", false},
	} {
		out := filepath.Join(t.TempDir(), "run")
		code, _, stderr := run("slurm", cfg, "--out", out, tc.flag, tc.value, "--max-array-size", "1000")
		switch {
		case tc.ok && code != ExitOK:
			t.Errorf("%s %s: exit %d: %s", tc.flag, tc.value, code, stderr)
		case !tc.ok && (code != ExitUsage || !strings.Contains(stderr, tc.flag+": ") || !strings.Contains(stderr, strconv.Quote(tc.value))):
			t.Errorf("%s %s: exit %d, stderr %q; want exit %d naming %s", tc.flag, tc.value, code, stderr, ExitUsage, tc.flag)
		case !tc.ok:
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s %s: refused, but the run directory was created", tc.flag, tc.value)
			}
		}
	}
}
