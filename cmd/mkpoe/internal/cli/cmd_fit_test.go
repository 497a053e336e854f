package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/internal/linalg"
)

// writeFile writes content to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// run calls Main with buffers and returns the exit status and outputs.
func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// fixture: 4 items on a line at 0, 1, 2, 4 (linear kernel K_ij = x_i x_j), a
// fifth new item at 3, and triplets consistent with the line.
func fitFixture(t *testing.T) (dir, kernel, comps, rows string) {
	dir = t.TempDir()
	xs := []float64{0, 1, 2, 4}
	var kb, rb strings.Builder
	for _, a := range xs {
		for j, b := range xs {
			if j > 0 {
				kb.WriteString("\t")
			}
			kb.WriteString(strconv.FormatFloat(a*b+1, 'g', -1, 64))
		}
		kb.WriteString("\n")
	}
	for j, b := range xs {
		if j > 0 {
			rb.WriteString(",")
		}
		rb.WriteString(strconv.FormatFloat(3*b+1, 'g', -1, 64))
	}
	rb.WriteString("\n")
	kernel = writeFile(t, dir, "k.tsv", kb.String())
	rows = writeFile(t, dir, "rows.csv", rb.String())
	comps = writeFile(t, dir, "c.tsv", "# i j k: i closer to j than to k\n0 1 2\n0 1 3\n1 2 3\n3 2 0\n2 1 0\n")
	return
}

func TestFitEvalEmbedNative(t *testing.T) {
	dir, kernel, comps, rows := fitFixture(t)
	model := filepath.Join(dir, "m.json")
	code, out, errs := run("fit", "--kernel", kernel, "--comparisons", comps, "--beta", "100", "--out", model)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "converged true") || !strings.Contains(out, "status certified\n") {
		t.Errorf("fit output %q lacks 'converged true' and 'status certified'", out)
	}
	code, out, errs = run("eval", "--model", model, "--comparisons", comps)
	if code != 0 || out != "accuracy 1.000000\n"+backendLine {
		t.Errorf("eval: exit %d, output %q, stderr %q; want accuracy 1 on the training triplets", code, out, errs)
	}
	// The new item 4 sits at x=3: closer to item 2 (x=2) than to item 0.
	testComps := writeFile(t, dir, "t.tsv", "4 2 0\n4 3 0\n")
	code, out, errs = run("eval", "--model", model, "--comparisons", testComps, "--kernel-rows", rows)
	if code != 0 || out != "accuracy 1.000000\n"+backendLine {
		t.Errorf("eval with new item: exit %d, output %q, stderr %q", code, out, errs)
	}
	emb := filepath.Join(dir, "emb.tsv")
	if code, out, errs = run("embed", "--model", model, "--kernel-rows", rows, "--out", emb); code != 0 {
		t.Fatalf("embed: exit %d: %s", code, errs)
	} else if want := "wrote 5 items × 2 dimensions to " + emb + "\n" + backendLine; out != want {
		t.Errorf("embed printed %q, want %q", out, want)
	}
	b, err := os.ReadFile(emb)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(b), "\n"); lines != 5 {
		t.Errorf("embedding has %d rows, want 4 training + 1 new", lines)
	}
	// Native space of K = xxᵀ + 1: d(i,j) = (x_i − x_j)², all triplets hold.
	code, out, _ = run("native", "--kernel", kernel, "--comparisons", comps)
	if code != 0 || out != "accuracy 1.000000\n"+backendLine {
		t.Errorf("native: exit %d, output %q", code, out)
	}
	// Diagonal, sum and subgradient variants run too.
	for _, extra := range [][]string{{"--mode", "diag"}, {"--combine", "sum", "--kernel", kernel}, {"--solver", "subgradient"}} {
		args := append([]string{"fit", "--kernel", kernel, "--comparisons", comps, "--beta", "10", "--out", model}, extra...)
		if code, _, errs := run(args...); code != 0 {
			t.Errorf("fit %v: exit %d: %s", extra, code, errs)
		}
	}
	if code, _, errs := run("fit", "--identity", "4", "--comparisons", comps, "--beta", "10", "--out", model); code != 0 {
		t.Errorf("fit --identity: exit %d: %s", code, errs)
	}
	if code, _, errs := run("eval", "--model", model, "--comparisons", testComps, "--kernel-rows", rows); code != 2 || !strings.Contains(errs, "out-of-sample") {
		t.Errorf("eval of GNMDS with new items: exit %d, stderr %q; want 2 and a message about out-of-sample", code, errs)
	}
}

func TestFitBadInputs(t *testing.T) {
	dir, kernel, comps, _ := fitFixture(t)
	model := filepath.Join(dir, "m.json")
	bad := func(name, content string) string { return writeFile(t, dir, name, content) }
	ragged := bad("ragged.tsv", "1 0 0\n0 1\n0 0 1\n")
	word := bad("word.tsv", "1 0\n0 x\n")
	nan := bad("nan.tsv", "1 0\n0 NaN\n")
	inf := bad("inf.tsv", "1 0\n0 +Inf\n")
	nonsq := bad("nonsq.tsv", "1 0 0\n0 1 0\n")
	asym := bad("asym.tsv", "1 0.5\n0.2 1\n")
	small := bad("small.tsv", "1 0\n0 1\n")
	outOfRange := bad("range.tsv", "0 1 2\n0 1 9\n")
	samePair := bad("same.tsv", "0 1 2\n0 1 1 0\n")
	badComp := bad("badcomp.tsv", "0 1 2\n0 1.5 2\n")
	fiveFields := bad("five.tsv", "0 1 2 3 0\n")
	empty := bad("empty.tsv", "# no comparisons\n")
	for _, test := range []struct {
		name string
		args []string
		want []string // substrings of stderr
	}{
		{"ragged kernel", []string{"--kernel", ragged}, []string{"ragged.tsv:2", "same number of values", "2 values"}},
		{"non-number", []string{"--kernel", word}, []string{"word.tsv:2:2", "must be a number", `"x"`}},
		{"NaN", []string{"--kernel", nan}, []string{"nan.tsv:2:2", "finite", "NaN"}},
		{"Inf", []string{"--kernel", inf}, []string{"inf.tsv:2:2", "finite", "+Inf"}},
		{"non-square kernel", []string{"--kernel", nonsq}, []string{"nonsq.tsv", "square", "2 rows × 3 columns"}},
		{"non-symmetric kernel", []string{"--kernel", asym}, []string{"asym.tsv:1:2", "symmetric", "0.5", "0.2"}},
		{"kernels of different sizes", []string{"--kernel", kernel, "--kernel", small}, []string{"small.tsv", "same size", "2×2"}},
		{"index out of range", []string{"--kernel", kernel, "--comparisons", outOfRange}, []string{"range.tsv:2:3", "must be < 4", `"9"`}},
		{"same pair twice", []string{"--kernel", kernel, "--comparisons", samePair}, []string{"same.tsv:2", "two pairs must differ"}},
		{"non-integer index", []string{"--kernel", kernel, "--comparisons", badComp}, []string{"badcomp.tsv:2:2", "integer", `"1.5"`}},
		{"five fields", []string{"--kernel", kernel, "--comparisons", fiveFields}, []string{"five.tsv:1", "3 or 4 fields"}},
		{"no comparisons", []string{"--kernel", kernel, "--comparisons", empty}, []string{"empty.tsv: must hold at least one comparison, got none"}},
		{"missing file", []string{"--kernel", filepath.Join(dir, "nope.tsv")}, []string{"nope.tsv", "no such file"}},
		{"bad beta", []string{"--kernel", kernel, "--beta", "-1"}, []string{"--beta must be > 0", "-1"}},
		{"bad mode", []string{"--kernel", kernel, "--mode", "sparse"}, []string{"--mode", "full or diag", `"sparse"`}},
		{"two sources", []string{"--kernel", kernel, "--identity", "4"}, []string{"exactly one of"}},
		{"huge identity", []string{"--identity", "1000000000"}, []string{"GNMDS learns a dense 1000000000×1000000000 matrix", "at most 20000 items"}},
		{"unknown flag", []string{"--kernel", kernel, "--lambda", "1"}, []string{"lambda"}},
	} {
		t.Run(test.name, func(t *testing.T) {
			args := []string{"fit", "--comparisons", comps, "--beta", "1", "--out", model}
			args = append(args, test.args...)
			code, _, errs := run(args...)
			if code != 2 {
				t.Errorf("exit status %d, want 2 (stderr %q)", code, errs)
			}
			for _, w := range test.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
		})
	}
	// eval/native/embed report their bad inputs with status 2 as well.
	if code, _, errs := run("eval", "--model", comps, "--comparisons", comps); code != 2 || !strings.Contains(errs, "reading model") {
		t.Errorf("eval with a non-model file: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := run("native", "--kernel", asym, "--comparisons", comps); code != 2 || !strings.Contains(errs, "symmetric") {
		t.Errorf("native with a non-symmetric kernel: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := run("fit", "--kernel", kernel, "--comparisons", comps, "--beta", "1", "--out", model); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, errs)
	}
	for _, cmd := range [][]string{{"eval", "--model", model, "--comparisons", empty}, {"native", "--kernel", kernel, "--comparisons", empty}} {
		if code, _, errs := run(cmd...); code != 2 || !strings.Contains(errs, "empty.tsv: must hold at least one comparison") {
			t.Errorf("%s with no comparisons: exit %d, stderr %q", cmd[0], code, errs)
		}
	}
	if code, _, _ := run("nosuchcommand"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
}

// TestFitWarnsBelowMinBeta fits the line fixture at β below and above its
// min_beta: both print min_beta (the same value), and only the fit at or
// below it warns that W = 0 is optimal and names a β above it.
func TestFitWarnsBelowMinBeta(t *testing.T) {
	dir, kernel, comps, _ := fitFixture(t)
	minBeta := func(stdout string) float64 {
		t.Helper()
		for _, line := range strings.Split(stdout, "\n") {
			if v, ok := strings.CutPrefix(line, "min_beta "); ok {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatalf("min_beta line %q: %v", line, err)
				}
				return f
			}
		}
		t.Fatalf("no min_beta line in %q", stdout)
		return 0
	}
	code, out, errs := run("fit", "--kernel", kernel, "--comparisons", comps, "--beta", "1e3", "--out", filepath.Join(dir, "hi.json"))
	if code != 0 {
		t.Fatalf("fit at β = 1e3: exit %d: %s", code, errs)
	}
	bmin := minBeta(out)
	if !(bmin > 0 && bmin < 1e3) {
		t.Fatalf("min_beta %g, want in (0, 1e3)", bmin)
	}
	if strings.Contains(errs, "min_beta") {
		t.Errorf("fit above min_beta warned: %s", errs)
	}
	low := strconv.FormatFloat(bmin/2, 'g', -1, 64)
	code, out, errs = run("fit", "--kernel", kernel, "--comparisons", comps, "--beta", low, "--out", filepath.Join(dir, "lo.json"))
	if code != 0 {
		t.Fatalf("fit at β = %s: exit %d: %s", low, code, errs)
	}
	if got := minBeta(out); math.Abs(got-bmin) > 1e-5*bmin {
		t.Errorf("min_beta %g at the low β, %g at the high one", got, bmin)
	}
	if !strings.Contains(errs, "at or below min_beta") || !strings.Contains(errs, "W = 0 is optimal") {
		t.Errorf("fit below min_beta gave no warning: %q", errs)
	}
}

// TestFitLowRank: --solver lowrank fits the same kernel to the same
// objective as the default solver (both certified to 1e-3) and records
// its solver in the model file.
func TestFitLowRank(t *testing.T) {
	dir, kernel, comps, _ := fitFixture(t)
	objective := func(stdout string) float64 {
		t.Helper()
		for _, line := range strings.Split(stdout, "\n") {
			if v, ok := strings.CutPrefix(line, "objective "); ok {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatal(err)
				}
				return f
			}
		}
		t.Fatalf("no objective line in %q", stdout)
		return 0
	}
	var got [2]float64
	for i, solver := range []string{"accelerated", "lowrank"} {
		out := filepath.Join(dir, solver+".json")
		code, stdout, errs := run("fit", "--kernel", kernel, "--comparisons", comps, "--beta", "30", "--solver", solver, "--out", out)
		if code != 0 {
			t.Fatalf("--solver %s: exit %d: %s", solver, code, errs)
		}
		if !strings.Contains(stdout, "status certified\n") {
			t.Errorf("--solver %s: not certified:\n%s", solver, stdout)
		}
		got[i] = objective(stdout)
		if b := readModelSolver(t, out); b != solver {
			t.Errorf("--solver %s: model file says solver %q", solver, b)
		}
	}
	if d := math.Abs(got[0]-got[1]) / got[0]; d > 2e-3 {
		t.Errorf("objectives %.8g (accelerated) and %.8g (lowrank) differ by %.2g relative", got[0], got[1], d)
	}
}

// readModelSolver returns the "solver" field of a model file.
func readModelSolver(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Solver string `json:"solver"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.Solver
}

// TestFitRank: --rank d gives an embedding of at most d dimensions and
// prints the distance to the convex problem's bound; bad ranks exit 2 with
// a message naming the flag.
func TestFitRank(t *testing.T) {
	dir, kernel, comps, _ := fitFixture(t)
	code, stdout, errs := run("fit", "--kernel", kernel, "--comparisons", comps, "--beta", "30", "--rank", "2", "--out", filepath.Join(dir, "r2.json"))
	if code != 0 {
		t.Fatalf("--rank 2: exit %d: %s", code, errs)
	}
	for _, want := range []string{"rank_bound 2\n", "convex_gap ", "converged true", "solver lowrank\n", "backend " + linalg.Describe() + "\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--rank 2: output lacks %q:\n%s", want, stdout)
		}
	}
	var dim int
	for _, line := range strings.Split(stdout, "\n") {
		if v, ok := strings.CutPrefix(line, "dimension "); ok {
			dim, _ = strconv.Atoi(v)
		}
	}
	if dim < 1 || dim > 2 {
		t.Errorf("--rank 2: dimension %d", dim)
	}
	if s := readModelSolver(t, filepath.Join(dir, "r2.json")); s != "lowrank" {
		t.Errorf("--rank 2: model solver %q, want lowrank", s)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rank", "-1"}, "--rank must be >= 1"},
		{[]string{"--rank", "2", "--mode", "diag"}, "--rank bounds a full W"},
		{[]string{"--rank", "2", "--solver", "subgradient"}, "--rank bounds the factored W of the low-rank method"},
		{[]string{"--rank", "100000"}, "Settings.Rank must be at most the order of W"},
	} {
		args := append([]string{"fit", "--kernel", kernel, "--comparisons", comps, "--beta", "30", "--out", filepath.Join(dir, "bad.json")}, tc.args...)
		code, _, errs := run(args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestFitKernelRank: --kernel-rank truncates the kernel and prints the
// energy kept; bad values and a diagonal W are refused with exit 2.
func TestFitKernelRank(t *testing.T) {
	dir, kernel, comps, _ := fitFixture(t)
	code, stdout, errs := run("fit", "--kernel", kernel, "--comparisons", comps, "--beta", "30", "--kernel-rank", "1", "--out", filepath.Join(dir, "k1.json"))
	if code != 0 {
		t.Fatalf("--kernel-rank 1: exit %d: %s", code, errs)
	}
	var energy float64
	for _, line := range strings.Split(stdout, "\n") {
		if v, ok := strings.CutPrefix(line, "kernel_energy[0] "); ok {
			energy, _ = strconv.ParseFloat(v, 64)
		}
	}
	if !strings.Contains(stdout, "kernel_rank[0] 1\n") {
		t.Errorf("--kernel-rank 1: no kernel_rank[0] 1 line:\n%s", stdout)
	}
	if !(energy > 0 && energy < 1) {
		t.Errorf("--kernel-rank 1: kernel energy %v not printed in (0,1):\n%s", energy, stdout)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kernel-rank", "-1"}, "--kernel-rank must be >= 1"},
		{[]string{"--kernel-energy", "1.5"}, "--kernel-energy must be in (0, 1)"},
		{[]string{"--kernel-rank", "2", "--mode", "diag"}, "--kernel-rank truncates the eigenbasis of a full W: it needs mode full"},
	} {
		args := append([]string{"fit", "--kernel", kernel, "--comparisons", comps, "--beta", "30", "--out", filepath.Join(dir, "bad.json")}, tc.args...)
		code, _, errs := run(args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestEvalNamesKernelRows: comparisons about new items without their rows
// are refused (exit 2) at the first index beyond the training items, with
// the flag that gives the rows and how many files the model takes.
func TestEvalNamesKernelRows(t *testing.T) {
	dir, kernel, comps, _ := fitFixture(t)
	features := writeFile(t, dir, "x.tsv", "0\n1\n2\n4\n")
	newComps := writeFile(t, dir, "new.tsv", "0 1 2\n4 2 0\n")
	at := newComps + `:2:1: item index must be < 4 (there are 4 items, 0-based), got "4"` + "\n"
	for _, tc := range []struct {
		name string
		fit  []string
		want string
	}{
		{"one kernel", []string{"--kernel", kernel}, at + "The model has 4 training items (0 … 3); comparisons about new items (numbered 4, 5, …) need the new items' kernel rows against the training items: " +
			"give --kernel-rows FILE, one file, for the model's one kernel; mkpoe kernel --test-out writes them.\n"},
		{"two kernels", []string{"--kernel", kernel, "--kernel", kernel}, at + "The model has 4 training items (0 … 3); comparisons about new items (numbered 4, 5, …) need the new items' kernel rows against the training items: " +
			"give --kernel-rows FILE, one file per kernel, in fit's order (this model has 2 kernels: give --kernel-rows 2 times); mkpoe kernel --test-out writes them.\n"},
		{"features", []string{"--features", features}, at + "The model has 4 training items (0 … 3); comparisons about new items (numbered 4, 5, …) need the new items' feature rows: " +
			"give --kernel-rows FILE (t×D feature rows, as for fit's --features).\n"},
		{"GNMDS", []string{"--identity", "4"}, at + "The model has 4 training items (0 … 3) and, learnt without features (GNMDS), cannot place new items: score comparisons among its training items only.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := filepath.Join(t.TempDir(), "m.json")
			if code, _, errs := run(append([]string{"fit", "--comparisons", comps, "--beta", "10", "--out", model}, tc.fit...)...); code != 0 {
				t.Fatalf("fit: exit %d: %s", code, errs)
			}
			code, out, errs := run("eval", "--model", model, "--comparisons", newComps)
			if want := "mkpoe eval: data: " + tc.want; code != ExitUsage || out != "" || errs != want {
				t.Errorf("exit %d, stdout %q, stderr\n%s\nwant exit 2 and\n%s", code, out, errs, want)
			}
		})
	}
}

// TestFitStatusLine: `mkpoe fit` prints how the fit stopped (status) and
// never calls a fixed-rank stationary point certified: on Sec. 6's square
// (GNMDS on 4 items, each side shorter than each diagonal) --rank 1 stops
// at a stationary point far from the convex optimum (status stationary,
// with a warning), --rank 2 and the convex fit are certified, and
// --max-iter 1 stops not converged.
func TestFitStatusLine(t *testing.T) {
	dir := t.TempDir()
	var sq strings.Builder
	for _, s := range [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}} {
		for _, d := range [][2]int{{0, 2}, {1, 3}} {
			fmt.Fprintf(&sq, "%d %d %d %d\n", s[0], s[1], d[0], d[1])
		}
	}
	comps := writeFile(t, dir, "square.tsv", sq.String())
	for _, tc := range []struct {
		name     string
		args     []string
		want     []string
		warning  string // stderr must hold it ("" : no warning at all)
		notWants []string
	}{
		{"convex", nil, []string{"converged true\n", "status certified\n"}, "", nil},
		{"rank 1", []string{"--rank", "1"}, []string{"converged true\n", "status stationary\n", "rank_bound 1\n", "convex_gap 0.667\n"},
			"stopped at a stationary point, not certified", []string{"status certified"}},
		{"rank 2", []string{"--rank", "2"}, []string{"status certified\n", "rank_bound 2\n"}, "", nil},
		{"max-iter 1", []string{"--max-iter", "1"}, []string{"converged false\n", "status not_converged\n"}, "stopped at the iteration limit", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"fit", "--identity", "4", "--comparisons", comps, "--beta", "10", "--out", filepath.Join(dir, "m.json")}, tc.args...)
			code, stdout, stderr := run(args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tc.notWants {
				if strings.Contains(stdout, w) {
					t.Errorf("output holds %q:\n%s", w, stdout)
				}
			}
			if tc.warning == "" && strings.Contains(stderr, "warning") || !strings.Contains(stderr, tc.warning) {
				t.Errorf("stderr %q, want a warning %q", stderr, tc.warning)
			}
		})
	}
}
