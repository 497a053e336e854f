package experiments

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/internal/linalg"
	"github.com/mkpoe/mkpoe/internal/testconfigs"
	"github.com/mkpoe/mkpoe/pkg/cv"
	"github.com/mkpoe/mkpoe/pkg/kernels"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// tinyConfig is a fast synthetic experiment for tests (testconfigs.Tiny).
const tinyConfig = testconfigs.Tiny

func loadTiny(t *testing.T, out string) *Config {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(p, []byte(tinyConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	c.Output = out
	return c
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRunDeterministicAcrossWorkersAndResume(t *testing.T) {
	one := loadTiny(t, filepath.Join(t.TempDir(), "one"))
	if _, err := Run(context.Background(), one, RunOptions{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	two := loadTiny(t, filepath.Join(t.TempDir(), "two"))
	if _, err := Run(context.Background(), two, RunOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	want := readFile(t, filepath.Join(one.Output, "summary.json"))
	if got := readFile(t, filepath.Join(two.Output, "summary.json")); !bytes.Equal(got, want) {
		t.Errorf("summaries differ between 1 and 2 workers:\n%s\n%s", want, got)
	}
	if got := readFile(t, filepath.Join(two.Output, heldoutItemsFile)); !bytes.Equal(got, readFile(t, filepath.Join(one.Output, heldoutItemsFile))) {
		t.Errorf("%s differs between 1 and 2 workers", heldoutItemsFile)
	}
	// env.json records the linear-algebra backend of the build.
	var env map[string]string
	if err := json.Unmarshal(readFile(t, filepath.Join(one.Output, "env.json")), &env); err != nil {
		t.Fatal(err)
	}
	if env["linalg_backend"] != linalg.Backend() || env["go"] == "" {
		t.Errorf("env.json: linalg_backend %q (want %q), go %q", env["linalg_backend"], linalg.Backend(), env["go"])
	}
	// Interrupted: only the first half of the phase-0 tasks, then a rerun.
	part := loadTiny(t, filepath.Join(t.TempDir(), "part"))
	plan := Plan(part)
	if _, err := Run(context.Background(), part, RunOptions{Workers: 2, Only: func(i int, _ results.Task) bool { return i < len(plan)/2 }}); err == nil {
		t.Fatal("a partial run must report the missing tasks")
	}
	entries, _ := os.ReadDir(filepath.Join(part.Output, "tasks"))
	if len(entries) == 0 || len(entries) >= len(plan) {
		t.Fatalf("partial run left %d task files of %d", len(entries), len(plan))
	}
	if _, err := Run(context.Background(), part, RunOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(part.Output, "summary.json")); !bytes.Equal(got, want) {
		t.Errorf("resumed run's summary differs from an uninterrupted run")
	}
	// A changed config never reuses stale results.
	changed := loadTiny(t, part.Output)
	changed.BetaGrid.Values = []float64{1, 100}
	if _, err := Run(context.Background(), changed, RunOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	var s results.Summary
	s2, err := Merge(changed)
	if err != nil {
		t.Fatal(err)
	}
	s = *s2
	for _, r := range s.Rows {
		for _, b := range r.Beta {
			if b != 1 && b != 100 {
				t.Errorf("row %s chose β=%g, not in the changed grid", r.Label, b)
			}
		}
	}
}

func TestFoldsPartitionAndNoLeakage(t *testing.T) {
	c := loadTiny(t, t.TempDir())
	ds, err := loadDataset(c)
	if err != nil {
		t.Fatal(err)
	}
	for s := 0; s < c.Protocol.Splits; s++ {
		train, test, source := foldOf(c, ds, cv.Outer(s))
		all := append(append([]int(nil), train...), test...)
		slices.Sort(all)
		for i, v := range all {
			if v != i {
				t.Fatalf("split %d: train ∪ test is not a partition of the %d items", s, ds.n)
			}
		}
		var vals []int
		for f := 0; f < c.Protocol.InnerFolds; f++ {
			in, val, _ := foldOf(c, ds, cv.FoldID{Split: s, Fold: f})
			for _, v := range append(append([]int(nil), in...), val...) {
				if !slices.Contains(train, v) {
					t.Fatalf("split %d fold %d: item %d is outside the outer training set", s, f, v)
				}
			}
			if len(in)+len(val) != len(train) {
				t.Fatalf("split %d fold %d: inner train and validation do not partition the training set", s, f)
			}
			vals = append(vals, val...)
		}
		slices.Sort(vals)
		if !slices.Equal(vals, train) {
			t.Errorf("split %d: validation folds do not partition the training items", s)
		}
		// Leakage: changing the held-out items' data changes no training
		// kernel block and no training comparison.
		f1, err := buildFold(c, ds, foldItems{train, test, source}, []int{0, 1}, nil, 9, denseKernels)
		if err != nil {
			t.Fatal(err)
		}
		poisoned := *ds
		poisoned.sources = map[string]kernels.Input{}
		for name, in := range ds.sources {
			x := mat.DenseCopyOf(in.Features)
			for _, i := range test {
				for j := 0; j < x.RawMatrix().Cols; j++ {
					x.Set(i, j, 1e3*float64(i+j+1))
				}
			}
			in.Features = x
			poisoned.sources[name] = in
		}
		f2, err := buildFold(c, &poisoned, foldItems{train, test, source}, []int{0, 1}, nil, 9, denseKernels)
		if err != nil {
			t.Fatal(err)
		}
		for p := range f1.grams {
			if !mat.Equal(f1.grams[p], f2.grams[p]) {
				t.Errorf("split %d: training kernel %d depends on held-out items", s, p)
			}
		}
		if !slices.Equal(f1.trainCs, f2.trainCs) {
			t.Errorf("split %d: training comparisons depend on held-out items", s)
		}
		nt := len(train)
		for _, cmp := range f1.trainCs {
			for _, v := range []int{cmp.I, cmp.J, cmp.K, cmp.L} {
				if v >= nt {
					t.Fatalf("training comparison %v names a held-out item", cmp)
				}
			}
		}
		for _, cmp := range f1.testCs {
			if cmp.I < nt || cmp.J >= nt || cmp.L >= nt {
				t.Fatalf("test comparison %v is not (held-out i, train j, train k)", cmp)
			}
		}
	}
}

// TestQuickstartShowsMKPOE runs configs/quickstart.yaml (about 15 s) and
// checks the claims the README makes of it: MKPOE (K4) beats the unweighted
// sum (native, and K1 in the same mode) and gives the noise views about 1%
// of the weight.
func TestQuickstartShowsMKPOE(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quickstart (about 15 s)")
	}
	c, err := LoadConfig(filepath.Join("..", "configs", "quickstart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c.Output = t.TempDir()
	s, err := Run(context.Background(), c, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	acc := map[string]float64{}
	for _, r := range s.Rows {
		acc[r.Label] = r.Mean
		if r.KernelShare != nil {
			for i, k := range r.Kernels {
				if strings.HasPrefix(k, "noise") && r.KernelShare[i] > 0.05 {
					t.Errorf("%s: noise kernel %s carries %.3f of the regulariser, want < 0.05", r.Label, k, r.KernelShare[i])
				}
				// README: MKPOE "gives the noise views about 1% of the
				// weight" (its shares line, the full-W row's).
				if strings.HasPrefix(k, "noise") && r.Label == "MKPOE K4 full" && math.Round(100*r.KernelShare[i]) != 1 {
					t.Errorf("%s: noise kernel %s carries %.3f of the regulariser; README.md says about 1%%", r.Label, k, r.KernelShare[i])
				}
			}
		}
	}
	md := SummaryMarkdown(s)
	t.Logf("%s", md)
	checkReadmeQuickstart(t, md)
	// Every claim has its anchor-clustered interval beside the i.i.d.
	// one: the same difference over the same comparisons, a Holm p at
	// least its own, and holds only where the clustered interval is above 0.
	for _, cl := range s.Claims {
		iv, ci := cl.Interval, cl.Clustered
		if iv == nil || ci == nil || cl.HolmP == nil {
			t.Fatalf("claim %q: interval %v, clustered %v (%s), Holm p %v", cl.Claim, iv, ci, cl.ClusteredNote, cl.HolmP)
		}
		if math.Abs(ci.Diff-iv.Diff) > 1e-12 || ci.N != iv.N || *cl.HolmP < ci.P || (cl.Holds && !(ci.Lo > 0 && *cl.HolmP < 0.05)) {
			t.Errorf("claim %q: clustered %+v (Holm p %v, holds %v) against i.i.d. %+v", cl.Claim, *ci, *cl.HolmP, cl.Holds, *iv)
		}
	}
	for _, cmp := range [][2]string{{"MKPOE K4 diag", "sum K1 diag"}, {"MKPOE K4 full", "sum K1 full"}, {"MKPOE K4 diag", "sum native"}, {"MKPOE K4 full", "sum native"}} {
		if acc[cmp[0]] <= acc[cmp[1]] {
			t.Errorf("%s accuracy %.4f does not beat %s %.4f", cmp[0], acc[cmp[0]], cmp[1], acc[cmp[1]])
		}
	}
}

// TestReuseByTaskInputs: a result is reused exactly when what its task
// reads is unchanged. Relabelling rows, editing the description or paper
// values, adding a row before the others, or a second row that computes the
// same thing rerun nothing but the new row's tasks; a new β grid touches
// the learned rows only (TestGridChangeReuse: which of their tasks rerun).
func TestReuseByTaskInputs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	ran := func(text string) (tasks []string) {
		t.Helper()
		c := configOf(t, text)
		c.Output = dir
		var log strings.Builder
		if _, err := Run(context.Background(), c, RunOptions{Workers: 2, Log: &log}); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(log.String(), "\n") {
			if f := strings.Fields(l); len(f) > 2 && strings.HasPrefix(f[0], "[") {
				tasks = append(tasks, f[1])
			}
		}
		return tasks
	}
	if got := ran(tinyConfig); len(got) != 22 {
		t.Fatalf("first run: %d tasks, want 22", len(got))
	}
	edited := strings.Replace(tinyConfig, "name: tiny\n", "name: tiny\ndescription: edited\n", 1)
	edited = strings.Replace(edited, "  - {method: native, kernel: good}\n",
		"  - {method: native, kernel: junk, label: new row}\n  - {method: native, kernel: good, label: renamed, paper: 0.5, table_row: G}\n"+
			"  - {method: native, kernel: good, label: same computation}\n", 1)
	if edited == tinyConfig {
		t.Fatal("tinyConfig changed: this test's edits no longer apply")
	}
	got := ran(edited)
	c := configOf(t, edited)
	want := []string{c.rowTaskID(KindNative, c.Rows[0], 0, -1), c.rowTaskID(KindNative, c.Rows[0], 1, -1)}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("after relabelling and adding rows, ran %v, want only the new row's %v", got, want)
	}
	if id1, id2 := c.rowTaskID(KindNative, c.Rows[1], 0, -1), c.rowTaskID(KindNative, c.Rows[2], 0, -1); id1 != id2 {
		t.Errorf("two rows computing the same thing have tasks %s and %s", id1, id2)
	}
	sum, err := results.DecodeSummary(readFile(t, filepath.Join(dir, "summary.json")), "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows[1].Label != "renamed" || sum.Rows[1].TableRow != "G" || sum.Rows[1].Mean != sum.Rows[2].Mean {
		t.Errorf("summary rows %+v and %+v", sum.Rows[1], sum.Rows[2])
	}
	got = ran(strings.Replace(edited, "beta_grid: [1, 10]", "beta_grid: [1, 100]", 1))
	for _, id := range got {
		if strings.HasPrefix(id, KindNative) {
			t.Errorf("a new β grid reran native task %s", id)
		}
	}
	if len(got) != 18 {
		t.Errorf("a new β grid ran %d tasks, want the 18 of the learned rows", len(got))
	}
}

// idToken is a task ID written in tests as "{kind row split fold}" (fold
// -1: none), e.g. "{cv 4 0 0}", since IDs carry the row's input digest.
var idToken = regexp.MustCompile(`\{(native|cv|refit) (\d+) (\d+) (-?\d+)\}`)

// expandIDs replaces the idTokens in s by config c's task IDs.
func expandIDs(c *Config, s string) string {
	return idToken.ReplaceAllStringFunc(s, func(tok string) string {
		m := idToken.FindStringSubmatch(tok)
		row, _ := strconv.Atoi(m[2])
		split, _ := strconv.Atoi(m[3])
		fold, _ := strconv.Atoi(m[4])
		return c.rowTaskID(m[1], c.Rows[row], split, fold)
	})
}

// configOf loads a config from YAML text.
func configOf(t *testing.T, text string) *Config {
	t.Helper()
	c, err := LoadConfig(writeFile(t, t.TempDir(), "c.yaml", text))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// writeFile writes content to dir/name and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunDirLock: a run refuses a directory in which another run is going,
// shards share it with each other but not with a whole run, and the lock
// goes with its holder.
func TestRunDirLock(t *testing.T) {
	c := loadTiny(t, filepath.Join(t.TempDir(), "run"))
	unlock, err := lockRunDir(c.Output, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), c, RunOptions{Workers: 1}); err == nil || !strings.Contains(err.Error(), "is in use by another mkpoe run") {
		t.Errorf("a run beside a run: %v", err)
	}
	if _, err := Run(context.Background(), c, RunOptions{Workers: 1, NoMerge: true, Only: func(i int, _ results.Task) bool { return i == 0 }}); err == nil {
		t.Error("a shard ran beside a whole run")
	}
	unlock()
	shard, err := lockRunDir(c.Output, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), c, RunOptions{Workers: 1, NoMerge: true, Only: func(i int, _ results.Task) bool { return i == 0 }}); err != nil {
		t.Errorf("a shard beside a shard: %v", err)
	}
	if _, err := Run(context.Background(), c, RunOptions{Workers: 1}); err == nil {
		t.Error("a whole run ran beside a shard")
	}
	shard()
	if _, err := Run(context.Background(), c, RunOptions{Workers: 2}); err != nil {
		t.Errorf("after the lock went: %v", err)
	}
}

// TestForeignTaskFileIsRecomputed: a task file holding another task's result
// (copied, or written by a bug) is detected, reported by store.read, and
// recomputed by the next run, whose summary equals the original.
func TestForeignTaskFileIsRecomputed(t *testing.T) {
	c := loadTiny(t, filepath.Join(t.TempDir(), "run"))
	if _, err := Run(context.Background(), c, RunOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	want := readFile(t, filepath.Join(c.Output, "summary.json"))
	plan := Plan(c)
	victim := plan[5]
	path := func(t results.Task) string { return filepath.Join(c.Output, "tasks", t.ID+".json") }
	if err := os.WriteFile(path(victim), readFile(t, path(plan[4])), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, reason := newStore(c).read(victim); r != nil || reason != "the file holds task "+plan[4].ID {
		t.Errorf("store.read of a foreign file: %v, %q", r, reason)
	}
	var log strings.Builder
	if _, err := Run(context.Background(), c, RunOptions{Workers: 2, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "[1/1] "+victim.ID+" ok") {
		t.Errorf("the rerun did not recompute only %s:\n%s", victim.ID, log.String())
	}
	if got := readFile(t, filepath.Join(c.Output, "summary.json")); !bytes.Equal(got, want) {
		t.Error("the summary changed after recomputing the task")
	}
}

// TestOuterPartition: with protocol.outer: partition every item is tested
// in exactly one split, and each class (the synthetic taxonomy's leaves,
// 5 items each) has one or two items held out per split of 4.
func TestOuterPartition(t *testing.T) {
	c := loadTiny(t, t.TempDir())
	c.Protocol.Outer, c.Protocol.Splits, c.Protocol.TestFraction = outerPartition, 4, 0.25
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	ds, err := loadDataset(c)
	if err != nil {
		t.Fatal(err)
	}
	tested := make([]int, ds.n)
	for s := 0; s < 4; s++ {
		_, test := splitItems(c, ds, s)
		perClass := map[int]int{}
		for _, i := range test {
			tested[i]++
			perClass[ds.labels[i]]++
		}
		for class, m := range perClass {
			if m < 1 || m > 2 {
				t.Errorf("split %d: class %d has %d of its 5 items held out, want 1 or 2", s, class, m)
			}
		}
		if len(perClass) != 4 {
			t.Errorf("split %d: %d classes held out, want all 4", s, len(perClass))
		}
	}
	for i, k := range tested {
		if k != 1 {
			t.Errorf("item %d tested %d times, want once", i, k)
		}
	}
	c.Protocol.TestFraction = 0.2
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "protocol.test_fraction: must be 1/splits with outer: partition") {
		t.Errorf("test_fraction 0.2 with 4 partition splits: %v", err)
	}
}

// checkReadmeQuickstart checks the quickstart table that README.md shows
// (the code block after "e.g.") against the run's table md: each README
// line, cut at its "…" (columns left out), must match one line of md
// whose parts appear in that order, spaces collapsed. So README's numbers
// are the quickstart's, not typed by hand.
func checkReadmeQuickstart(t *testing.T, md string) {
	t.Helper()
	readme := string(readFile(t, filepath.Join("..", "README.md")))
	start := strings.Index(readme, "e.g.\n(`TestQuickstartShowsMKPOE`")
	if start < 0 {
		t.Fatal("README.md: the quickstart's table (after \"e.g.\") not found")
	}
	block := readme[start:]
	a := strings.Index(block, "```\n")
	b := strings.Index(block[a+4:], "```")
	if a < 0 || b < 0 {
		t.Fatal("README.md: the quickstart's code block not found")
	}
	squash := func(x string) string { return strings.Join(strings.Fields(x), " ") }
	var have []string
	for _, l := range strings.Split(md, "\n") {
		have = append(have, squash(l))
	}
	for _, want := range strings.Split(strings.TrimSpace(block[a+4:a+4+b]), "\n") {
		parts := strings.Split(want, "…")
		found := false
		for _, h := range have {
			rest, ok := h, true
			for _, p := range parts {
				i := strings.Index(rest, squash(p))
				if i < 0 {
					ok = false
					break
				}
				rest = rest[i+len(squash(p)):]
			}
			if ok {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("README.md's quickstart line %q is not in the run's table", want)
		}
	}
}
