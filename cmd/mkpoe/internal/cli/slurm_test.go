package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mkpoe/mkpoe/experiments"
)

// TestSlurmSingleNode runs a sweep on a real single-node Slurm cluster on
// localhost (munge, slurmctld and slurmd with all state in a temporary
// directory; the recipe is this file's cluster set-up, docs/slurm.md "Tests"): "mkpoe slurm
// --submit" with MaxArraySize 10, so the 22-task plan needs four array jobs
// plus the merge job; the merged summary.json must be byte-identical to a
// local "mkpoe run". Then one task's result is deleted, "mkpoe status"
// gives the --array list and the sbatch lines, only that task is rerun,
// and the merge is byte-identical again. The jobs are submitted with
// --account, --qos, --constraint and --sbatch-option, which scontrol must
// show on every job.
//
// It needs root and Slurm (apt-get install slurm-wlm slurmctld slurmd munge
// slurm-client; .ci/run installs them) and is skipped otherwise.
func TestSlurmSingleNode(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the Slurm cluster test")
	}
	if os.Geteuid() != 0 {
		t.Skip("the single-node Slurm test runs slurmd, which needs root")
	}
	var missing []string
	for _, b := range []string{"munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol"} {
		if _, err := lookSbin(b); err != nil {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		t.Skipf("Slurm is not installed (no %s): apt-get install -y --no-install-recommends slurm-wlm slurmctld slurmd munge slurm-client", strings.Join(missing, ", "))
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	cl := startCluster(t, ctx)
	t.Logf("cluster up in %.1fs", time.Since(start).Seconds())

	bin := filepath.Join(t.TempDir(), "mkpoe")
	build := exec.CommandContext(ctx, goTool(), "build", "-o", bin, "./cmd/mkpoe")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	mkpoe := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = cl.env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("mkpoe %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
		}
		return out.String()
	}

	cfg := writeTiny(t)
	local := filepath.Join(t.TempDir(), "local")
	mkpoe("run", cfg, "--out", local, "--workers", "2")
	want := readFile(t, filepath.Join(local, "summary.json"))

	dir := filepath.Join(cl.dir, "mkpoe-run") // root-owned and readable by the jobs; cl.dir/run is munge's
	// The account, QOS, constraint and pass-through options reach every
	// job (the node has feature mkpoetest; there is no accounting, so any
	// account is accepted); the comment's spaces and shell characters
	// reach Slurm as given and run nothing.
	const comment = `mkpoe test; $(touch /pwned) 'q' "d" #c`
	out := mkpoe("slurm", cfg, "--out", dir, "--cpus", "1", "--account", "proj-42", "--qos", "normal",
		"--constraint", "mkpoetest", "--sbatch-option", "--comment="+comment, "--sbatch-option=--nice=0", "--submit")
	t.Logf("mkpoe slurm --submit:\n%s", out)
	if !strings.Contains(out, "22 tasks in 4 array job(s) (MaxArraySize 10, scontrol show config)") {
		t.Errorf("MaxArraySize was not read from the cluster:\n%s", out)
	}
	if n := strings.Count(out, "submitted "); n != 5 {
		t.Fatalf("%d jobs submitted, want 4 arrays and a merge job", n)
	}
	cl.waitIdle(t, ctx)
	t.Logf("sweep done after %.1fs", time.Since(start).Seconds())
	for _, m := range regexp.MustCompile(`submitted (\S+): job (\d+)`).FindAllStringSubmatch(out, -1) {
		job, err := cl.command(ctx, "scontrol", "show", "job", m[2])
		if err != nil {
			t.Fatalf("scontrol show job %s (%s): %v\n%s", m[2], m[1], err, job)
		}
		// (Without accounting, Slurm takes --qos and shows QOS=(null).)
		for _, want := range []string{`\bAccount=proj-42\s`, `\bFeatures=mkpoetest\s`, `\bComment=` + regexp.QuoteMeta(comment) + `[ \t]*\n`} {
			if !regexp.MustCompile(want).MatchString(job) {
				t.Errorf("job %s (%s) does not match %s:\n%s", m[2], m[1], want, job)
			}
		}
	}
	if _, err := os.Stat("/pwned"); err == nil {
		t.Error("a job ran the --sbatch-option comment as a command")
	}
	if got, err := os.ReadFile(filepath.Join(dir, "summary.json")); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Slurm summary differs from the local run (%v); merge logs:\n%s", err, cl.logs(t, dir, "merge-*.out"))
	}
	if logs, _ := filepath.Glob(filepath.Join(dir, "slurm", "logs", "phase*-*.out")); len(logs) != 22 {
		t.Errorf("%d array task logs, want 22", len(logs))
	}

	// Lose one cv task (and the summary), resubmit only it, merge again.
	plan := experiments.Plan(loadTiny(t, dir))
	const lost = 13
	for _, p := range []string{filepath.Join(dir, "tasks", plan[lost].ID+".json"), filepath.Join(dir, "summary.json")} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	var s experiments.RunState
	if err := json.Unmarshal([]byte(mkpoe("status", dir, "--json")), &s); err != nil {
		t.Fatal(err)
	}
	// The lost cv task is missing, and its split's refit (task 20) waits
	// for it: it is resubmitted after it, and reuses its model if the cv
	// tasks choose the same β again.
	if len(s.Missing) != 2 || s.Missing[0].Index != lost || s.Missing[1].Index != 20 || !strings.HasPrefix(s.Missing[1].Reason, "stale until its split's cv tasks are done") ||
		len(s.Resubmit) != 2 || s.Resubmit[0].Array != strconv.Itoa(lost-10) || s.Resubmit[1].Phase != 1 {
		t.Fatalf("status after losing task %d: %+v", lost, s)
	}
	resub := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", s.Commands)
	resub.Env = cl.env
	if out, err := resub.CombinedOutput(); err != nil {
		t.Fatalf("resubmitting:\n%s\n%v\n%s", s.Commands, err, out)
	} else {
		t.Logf("resubmitted:\n%s%s", s.Commands, out)
	}
	cl.waitIdle(t, ctx)
	if got, err := os.ReadFile(filepath.Join(dir, "summary.json")); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("summary after resubmitting task %d differs (%v); merge logs:\n%s", lost, err, cl.logs(t, dir, "merge-*.out"))
	}
	if out := mkpoe("status", dir); !strings.Contains(out, "22 tasks: 22 done, 0 missing, 0 failed") {
		t.Errorf("status:\n%s", out)
	}
	t.Logf("whole test %.1fs", time.Since(start).Seconds())
}

// cluster is a running single-node Slurm cluster.
type cluster struct {
	dir string
	env []string // SLURM_CONF points at dir/slurm.conf
}

// lookSbin finds a program in PATH or in /usr/sbin (not in every PATH).
func lookSbin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return exec.LookPath(filepath.Join("/usr/sbin", name))
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	// Not on PATH (.ci/run may use a toolchain in /tmp): the go that
	// runs this test.
	if root := os.Getenv("GOROOT"); root != "" {
		return filepath.Join(root, "bin", "go")
	}
	//lint:ignore SA1019 last resort: the GOROOT this test binary was built with, on this machine
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startCluster starts munged, slurmctld and slurmd and waits until the node
// is idle. The daemons are stopped (by the PIDs in their pid files) and the
// directory removed when the test ends.
func startCluster(t *testing.T, ctx context.Context) *cluster {
	// A short path: the munge socket path must fit in sockaddr_un.
	dir, err := os.MkdirTemp("", "mkpoe-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	cl := &cluster{dir: dir, env: append(os.Environ(), "SLURM_CONF="+filepath.Join(dir, "slurm.conf"))}
	var pidFiles []string
	t.Cleanup(func() {
		for i := len(pidFiles) - 1; i >= 0; i-- {
			stopDaemon(t, pidFiles[i])
		}
		if t.Failed() {
			for _, f := range []string{"slurmctld.log", "slurmd.log", "munged.log"} {
				b, _ := os.ReadFile(filepath.Join(dir, f))
				t.Logf("%s (tail):\n%s", f, tail(string(b), 2000))
			}
		}
		os.RemoveAll(dir)
	})
	for _, d := range []string{"run", "state", "spool"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := make([]byte, 1024)
	rand.Read(key)
	if err := os.WriteFile(filepath.Join(dir, "munge.key"), key, 0o400); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "run", "munge.sock")
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	conf := fmt.Sprintf(`ClusterName=mkpoetest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=%[2]s
CredType=cred/munge
SlurmctldPort=%[3]d
SlurmdPort=%[4]d
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
SlurmctldLogFile=%[5]s/slurmctld.log
SlurmdLogFile=%[5]s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MaxArraySize=10
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=%[6]d RealMemory=2000 Feature=mkpoetest State=UNKNOWN
PartitionName=debug Nodes=%[1]s Default=YES MaxTime=INFINITE State=UP
`, host, sock, freePort(t), freePort(t), dir, runtime.NumCPU())
	if err := os.WriteFile(filepath.Join(dir, "slurm.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	daemon := func(pidFile, name string, args ...string) {
		p, _ := lookSbin(name)
		cmd := exec.CommandContext(ctx, p, args...)
		cmd.Env = cl.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		pidFiles = append(pidFiles, pidFile)
	}
	daemon(filepath.Join(dir, "munged.pid"), "munged", "--force", "--socket="+sock, "--key-file="+filepath.Join(dir, "munge.key"),
		"--pid-file="+filepath.Join(dir, "munged.pid"), "--log-file="+filepath.Join(dir, "munged.log"), "--seed-file="+filepath.Join(dir, "munged.seed"))
	daemon(filepath.Join(dir, "slurmctld.pid"), "slurmctld", "-f", filepath.Join(dir, "slurm.conf"))
	daemon(filepath.Join(dir, "slurmd.pid"), "slurmd", "-f", filepath.Join(dir, "slurm.conf"))
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _ := cl.command(ctx, "sinfo", "-h", "-o", "%T")
		if strings.TrimSpace(out) == "idle" {
			return cl
		}
		if time.Now().After(deadline) {
			t.Fatalf("the node is %q after 30s, not idle", strings.TrimSpace(out))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (cl *cluster) command(ctx context.Context, name string, args ...string) (string, error) {
	p, err := lookSbin(name)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, p, args...)
	cmd.Env = cl.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// waitIdle polls squeue until no job is pending or running (the cluster is
// private to the test). It never asks sacct: there is no accounting.
func (cl *cluster) waitIdle(t *testing.T, ctx context.Context) {
	t.Helper()
	deadline := time.Now().Add(100 * time.Second)
	for {
		out, err := cl.command(ctx, "squeue", "-h", "-o", "%i %T %r")
		if err == nil && strings.TrimSpace(out) == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs still queued after 100s (err %v):\n%s", err, out)
		}
		if regexp.MustCompile(`DependencyNeverSatisfied|launch failed|drain`).MatchString(out) {
			t.Fatalf("stuck jobs:\n%s", out)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func (cl *cluster) logs(t *testing.T, dir, glob string) string {
	paths, _ := filepath.Glob(filepath.Join(dir, "slurm", "logs", glob))
	var b strings.Builder
	for _, p := range paths {
		c, _ := os.ReadFile(p)
		fmt.Fprintf(&b, "== %s\n%s", filepath.Base(p), c)
	}
	return b.String()
}

// stopDaemon sends TERM to the PID in pidFile, waits up to 10 s, then KILL.
func stopDaemon(t *testing.T, pidFile string) {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		return
	}
	if syscall.Kill(pid, syscall.SIGTERM) != nil {
		return
	}
	for i := 0; i < 100; i++ {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("%s: pid %d ignored TERM for 10s, killing it", filepath.Base(pidFile), pid)
	syscall.Kill(pid, syscall.SIGKILL)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
