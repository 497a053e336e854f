package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fig1File is the comparison set of McFee & Lanckriet (2011, Fig. 1) with
// i,j,k,l = 1,2,3,4 (1-based), plus a contradiction of (j,l,i,k) and a repeat.
const fig1File = `# i j k l
2 3 2 4
2 3 1 3
2 4 1 3
1 4 2 4
1 4 1 2
1 2 2 4
1 3 2 4
3 2 4 2
`

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runMain(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestGraphCommand(t *testing.T) {
	in := writeTemp(t, "c.txt", fig1File)
	out := filepath.Join(t.TempDir(), "kept.txt")
	code, stdout, stderr := runMain("graph", "--comparisons", in, "--one-based", "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"dedup", "length2", "acyclic", "reduce", "diameter", "wrote 4 comparisons"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// Same format as the input: 4 columns, 1-based, space-separated.
	want := "2 3 2 4\n2 3 1 3\n1 4 1 2\n1 2 2 4\n"
	if string(got) != want {
		t.Errorf("output file:\n%s\nwant\n%s", got, want)
	}
}

func TestGraphCommandJSON(t *testing.T) {
	in := writeTemp(t, "c.tsv", "1\t2\t3\n1\t3\t2\n2\t1\t3\n")
	code, stdout, stderr := runMain("graph", "--comparisons", in, "--one-based", "--steps", "length2,acyclic", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var rep graphReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("bad JSON %v:\n%s", err, stdout)
	}
	if len(rep.Steps) != 2 || rep.Steps[0].Removed != 2 || rep.Final.Edges != 1 || rep.Final.Cyclic {
		t.Errorf("report %+v", rep)
	}
}

func TestGraphCommandBadInput(t *testing.T) {
	good := writeTemp(t, "good.txt", fig1File)
	cyclic := writeTemp(t, "cyc.txt", "0 1 0 2\n0 2 0 3\n0 3 0 1\n")
	for _, test := range []struct {
		name string
		args []string
		msg  string
	}{
		{"unknown step", []string{"--comparisons", good, "--steps", "dedup,shuffle"}, `got "shuffle"`},
		{"empty step", []string{"--comparisons", good, "--steps", "dedup,,reduce"}, `must be one of`},
		{"missing file flag", []string{"--steps", "dedup"}, "--comparisons is required"},
		{"no such file", []string{"--comparisons", filepath.Join(t.TempDir(), "none.txt")}, "no such file"},
		{"malformed file", []string{"--comparisons", writeTemp(t, "bad.txt", "1 2 3\n1 x 3\n")}, "bad.txt:2:2: item index must be an integer"},
		{"wrong arity", []string{"--comparisons", writeTemp(t, "bad2.txt", "1 2 3 4 5\n")}, "3 or 4 fields"},
		{"zero in one-based file", []string{"--comparisons", writeTemp(t, "bad3.txt", "0 1 2\n"), "--one-based"}, "must be >= 1"},
		{"reduce on a cycle", []string{"--comparisons", cyclic, "--steps", "reduce"}, "cycle of length 3"},
		{"unknown flag", []string{"--comparisons", good, "--bogus"}, "bogus"},
		{"positional", []string{"--comparisons", good, "extra"}, "unexpected arguments"},
	} {
		t.Run(test.name, func(t *testing.T) {
			code, _, stderr := runMain(append([]string{"graph"}, test.args...)...)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d; stderr %q", code, ExitUsage, stderr)
			}
			if !strings.Contains(stderr, test.msg) {
				t.Errorf("stderr %q lacks %q", stderr, test.msg)
			}
		})
	}
}
