package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// badCase is one bad input through the command line: args, and what stderr
// must name (the file, line or column, the flag or the YAML path, and the
// rule).
type badCase struct {
	name string
	args []string
	want []string
}

// dirHash digests every file under dir (names and contents).
func dirHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	for _, p := range names {
		h.Write([]byte(p))
		h.Write(readFile(t, p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// aloiConfig is a minimal ALOI-10 config with the given dataset.taxonomy;
// its data folder does not exist, so only the config's own checks can pass.
func aloiConfig(taxonomy string) string {
	return `name: aloi
dataset: {type: aloi10, dir: /nonexistent/aloi10, per_class: 20, taxonomy: ` + taxonomy + `}
kernels:
  - {name: rgb, source: view1, type: rbf}
protocol: {splits: 2, test_fraction: 0.2, inner_folds: 2}
rows:
  - {method: native, kernel: rgb}
`
}

// TestBadInputTable drives every command with bad files, flags and configs
// (about 290 cases): each must exit 2 with a message that names where and
// what, and none may change an existing run directory.
func TestBadInputTable(t *testing.T) {
	dir, kernel, comps, rows := fitFixture(t)
	w := func(name, content string) string { return writeFile(t, dir, name, content) }
	model := filepath.Join(dir, "m.json")
	if code, _, errs := run("fit", "--kernel", kernel, "--comparisons", comps, "--beta", "1", "--out", model); code != 0 {
		t.Fatalf("fit: %d %s", code, errs)
	}
	feats := w("x.tsv", "0 1\n1 0\n2 2\n4 1\n")
	var npy bytes.Buffer
	if err := npyio.Write(&npy, mat.NewDense(2, 2, []float64{1, 0, 0, 1})); err != nil {
		t.Fatal(err)
	}
	good := npy.Bytes()
	// A complete run whose files must survive every bad command.
	runDir := filepath.Join(dir, "run")
	tiny := w("tiny.yaml", tinyConfig)
	if code, _, errs := run("run", tiny, "--out", runDir, "--no-report", "--workers", "2"); code != 0 {
		t.Fatalf("run: %d %s", code, errs)
	}
	before := dirHash(t, runDir)

	// Bad matrix files (kernels, features, rows) and what the error names.
	type badFile struct{ name, path, want string }
	missing := filepath.Join(dir, "nope.tsv")
	matrices := []badFile{
		{"ragged", w("ragged.tsv", "1 0 0\n0 1\n0 0 1\n"), "ragged.tsv:2"},
		{"word", w("word.tsv", "1 0\n0 x\n"), "word.tsv:2:2"},
		{"NaN", w("nan.tsv", "1 0\n0 NaN\n"), "nan.tsv:2:2"},
		{"Inf", w("inf.tsv", "1 0\n0 -Inf\n"), "inf.tsv:2:2"},
		{"empty", w("empty.tsv", "# nothing\n"), "empty.tsv"},
		{"binary garbage", w("garbage.tsv", "\x00\x01\x02\xff\xfe"), "garbage.tsv"},
		{"npy truncated header", w("trunc.npy", string(good[:20])), "trunc.npy"},
		{"npy data cut short", w("short.npy", string(good[:len(good)-8])), "short.npy"},
		{"npy garbage", w("garbage.npy", "not numpy at all"), "garbage.npy"},
		{"missing", missing, "nope.tsv"},
		{"a directory", dir, dir},
	}
	kernelsOnly := []badFile{
		{"non-square", w("nonsq.tsv", "1 0 0\n0 1 0\n"), "nonsq.tsv"},
		{"asymmetric", w("asym.tsv", "1 0.5\n0.2 1\n"), "asym.tsv:1:2"},
	}
	compFiles := []badFile{
		{"index out of range", w("range.tsv", "0 1 2\n0 1 9\n"), "range.tsv:2:3"},
		{"negative index", w("neg.tsv", "0 1 -2\n"), "neg.tsv:1:3"},
		{"non-integer index", w("frac.tsv", "0 1.5 2\n"), "frac.tsv:1:2"},
		{"word", w("cword.tsv", "0 one 2\n"), "cword.tsv:1:2"},
		{"five fields", w("five.tsv", "0 1 2 3 0\n"), "five.tsv:1"},
		{"two fields", w("two.tsv", "0 1\n"), "two.tsv:1"},
		{"same pair twice", w("same.tsv", "0 1 1 0\n"), "same.tsv:1"},
		{"no comparisons", w("none.tsv", "# none\n"), "none.tsv"},
		{"binary garbage", w("cgarbage.tsv", "\xff\xfe\x00"), "cgarbage.tsv"},
		{"missing", missing, "nope.tsv"},
		{"a directory", dir, dir},
	}
	models := []badFile{
		{"not JSON", w("notjson.json", "hello"), "notjson.json"},
		{"empty", w("empty.json", ""), "empty.json"},
		{"another format", w("other.json", `{"format":"mkpoe-model/9"}`), "other.json"},
		{"unknown field", w("field.json", `{"format":"mkpoe-model/1","lambda":1}`), "field.json"},
		{"a summary", filepath.Join(runDir, "summary.json"), "summary.json"},
		{"missing", filepath.Join(dir, "nope.json"), "nope.json"},
		{"a directory", dir, dir},
	}
	var cases []badCase
	add := func(name string, want []string, args ...string) {
		cases = append(cases, badCase{name: name, args: args, want: want})
	}
	for _, f := range append(append([]badFile{}, matrices...), kernelsOnly...) {
		add("fit --kernel "+f.name, []string{f.want}, "fit", "--kernel", f.path, "--comparisons", comps, "--beta", "1", "--out", filepath.Join(dir, "o.json"))
		add("native --kernel "+f.name, []string{f.want}, "native", "--kernel", f.path, "--comparisons", comps)
	}
	for _, f := range matrices {
		add("fit --features "+f.name, []string{f.want}, "fit", "--features", f.path, "--comparisons", comps, "--beta", "1", "--out", filepath.Join(dir, "o.json"))
		add("kernel --features "+f.name, []string{f.want}, "kernel", "--features", f.path, "--type", "linear", "--out", filepath.Join(dir, "ko.tsv"))
		add("kernel --test-features "+f.name, []string{f.want}, "kernel", "--features", feats, "--test-features", f.path, "--type", "linear",
			"--out", filepath.Join(dir, "ko.tsv"), "--test-out", filepath.Join(dir, "kto.tsv"))
		add("eval --kernel-rows "+f.name, []string{f.want}, "eval", "--model", model, "--kernel-rows", f.path, "--comparisons", comps)
		add("embed --kernel-rows "+f.name, []string{f.want}, "embed", "--model", model, "--kernel-rows", f.path, "--out", filepath.Join(dir, "e.tsv"))
	}
	for _, f := range compFiles {
		add("fit --comparisons "+f.name, []string{f.want}, "fit", "--kernel", kernel, "--comparisons", f.path, "--beta", "1", "--out", filepath.Join(dir, "o.json"))
		add("native --comparisons "+f.name, []string{f.want}, "native", "--kernel", kernel, "--comparisons", f.path)
		add("eval --comparisons "+f.name, []string{f.want}, "eval", "--model", model, "--comparisons", f.path)
		if f.name != "index out of range" && f.name != "no comparisons" { // graph takes any item count and empty sets
			add("graph --comparisons "+f.name, []string{f.want}, "graph", "--comparisons", f.path, "--out", filepath.Join(dir, "g.tsv"))
		}
	}
	for _, f := range models {
		add("eval --model "+f.name, []string{f.want}, "eval", "--model", f.path, "--comparisons", comps)
		add("embed --model "+f.name, []string{f.want}, "embed", "--model", f.path, "--out", filepath.Join(dir, "e.tsv"))
	}
	add("eval --kernel-rows of the wrong width", []string{"rows.csv:1", "one value per training item"}, "eval", "--model", model, "--kernel-rows", w("rows.csv", "1,2,3\n"), "--comparisons", comps)
	_ = rows
	// Flag values.
	for _, f := range []struct {
		flag, value, want string
	}{
		{"--beta", "-1", "--beta"}, {"--beta", "0", "--beta"}, {"--beta", "NaN", "--beta"}, {"--beta", "abc", "-beta"},
		{"--mode", "sparse", "--mode"}, {"--solver", "newton", "solver"}, {"--tol", "-1", "--tol must be in [0, 1)"}, {"--tol", "2", "--tol must be in [0, 1)"},
		{"--max-iter", "-5", "--max-iter must be >= 0"}, {"--combine", "avg", "combine"}, {"--identity", "-3", "--identity"},
		{"--identity", "1000000000", "at most 20000 items"}, {"--tol", "x", "-tol"}, {"--max-iter", "1.5", "-max-iter"},
	} {
		args := []string{"fit", "--comparisons", comps, "--out", filepath.Join(dir, "o.json")}
		if f.flag != "--beta" {
			args = append(args, "--beta", "1")
		}
		args = append(args, f.flag, f.value)
		if f.flag != "--identity" {
			args = append(args, "--kernel", kernel)
		}
		add("fit "+f.flag+" "+f.value, []string{f.want}, args...)
	}
	for _, f := range []struct {
		args []string
		want string
	}{
		{[]string{"--type", "gauss"}, `"gauss"`},
		{[]string{"--type", "rbf", "--bandwidth", "-1"}, "bandwidth"},
		{[]string{"--type", "chi2", "--sigma", "-1"}, "sigma"},
		{[]string{"--type", "linear", "--normalize", "sideways"}, "sideways"},
		{[]string{"--type", "identity", "--n", "-1"}, "-n"},
		{[]string{"--type", "linear", "--param", "x=1"}, `"x"`},
		{[]string{"--type", "rbf", "--param", "bandwidth=abc"}, "bandwidth=abc"},
		{[]string{"--type", "rbf", "--param", "novalue"}, "novalue"},
	} {
		add("kernel "+strings.Join(f.args, " "), []string{f.want}, append([]string{"kernel", "--features", feats, "--out", filepath.Join(dir, "ko.tsv")}, f.args...)...)
	}
	add("graph --steps bogus", []string{"bogus"}, "graph", "--comparisons", comps, "--steps", "dedup,bogus", "--out", filepath.Join(dir, "g.tsv"))
	// Run directories.
	notRun := filepath.Join(dir, "notrun")
	if err := os.MkdirAll(notRun, 0o755); err != nil {
		t.Fatal(err)
	}
	add("report of a directory that is no run", []string{"notrun"}, "report", notRun)
	add("report --formats bogus", []string{"--formats", "bogus"}, "report", runDir, "--formats", "md,bogus", "--out", filepath.Join(dir, "rep"))
	add("compare with a directory that is no run", []string{"notrun"}, "compare", runDir, notRun)
	add("compare --formats bogus", []string{"--formats", "bogus"}, "compare", runDir, runDir, "--names", "a,b", "--formats", "bogus", "--out", filepath.Join(dir, "cmp"))
	add("compare --names twice", []string{"--names", `"a"`}, "compare", runDir, notRun, "--names", "a,a")
	add("status of a directory that is no run", []string{"notrun"}, "status", notRun)
	add("merge of a directory that is no run", []string{"notrun"}, "merge", notRun)
	add("status of a missing directory", []string{"nowhere"}, "status", filepath.Join(dir, "nowhere"))
	// Configs, through every command that reads one.
	configs := []struct {
		name, yaml, want string
	}{
		{"unknown key", "name: x\nbogus: 1\n", "line 2, column 1: bogus: is not a key of the config"},
		{"wrong type", "name: x\nseed: many\n", "many"},
		{"a fraction of a whole-number key", strings.Replace(tinyConfig, "inner_folds: 2", "inner_folds: 2.7", 1), `line 17, column 57: protocol.inner_folds: must be a whole number, got "2.7"`},
		{"text in the beta grid", strings.Replace(tinyConfig, "beta_grid: [1, 10]", "beta_grid: [1e2, 1e3, abc]", 1), `line 18, column 23: beta_grid[2]: must be a number, got "abc"`},
		{"a number for the beta grid", strings.Replace(tinyConfig, "beta_grid: [1, 10]", "beta_grid: 1000", 1), `line 18, column 12: beta_grid: must be a list of β values`},
		{"a mode in no case", strings.Replace(tinyConfig, "mode: diag}", "mode: Sparse}", 1), `rows[2].mode: must be full or diag, got "Sparse"`},
		{"bad protocol", strings.Replace(tinyConfig, "inner_folds: 2", "inner_folds: 1", 1), "protocol.inner_folds"},
		{"bad beta grid", strings.Replace(tinyConfig, "beta_grid: [1, 10]", "beta_grid: [10, 1]", 1), "beta_grid[1]"},
		{"unknown kernel type", strings.Replace(tinyConfig, "type: linear}", "type: gauss}", 1), "kernels[0].type: must be one of"},
		{"unknown group", strings.Replace(tinyConfig, "{method: k1, group: both, mode: diag}", "{method: k1, group: nope, mode: diag}", 1), "rows[2].group"},
		{"source the data lack", strings.Replace(tinyConfig, "source: good", "source: goood", 1), "kernels[0].source"},
		{"not YAML", "{{{", "c-not-YAML.yaml"},
		{"claim of an unknown row", tinyConfig + "claims:\n  - {claim: x, better: nope, worse: good native}\n", "claims[0].better: must be the label of a row"},
		{"unknown holdout", strings.Replace(tinyConfig, "protocol: {", "protocol: {holdout: triplets, ", 1), "protocol.holdout"},
		{"comparison holdout on a taxonomy", strings.Replace(tinyConfig, "protocol: {", "protocol: {holdout: comparisons, ", 1), "protocol.holdout: comparisons needs a data set with a fixed list"},
		{"clustered taxonomy, levels not increasing", aloiConfig("{cluster: unused_images, levels: [5, 3]}"), "dataset.taxonomy.levels[1]: must be an integer ≥ 2 and above the level before, got 3"},
		{"clustered taxonomy, unknown image set", aloiConfig("{cluster: test_images, levels: [3]}"), "dataset.taxonomy.cluster: must be unused_images"},
		{"identity kernel with item holdout", strings.Replace(strings.Replace(tinyConfig, "kernels:\n", "kernels:\n  - {name: eye, type: identity}\n", 1),
			"rows:\n", "rows:\n  - {method: k1, kernel: eye, mode: full}\n", 1), "kernels[0].type: identity (GNMDS) has no out-of-sample extension"},
	}
	for _, c := range configs {
		p := w("c-"+strings.ReplaceAll(c.name, " ", "-")+".yaml", c.yaml)
		for _, cmd := range [][]string{{"check", p}, {"plan", p}, {"run", p, "--out", filepath.Join(dir, "cfgrun")}, {"slurm", p, "--out", filepath.Join(dir, "cfgrun")}} {
			if cmd[0] == "plan" && (c.name == "source the data lack" || c.name == "comparison holdout on a taxonomy") {
				continue // plan lists tasks from the config alone; it reads no data
			}
			add(cmd[0]+" config "+c.name, []string{c.want}, cmd...)
		}
	}
	for _, cmd := range []string{"check", "plan", "run", "slurm"} {
		add(cmd+" of a missing config", []string{"nope.yaml"}, cmd, filepath.Join(dir, "nope.yaml"))
	}
	for _, f := range []struct{ flag, value string }{{"--cpus", "0"}, {"--parallel", "-1"}, {"--mem", "abc"}, {"--time", "99:99:99x"}, {"--max-array-size", "-1"},
		{"--account", "a b"}, {"--qos", "$(id)"}, {"--constraint", "a;b"}, {"--partition", "a b"}, {"--sbatch-option", "--array=1"}, {"--sbatch-option", "-A x"}} {
		add("slurm "+f.flag+" "+f.value, []string{f.flag}, "slurm", tiny, "--out", filepath.Join(dir, "srun"), f.flag, f.value)
	}
	for _, f := range [][]string{{"--shard", "3/2"}, {"--task-index", "-2"}, {"--phase", "5"}, {"--task-index", "999"}, {"--workers", "x"}} {
		add("run "+strings.Join(f, " "), []string{strings.TrimPrefix(f[0], "-")}, append([]string{"run", tiny, "--out", filepath.Join(dir, "shrun")}, f...)...)
	}
	add("run into another experiment's directory", []string{"belongs to experiment"}, "run", w("other.yaml", strings.Replace(tinyConfig, "name: tiny", "name: other", 1)), "--out", runDir)
	// --out paths that cannot be a run directory.
	aFile := w("README.md", "# a file\n")
	others := filepath.Join(dir, "docs")
	os.MkdirAll(others, 0o755)
	w(filepath.Join("docs", "a.md"), "a\n")
	for _, cmd := range []string{"run", "slurm", "check"} {
		add(cmd+" --out a file", []string{"run directory " + aFile + " is a file, not a folder", "--out"}, cmd, tiny, "--out", aFile)
		add(cmd+" --out under a file", []string{"lies under " + aFile + ", which is a file"}, cmd, tiny, "--out", filepath.Join(aFile, "run"))
	}
	for _, cmd := range []string{"run", "slurm"} {
		add(cmd+" --out a folder of other files", []string{"run directory " + others + " holds other files (a.md) and no run of mkpoe", "--force"}, cmd, tiny, "--out", others)
	}
	for _, f := range [][]string{{"--triplets", "0"}, {"--triplets", "100000"}, {"--flip", "0.7"}, {"--per-class", "0"}, {"--seed", "-1"}} {
		add("synth "+strings.Join(f, " "), []string{strings.TrimLeft(f[0], "-")}, append([]string{"synth", "--out", filepath.Join(dir, "syn")}, f...)...)
	}
	add("synth without --out", []string{"--out is required"}, "synth")
	// mkpoe query: its spaces, items, names and run directories. (rows.csv
	// was overwritten with a bad row above: use a good copy.)
	rows = w("q-rows-good.csv", "1,4,7,13\n")
	for _, f := range append(append([]badFile{}, matrices...), kernelsOnly...) {
		add("query --kernel "+f.name, []string{f.want}, "query", "--kernel", f.path, "--item", "0")
	}
	for _, f := range models {
		add("query --model "+f.name, []string{f.want}, "query", "--model", f.path, "--item", "0")
	}
	for _, f := range matrices {
		add("query --kernel-rows "+f.name, []string{f.want}, "query", "--model", model, "--kernel-rows", f.path)
		add("query --kernel-self "+f.name, []string{f.want}, "query", "--kernel", kernel, "--kernel-rows", rows, "--kernel-self", f.path)
	}
	items := w("q-items.tsv", "id\tname\na\tAlpha\nb\tBeta\nc\tGamma\nd\tDelta Dawn\n")
	twins := w("q-twins.tsv", "id\tname\na\tSame\nb\tsame\nc\tOther\nd\t112\n")
	gnmds := filepath.Join(dir, "gnmds.json")
	if code, _, errs := run("fit", "--identity", "4", "--comparisons", comps, "--beta", "1", "--out", gnmds); code != 0 {
		t.Fatalf("fit --identity: %d %s", code, errs)
	}
	runCopy := filepath.Join(dir, "runcopy")
	copyDir(t, runDir, runCopy)
	sum, err := results.DecodeSummary(readFile(t, filepath.Join(runCopy, "summary.json")), "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	heldOut := filepath.Join(runCopy, strings.TrimSuffix(sum.Rows[4].Models[0], ".json")+".test.tsv")
	if err := os.WriteFile(heldOut, []byte("1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noHeld := filepath.Join(dir, "runnoheld")
	copyDir(t, runDir, noHeld)
	if err := os.Remove(strings.Replace(heldOut, runCopy, noHeld, 1)); err != nil {
		t.Fatal(err)
	}
	items0, err := results.DecodeItems(readFile(t, filepath.Join(noHeld, "items.json")), "items.json")
	if err != nil {
		t.Fatal(err)
	}
	held0 := strconv.Itoa(items0.Splits[0].Test[0])
	noItems := filepath.Join(dir, "runnoitems")
	copyDir(t, runDir, noItems)
	if err := os.Remove(filepath.Join(noItems, "items.json")); err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		name string
		want []string
		args []string
	}{
		{"no space", []string{"exactly one of --model", "--kernel", "--run"}, []string{"--item", "0"}},
		{"two spaces", []string{"exactly one of --model"}, []string{"--model", model, "--kernel", kernel, "--item", "0"}},
		{"-k 0", []string{"-k must be >= 1", "got 0"}, []string{"--kernel", kernel, "--item", "0", "-k", "0"}},
		{"-k not a number", []string{"-k", `"ten"`}, []string{"--kernel", kernel, "--item", "0", "-k", "ten"}},
		{"no --item and no new items", []string{"give the items to query with --item"}, []string{"--kernel", kernel}},
		{"index out of range", []string{"--item 4", "must be in 0..3", "got 4"}, []string{"--kernel", kernel, "--item", "4"}},
		{"negative index", []string{"--item -1", "must be in 0..3", "got -1"}, []string{"--kernel", kernel, "--item", "-1"}},
		{"index out of range that is a name", []string{"--item 112", "write --item name:112"}, []string{"--kernel", kernel, "--items", twins, "--item", "112"}},
		{"empty name", []string{`--item ""`, "index or a name"}, []string{"--kernel", kernel, "--item", ""}},
		{"unknown name", []string{`--item "Epsilon"`, "no item has this name", "no name contains it"}, []string{"--kernel", kernel, "--items", items, "--item", "Epsilon"}},
		{"unknown name with suggestions", []string{`--item "ta"`, "names containing it", `1 "Beta"`, `3 "Delta Dawn"`}, []string{"--kernel", kernel, "--items", items, "--item", "ta"}},
		{"ambiguous name", []string{`--item "SAME"`, "2 items have this name", `0 "Same"`, `1 "same"`}, []string{"--kernel", kernel, "--items", twins, "--item", "SAME"}},
		{"name without names", []string{`--item "Alpha"`, "no names", "--items FILE"}, []string{"--kernel", kernel, "--item", "Alpha"}},
		{"items file of the wrong length", []string{"q-short.tsv", "one item per kernel row (4)", "3 items"}, []string{"--kernel", kernel, "--items", w("q-short.tsv", "a\nb\nc\n"), "--item", "0"}},
		{"items file with a duplicate id", []string{"q-dup.tsv:3:1", "unique", `"a"`}, []string{"--model", model, "--items", w("q-dup.tsv", "a\nb\na\nd\n"), "--item", "0"}},
		{"items file missing", []string{"nope.tsv"}, []string{"--kernel", kernel, "--items", missing, "--item", "0"}},
		{"kernels of different sizes", []string{"q-small.tsv", "same size", "2×2"}, []string{"--kernel", kernel, "--kernel", w("q-small.tsv", "1 0\n0 1\n"), "--item", "0"}},
		{"kernel rows of the wrong width", []string{"q-rows.csv:1", "one value per training item (4)"}, []string{"--model", model, "--kernel-rows", w("q-rows.csv", "1,2,3\n")}},
		{"kernel rows for a model, two files for one kernel", []string{"--kernel-rows", "takes 1 files", "got 2"}, []string{"--model", model, "--kernel-rows", rows, "--kernel-rows", rows}},
		{"kernel rows for a GNMDS model", []string{"--kernel-rows", "GNMDS", "no out-of-sample extension"}, []string{"--model", gnmds, "--kernel-rows", rows}},
		{"native new items without --kernel-self", []string{"--kernel-self", "k(x,x)"}, []string{"--kernel", kernel, "--kernel-rows", rows}},
		{"--kernel-self without --kernel", []string{"--kernel-self goes with --kernel"}, []string{"--model", model, "--kernel-self", rows}},
		{"--kernel-self of the wrong shape", []string{"q-self2.tsv", "1 lines of one number", "2×1 values"}, []string{"--kernel", kernel, "--kernel-rows", rows, "--kernel-self", w("q-self2.tsv", "10\n10\n")}},
		{"--kernel-self negative", []string{"q-selfneg.tsv:1:1", "k(x,x) must be >= 0", "-2"}, []string{"--kernel", kernel, "--kernel-rows", rows, "--kernel-self", w("q-selfneg.tsv", "-2\n")}},
		{"kernel rows of two kernels disagree", []string{"q-rows2.tsv", "same new items as", "2 rows"}, []string{"--kernel", kernel, "--kernel", kernel, "--kernel-rows", rows, "--kernel-rows", w("q-rows2.tsv", "1 1 1 1\n1 1 1 1\n"), "--kernel-self", w("q-self1.tsv", "10\n"), "--kernel-self", w("q-self1b.tsv", "10\n")}},
		{"--row without --run", []string{"--row and --split go with --run"}, []string{"--kernel", kernel, "--row", "x", "--item", "0"}},
		{"--run with --kernel-rows", []string{"--kernel-rows and --items go with --model or --kernel"}, []string{"--run", runDir, "--kernel-rows", rows, "--item", "0"}},
		{"--run of a directory that is no run", []string{"--run", "notrun", "not a finished run directory"}, []string{"--run", notRun, "--item", "0"}},
		{"--run without items.json", []string{"items.json", "no such file"}, []string{"--run", noItems, "--row", sum.Rows[4].Label, "--item", "0"}},
		{"--run without --row", []string{"--row is required", "3 learned rows", strconv.Quote(sum.Rows[4].Label)}, []string{"--run", runDir, "--item", "0"}},
		{"--run --row unknown", []string{"--row", `"nope"`, "learned rows are", strconv.Quote(sum.Rows[2].Label)}, []string{"--run", runDir, "--row", "nope", "--item", "0"}},
		{"--run --row native, a split the run lacks", []string{"--split must be in 0..1 (the run's outer splits), got 5"}, []string{"--run", runDir, "--row", sum.Rows[0].Label, "--split", "5", "--item", "0"}},
		{"--run --split out of range", []string{"--split must be in 0..1", "got 2"}, []string{"--run", runDir, "--row", sum.Rows[4].Label, "--split", "2", "--item", "0"}},
		{"--run --split negative", []string{"--split must be >= 0", "-1"}, []string{"--run", runDir, "--row", sum.Rows[4].Label, "--split", "-1", "--item", "0"}},
		{"--run held-out embedding of the wrong shape", []string{filepath.Base(heldOut), "one row per held-out item", "1×2 values"}, []string{"--run", runCopy, "--row", sum.Rows[4].Label, "--item", "0"}},
		{"--run held-out item without its embedding", []string{"--item " + strconv.Quote(held0), "held out in split 0", "no out-of-sample embedding", ".test.tsv"},
			[]string{"--run", noHeld, "--row", sum.Rows[4].Label, "--item", held0}},
		{"positional argument", []string{"unexpected arguments", "Metallica"}, []string{"--kernel", kernel, "Metallica"}},
	} {
		add("query "+q.name, q.want, append([]string{"query"}, q.args...)...)
	}
	add("unknown command", []string{"frobnicate"}, "frobnicate")
	add("fit with a positional argument", []string{"unexpected arguments"}, "fit", "--kernel", kernel, "--comparisons", comps, "extra")

	if len(cases) < 150 {
		t.Fatalf("only %d cases, the issue asks for at least 150", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(tc.args...)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d; stderr %q", code, ExitUsage, stderr)
			}
			for _, want := range tc.want {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q does not name %q", stderr, want)
				}
			}
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "internal error") {
				t.Errorf("stderr %q reads as a bug", stderr)
			}
		})
	}
	t.Logf("%d bad inputs", len(cases))
	if after := dirHash(t, runDir); after != before {
		t.Error("bad commands changed the finished run directory")
	}
}
