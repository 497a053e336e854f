package slurm

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sbatchArgs splits the #SBATCH lines at the top of a script into
// arguments as sbatch does (src/sbatch/opt.c, _get_argument): it stops at
// the first line that is neither blank nor a comment, splits at unquoted
// white space, takes ' and " quotes and backslash escapes (inside quotes
// too), and ends a line at an unquoted '#'.
func sbatchArgs(script string) []string {
	var args []string
	for i, line := range strings.Split(script, "\n") {
		if i == 0 && strings.HasPrefix(line, "#!") {
			continue
		}
		t := strings.TrimSpace(line)
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		rest, ok := strings.CutPrefix(line, "#SBATCH")
		if !ok {
			continue
		}
	line:
		for {
			rest = strings.TrimLeft(rest, " \t")
			if rest == "" {
				break
			}
			var arg strings.Builder
			var q rune
			escape := false
			n := 0
			for _, r := range rest {
				n += len(string(r))
				switch {
				case escape:
					escape = false
				case r == '\\':
					escape = true
					continue
				case q != 0 && r == q:
					q = 0
					continue
				case q != 0:
				case r == '"' || r == '\'':
					q = r
					continue
				case r == '#':
					args = append(args, arg.String())
					break line
				case r == ' ' || r == '\t':
					n -= len(string(r))
					goto done
				}
				arg.WriteRune(r)
			}
		done:
			args = append(args, arg.String())
			rest = rest[n:]
		}
	}
	return args
}

// TestSbatchOptions: --account, --qos, --constraint and --sbatch-option
// become #SBATCH lines of every script (array chunks and the merge job)
// that sbatch reads back as exactly the options given, and that bash
// ignores: no value, whatever its spaces, quotes or shell characters, runs
// anything when the script runs.
func TestSbatchOptions(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	// Every payload creates the file "pwned" in the working directory if
	// bash ever runs it.
	const (
		sub    = "$(touch pwned)"
		tick   = "`touch pwned`"
		semi   = "x; touch pwned"
		quote  = "a' ; touch pwned ; echo 'b"
		dquo   = `a" ; touch pwned ; echo "b`
		bslash = `a\' ; touch pwned #`
	)
	for _, tc := range []struct {
		name  string
		o     Options
		lines []string // the #SBATCH lines after --cpus-per-task
		args  []string // what sbatch reads from them
	}{
		{"none", Options{}, nil, nil},
		{"account qos constraint",
			Options{Partition: "debug", Account: "proj-42", QOS: "high", Constraint: "intel&(ib|opa)"},
			[]string{"#SBATCH --partition=debug", "#SBATCH --account=proj-42", "#SBATCH --qos=high", "#SBATCH --constraint=intel&(ib|opa)"},
			[]string{"--partition=debug", "--account=proj-42", "--qos=high", "--constraint=intel&(ib|opa)"}},
		{"constraint counts and brackets",
			Options{Constraint: "[rack1*2&rack2*4]"},
			[]string{"#SBATCH --constraint=[rack1*2&rack2*4]"}, []string{"--constraint=[rack1*2&rack2*4]"}},
		{"pass-through, in order after the flags",
			Options{Time: "1:00:00", Account: "a", Extra: []string{"--gres=gpu:1", "--requeue", "--mail-user=me@example.org", "--export=ALL,FOO=bar"}},
			[]string{"#SBATCH --time=1:00:00", "#SBATCH --account=a", "#SBATCH --gres=gpu:1", "#SBATCH --requeue", "#SBATCH --mail-user=me@example.org", "#SBATCH --export=ALL,FOO=bar"},
			[]string{"--time=1:00:00", "--account=a", "--gres=gpu:1", "--requeue", "--mail-user=me@example.org", "--export=ALL,FOO=bar"}},
		{"spaces and a '#'",
			Options{Extra: []string{"--comment=my run #3", "--comment= lead and trail ", "--comment="}},
			[]string{"#SBATCH --comment='my run #3'", "#SBATCH --comment=' lead and trail '", "#SBATCH --comment=''"},
			[]string{"--comment=my run #3", "--comment= lead and trail ", "--comment="}},
		{"shell metacharacters",
			Options{Extra: []string{"--comment=" + sub, "--comment=" + tick, "--comment=" + semi, "--comment=" + quote, "--comment=" + dquo, "--comment=" + bslash, "--comment=a|b&c>d<e"}},
			[]string{
				"#SBATCH --comment='$(touch pwned)'", "#SBATCH --comment='`touch pwned`'", "#SBATCH --comment='x; touch pwned'",
				`#SBATCH --comment='a\' ; touch pwned ; echo \'b'`, `#SBATCH --comment='a" ; touch pwned ; echo "b'`,
				`#SBATCH --comment='a\\\' ; touch pwned #'`, "#SBATCH --comment='a|b&c>d<e'",
			},
			[]string{"--comment=" + sub, "--comment=" + tick, "--comment=" + semi, "--comment=" + quote, "--comment=" + dquo, "--comment=" + bslash, "--comment=a|b&c>d<e"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.o.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			tc.o.CPUs = 1
			dir := t.TempDir()
			p := &Plan{Config: dir + "/config.resolved.yaml", RunDir: dir, Binary: "/bin/true", ConfigHash: "abc", MaxArraySize: 10}
			if _, err := p.Write(fakePlan(12, 3), "x", tc.o); err != nil {
				t.Fatal(err)
			}
			scripts := []string{p.Merge}
			for _, a := range p.Arrays {
				scripts = append(scripts, a.Script)
			}
			if len(scripts) != 4 {
				t.Fatalf("%d scripts, want 3 arrays and a merge job", len(scripts))
			}
			for _, path := range scripts {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				s := string(b)
				_, after, _ := strings.Cut(s, "#SBATCH --cpus-per-task=1\n")
				head, _, _ := strings.Cut(after, "set -euo pipefail\n")
				if got := strings.Split(strings.TrimSuffix(head, "\n"), "\n"); head == "" && tc.lines != nil || head != "" && !reflect.DeepEqual(got, tc.lines) {
					t.Errorf("%s: #SBATCH lines after --cpus-per-task\n%q\nwant\n%q", filepath.Base(path), got, tc.lines)
				}
				args := sbatchArgs(s)
				var user []string
				for _, a := range args {
					if !strings.HasPrefix(a, "--job-name=") && !strings.HasPrefix(a, "--array=") && !strings.HasPrefix(a, "--output=") && !strings.HasPrefix(a, "--cpus-per-task=") {
						user = append(user, a)
					}
				}
				if !reflect.DeepEqual(user, tc.args) {
					t.Errorf("%s: sbatch reads\n%q\nwant\n%q", filepath.Base(path), user, tc.args)
				}
				// bash runs the script (exec /bin/true) and nothing else.
				cmd := exec.Command("bash", path)
				cmd.Dir = t.TempDir()
				cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=0")
				if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
					t.Errorf("bash %s: %v\n%s", filepath.Base(path), err, out)
				}
				if _, err := os.Stat(filepath.Join(cmd.Dir, "pwned")); err == nil {
					t.Errorf("bash %s ran a value as a command:\n%s", filepath.Base(path), s)
				}
			}
		})
	}
}

// TestSbatchOptionRefusals: bad --account, --qos, --constraint and
// --sbatch-option values are usage errors naming the flag, the rule and
// the value; the pass-through refuses the options mkpoe slurm sets itself,
// also abbreviated as sbatch would accept them.
func TestSbatchOptionRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		o    Options
		want []string // substrings of the error
	}{
		{Options{Account: "my account"}, []string{"--account: must be a Slurm name", `"my account"`}},
		{Options{Account: "a;b"}, []string{"--account: must be a Slurm name", `"a;b"`}},
		{Options{Account: "-x"}, []string{"--account: must be a Slurm name"}},
		{Options{QOS: "$(id)"}, []string{"--qos: must be a Slurm name", `"$(id)"`}},
		{Options{QOS: "a\nb"}, []string{"--qos: must be a Slurm name", `"a\nb"`}},
		{Options{Constraint: "intel ib"}, []string{"--constraint: must be a Slurm feature expression", `"intel ib"`}},
		{Options{Constraint: "a;touch x"}, []string{"--constraint: must be a Slurm feature expression"}},
		{Options{Constraint: "`x`"}, []string{"--constraint: must be a Slurm feature expression"}},
		{Options{Partition: "a b"}, []string{"--partition: must be a Slurm partition name", `"a b"`}},
		{Options{Partition: "$(x)"}, []string{"--partition: must be"}},
		{Options{Partition: "a#b"}, []string{"--partition: must be"}},
		{Options{Extra: []string{"gres=gpu:1"}}, []string{"--sbatch-option: must be a long sbatch option", `"gres=gpu:1"`}},
		{Options{Extra: []string{"-A proj"}}, []string{"--sbatch-option: must be a long sbatch option", "--account=X"}},
		{Options{Extra: []string{"--"}}, []string{"--sbatch-option: must be a long sbatch option"}},
		{Options{Extra: []string{"--Gres=x"}}, []string{"--sbatch-option: must be a long sbatch option"}},
		{Options{Extra: []string{"--gres gpu:1"}}, []string{"--sbatch-option: must be a long sbatch option"}},
		{Options{Extra: []string{"--comment=a\nexit 0"}}, []string{"--sbatch-option: must not contain newlines", `"--comment=a\nexit 0"`}},
		{Options{Extra: []string{"--comment=a\rb"}}, []string{"--sbatch-option: must not contain newlines"}},
		{Options{Extra: []string{"--comment=a\u2028b"}}, []string{"--sbatch-option: must not contain newlines"}},
		{Options{Extra: []string{"--comment=\xff"}}, []string{"--sbatch-option: must not contain newlines"}},
		{Options{Extra: []string{"--array=0-3"}}, []string{"--sbatch-option: --array is set by mkpoe slurm", "--parallel", `"--array=0-3"`}},
		{Options{Extra: []string{"--arr=0-3"}}, []string{"--sbatch-option: --array is set by mkpoe slurm"}},
		{Options{Extra: []string{"--output=/tmp/x"}}, []string{"--sbatch-option: --output is set by mkpoe slurm"}},
		{Options{Extra: []string{"--out=/tmp/x"}}, []string{"--output is set by mkpoe slurm"}},
		{Options{Extra: []string{"--dependency=afterok:1"}}, []string{"--sbatch-option: --dependency is set by mkpoe slurm"}},
		{Options{Extra: []string{"--parsable"}}, []string{"--sbatch-option: --parsable is set by mkpoe slurm"}},
		{Options{Extra: []string{"--job-name=x"}}, []string{"--job-name is set by mkpoe slurm"}},
		{Options{Extra: []string{"--cpus-per-task=4"}}, []string{"--cpus-per-task is set by mkpoe slurm", "--cpus"}},
		{Options{Extra: []string{"--wrap=echo hi"}}, []string{"--wrap is set by mkpoe slurm"}},
		{Options{Extra: []string{"--account=x"}}, []string{"--account is set by mkpoe slurm (--account)"}},
		{Options{Extra: []string{"--partition=x"}}, []string{"--partition is set by mkpoe slurm (--partition)"}},
		{Options{Extra: []string{"--t=10"}}, []string{"--time is set by mkpoe slurm (--time)"}},
		{Options{Extra: []string{"--gres=gpu:1", "--qos=x"}}, []string{"--qos is set by mkpoe slurm (--qos)"}},
		{Options{Extra: []string{"--constraint=x"}}, []string{"--constraint is set by mkpoe slurm (--constraint)"}},
	} {
		err := tc.o.Validate()
		if err == nil {
			t.Errorf("%+v: accepted", tc.o)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: %v\nwant it to contain %q", tc.o, err, w)
			}
		}
	}
	for _, ok := range []Options{
		{Account: "proj_42.a+b", QOS: "normal", Constraint: "a:b=c"},
		{Partition: "gpu,cpu", Extra: []string{"--time-min=30", "--mem-per-cpu=2G", "--exclusive", "--comment=ok"}},
	} {
		if err := ok.Validate(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}
