package experiments

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mkpoe/mkpoe/pkg/cv"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
)

// Data-set facts that the documents' protocol numbers are built from
// (docs/datasets.md gives their sources and the tests of each count).
const (
	aset400Artists = 412     // aset400's artists
	aloiClasses    = 10      // ALOI-10's classes
	aloiTrainPairs = 670_000 // taxonomy comparisons among ALOI's 160 training images, "about" (docs/results.md)
)

// TestDocNumbersFromConfigs: the protocol numbers that README.md,
// docs/readme-results.md.tmpl, docs/results.md.tmpl and
// docs/deviations.md type in their prose (splits, folds, β grids, kernel
// counts, subsample sizes) are those of the configs the committed results
// ran, and the method constants they name (the claims' bootstrap
// replicates and level, the default tolerance, the goldens' tolerances)
// are the code's. Each case builds its phrase from the config or the
// constant, so a change that the text does not follow, or a text edit
// that drops the number, fails here.
// The measured numbers of those documents are generated from the
// committed summaries (pkg/report.ResultsDoc; TestResultsDocUpToDate,
// TestReadmeResultsUpToDate); TestDocGapFractions and
// TestDocResultSentences check those stated in words.
func TestDocNumbersFromConfigs(t *testing.T) {
	cfg := func(name string) *Config { return rawConfig(t, name) }
	aloi, sub, bw, tax := cfg("aloi10_taxonomy_experiment"), cfg("aloi10_sensitivity_subsample"), cfg("aloi10_sensitivity_bandwidth"), cfg("aloi10_sensitivity_taxonomy")
	single, groups, graph := cfg("aset400_single_kernels"), cfg("aset400_kernel_groups"), cfg("aset400_graph_processing")
	splits, claims, quick := cfg("aset400_splits"), cfg("aset400_claims_splits"), cfg("quickstart")
	const (
		readme  = "README.md"
		readmeT = "docs/readme-results.md.tmpl"
		results = "docs/results.md.tmpl"
		devs    = "docs/deviations.md"
	)
	aloiTrain := int(float64(aloiClasses*aloi.Dataset.PerClass)*(1-aloi.Protocol.TestFraction) + 0.5)
	cases := []struct {
		doc, phrase string
	}{
		// docs/results.md.tmpl: how to read the tables.
		{results, fmt.Sprintf("protocol, %d inner folds in `aset400_claims_splits`", claims.Protocol.InnerFolds)},
		{results, fmt.Sprintf("(ALOI: a stratified partition into %d folds, every image tested once)", partitionSplits(aloi))},
		{results, fmt.Sprintf("paper tables have %s %s split of the artists", word(single.Protocol.Splits), artistSplit(single))},
		{results, fmt.Sprintf("`configs/aset400_splits.yaml` repeats the native and diagonal rows over %d splits", splits.Protocol.Splits)},
		{results, fmt.Sprintf("on a %.0f%% interval of the difference", 100*claimLevel)},
		{results, fmt.Sprintf("(`stats.AnchorBootstrap`, %d seeded replicates)", claimReps)},
		{results, fmt.Sprintf("`aset400_claims_splits`: %s random %s splits of %d artists", word(randomSplits(splits)), artistSplit(splits), aset400Artists)},
		{results, fmt.Sprintf("`aset400_claims_splits`: %s random %s splits of %d artists", word(randomSplits(claims)), artistSplit(claims), aset400Artists)},
		{results, fmt.Sprintf("(ALOI's %s disjoint folds, every image tested once)", word(partitionSplits(aloi)))},
		{results, fmt.Sprintf("The graph-processing claim with diagonal W over %d splits", claims.Protocol.Splits)},
		// The taxonomy experiment and its sensitivity configs.
		{results, fmt.Sprintf("— %d ALOI objects × %d images, a stratified partition into %s %s splits, %d-fold inner CV over β ∈ {%s … %s}, %s metrics",
			aloiClasses, aloi.Dataset.PerClass, word(partitionSplits(aloi)), percentSplit(aloi), aloi.Protocol.InnerFolds, pow10(aloi.BetaGrid.Values[0]), pow10(slices.Max(aloi.BetaGrid.Values)), learnedMode(aloi))},
		{results, fmt.Sprintf("The sum kernel has %d kernels (our %d feature views + %d noise kernels)", len(group(aloi, "all")), len(group(aloi, "all"))-noiseKernels(aloi), noiseKernels(aloi))},
		{results, fmt.Sprintf("The %s random kernels score", word(noiseKernels(aloi)))},
		{results, fmt.Sprintf("chose β = %s, the top of the paper's grid", pow10(slices.Max(aloi.BetaGrid.Values)))},
		{results, fmt.Sprintf("comparisons among the %d training images (about 670,000, of which %s are used)", aloiTrain, percentOf(aloi.Protocol.MaxTrainComparisons, aloiTrainPairs))},
		{results, fmt.Sprintf("sensitivity config below trains on %s times as many", word(subsampleFactor(t, aloi, sub)))},
		{results, fmt.Sprintf("with %d times as many comparisons per fit", subsampleFactor(t, aloi, sub))},
		{results, fmt.Sprintf("comparisons (%s of those among the training images)", percentOf(sub.Protocol.MaxTrainComparisons, aloiTrainPairs))},
		{results, fmt.Sprintf("%s times the comparisons move no row", capital(word(subsampleFactor(t, aloi, sub))))},
		{results, fmt.Sprintf("The %s subsample does not drive the conclusions", percentOf(aloi.Protocol.MaxTrainComparisons, aloiTrainPairs))},
		{results, fmt.Sprintf("comparisons (%s times as many: sum K1", word(subsampleFactor(t, aloi, sub)))},
		{results, fmt.Sprintf("at %s of it (`median_scale: %g`)", fractionWord(medianScale(t, bw)), medianScale(t, bw))},
		{results, fmt.Sprintf("the RBF bandwidth (%s the median: sum K1", fractionWord(medianScale(t, bw)))},
		{results, fmt.Sprintf("with the dendrogram cut into %s clusters instead of %s", andList(levels(t, tax)), andList(levels(t, aloi)))},
		{results, fmt.Sprintf("seeded %d×%d ALOI-10 subset", aloiClasses, aloi.Dataset.PerClass)},
		// aset400.
		{results, fmt.Sprintf("%s %s split of the artists; training comparisons cleaned", capital(word(single.Protocol.Splits)), artistSplit(single))},
		{results, oneSplitProtocol(single)},
		{results, oneSplitProtocol(groups)},
		{results, oneSplitProtocol(graph)},
		{results, fmt.Sprintf("and the %d splits below say the same", claims.Protocol.Splits)},
		{results, fmt.Sprintf("### Split-to-split variation (paper Table 3, %d splits)", splits.Protocol.Splits)},
		{results, fmt.Sprintf("the single-kernel protocol on %d seeded %s splits of the artists", splits.Protocol.Splits, artistSplit(splits))},
		{results, fmt.Sprintf("Over the %d splits, ST native ranges from", splits.Protocol.Splits)},
		{results, fmt.Sprintf("is the hardest of the %s for the", word(splits.Protocol.Splits))},
		{results, fmt.Sprintf("Over the %s splits, learning on social tags gains", word(splits.Protocol.Splits))},
		{results, fmt.Sprintf("### Every aset400 claim over %d splits (paper Tables 3–5)", claims.Protocol.Splits)},
		{results, fmt.Sprintf("on the same %d seeded %s splits as `aset400_splits`", claims.Protocol.Splits, artistSplit(claims))},
		{results, fmt.Sprintf("One departure: **%d inner folds** where the paper and the one-split configs have %d,", claims.Protocol.InnerFolds, oneSplitFolds(t, single, groups, graph))},
		{results, fmt.Sprintf("(with %d folds it took", claims.Protocol.InnerFolds)},
		{results, fmt.Sprintf("Over %d splits, with each artist one cluster", claims.Protocol.Splits)},
		{results, fmt.Sprintf("β chosen with %d inner folds can be set against the one-split configs' with %d", claims.Protocol.InnerFolds, oneSplitFolds(t, single, groups, graph))},
		{results, fmt.Sprintf("Our kernels are %s, not the paper's five", word(len(claims.Kernels)))},
		{results, fmt.Sprintf("Over the %d splits above, learning on the full", claims.Protocol.Splits)},
		{results, fmt.Sprintf("over the %d splits with %d inner folds, and by", claims.Protocol.Splits, claims.Protocol.InnerFolds)},
		{results, fmt.Sprintf("in the one-split config with %d folds", graph.Protocol.InnerFolds)},
		{results, fmt.Sprintf("The task times of the %d-split run", claims.Protocol.Splits)},
		{results, fmt.Sprintf("all %d folds' sweeps and the refit", graph.Protocol.InnerFolds)},
		{results, fmt.Sprintf("The native and diagonal rows of aset400 over %d splits were rerun too", splits.Protocol.Splits)},
		{results, fmt.Sprintf("the full-W rows of Tables 3–5 over the %d splits", claims.Protocol.Splits)},
		{results, fmt.Sprintf("over the %d artists, all taxonomy comparisons", aset400Artists)},
		// The goldens' tolerances (golden_test.go).
		{results, fmt.Sprintf("within %s absolute on accuracies", pow10(accuracyTol.Abs))},
		{results, fmt.Sprintf("within %g%% relative on a row's largest certified gap", 100*gapTol.Rel)},
		// README.md and its generated results section.
		{readme, quickstartData(quick)},
		{readme, fmt.Sprintf("Table 2 (Sec. 5.1, taxonomy): ALOI-10 feature views + %d noise kernels", noiseKernels(aloi))},
		{readme, fmt.Sprintf("| `configs/aset400_splits.yaml` | Table 3 over %d splits:", splits.Protocol.Splits)},
		{readme, fmt.Sprintf("over %d splits); docs/results.md judges every claim", claims.Protocol.Splits)},
		{readmeT, fmt.Sprintf("over %d splits); docs/results.md judges every claim", claims.Protocol.Splits)},
		{readme, fmt.Sprintf("(default %s, relative)", pow10(mkpoe.DefaultTol))},
		// docs/deviations.md.
		{devs, fmt.Sprintf("a seeded subsample per fit (%d training, %d held-out)", aloi.Protocol.MaxTrainComparisons, aloi.Protocol.MaxTestComparisons)},
		{devs, fmt.Sprintf("| %d classes × %d images and %d noise kernels in both; %d feature kernels against the paper's 5, so the sum kernel has %d kernels against 10 |",
			aloiClasses, aloi.Dataset.PerClass, noiseKernels(aloi), len(group(aloi, "all"))-noiseKernels(aloi), len(group(aloi, "all")))},
		{devs, fmt.Sprintf("| %d classes; levels %s |", aloiClasses, strings.Trim(strings.Join(strings.Fields(fmt.Sprint(levels(t, aloi))), ", "), "[]"))},
		{devs, fmt.Sprintf("| %d training and %d test comparisons per fit, of about 670,000 among the training images; `aloi10_sensitivity_subsample` uses %d times as many |",
			aloi.Protocol.MaxTrainComparisons, aloi.Protocol.MaxTestComparisons, subsampleFactor(t, aloi, sub))},
		{devs, fmt.Sprintf("| %d in every one-split aset400 config; %d in `aset400_claims_splits` (%d splits × %d folds", oneSplitFolds(t, single, groups, graph), claims.Protocol.InnerFolds, claims.Protocol.Splits, oneSplitFolds(t, single, groups, graph))},
		{devs, fmt.Sprintf("| %s %s split of the artists (Sec. 5.2.2) | the same protocol on seeded splits; `aset400_splits` and `aset400_claims_splits` repeat it over %d | %d splits |",
			word(single.Protocol.Splits), artistSplit(single), sameSplits(t, splits, claims), sameSplits(t, splits, claims))},
	}
	text := map[string]string{}
	for _, c := range cases {
		if _, ok := text[c.doc]; !ok {
			text[c.doc] = squash(string(readFile(t, filepath.Join(repoDir, c.doc))))
		}
		if !strings.Contains(text[c.doc], squash(c.phrase)) {
			t.Errorf("%s does not say %q, which the configs and constants give", c.doc, c.phrase)
		}
	}
}

// TestDocGapFractions: the shares of the gaps to the paper that
// docs/deviations.md's verdicts give in words ("ties ½ closes about half
// of the gap", "K4 toward it by a quarter of its gap") are those of the
// committed summaries, to the nearest of the fractions fractionWord names.
func TestDocGapFractions(t *testing.T) {
	single := summaryRows(t, "aset400_single_kernels")
	aloi := summaryRows(t, "aloi10_taxonomy_experiment")
	bw := summaryRows(t, "aloi10_sensitivity_bandwidth")
	sub := summaryRows(t, "aloi10_sensitivity_subsample")
	cf := single["CF native"]
	// share is how much of the gap from row r to its paper value the
	// accuracy a closes (negative: away from the paper).
	share := func(r docRow, a float64) float64 { return (a - r.Mean) / (*r.Paper - r.Mean) }
	k1, k4 := aloi["sum K1"], aloi["MKPOE K4"]
	for _, c := range []struct {
		phrase string
		holds  bool
	}{
		{fmt.Sprintf("our CF vectors tie on %s of the test comparisons", fractionWord(cf.tieRate())), true},
		{fmt.Sprintf("ties ½ closes about %s of the gap", fractionWord(share(cf, cf.halfTies()))), true},
		{fmt.Sprintf("K1 moves away from the paper, K4 toward it by %s of its gap", fractionWord(share(k4, bw["MKPOE½ K4"].Mean))), share(k1, bw["sum½ K1"].Mean) < 0},
		{fmt.Sprintf("K1 gains %s of its gap, K4 nothing", fractionWord(share(k1, sub["sum K1"].Mean))), math.Abs(share(k4, sub["MKPOE K4"].Mean)) < 0.05},
	} {
		t.Logf("%s (holds: %v)", c.phrase, c.holds)
		if !c.holds || !strings.Contains(squash(string(readFile(t, filepath.Join(repoDir, "docs", "deviations.md")))), squash(c.phrase)) {
			t.Errorf("docs/deviations.md does not say %q, or the summaries do not bear it out (holds: %v)", c.phrase, c.holds)
		}
	}
}

// TestDocResultSentences: the sentences of docs/results.md.tmpl that
// state a result in words, with no number to generate, hold in the
// committed summaries and cost file.
func TestDocResultSentences(t *testing.T) {
	splits := summaryRows(t, "aset400_splits")
	single := summaryRows(t, "aset400_single_kernels")
	claims, claimsGo := summaryRows(t, "aset400_claims_splits"), summaryRows(t, "aset400_claims_splits.gonum")
	// lowest: split 0 has the row's lowest accuracy of all splits.
	lowest := func(r docRow) bool { return len(r.Accuracy) > 1 && r.Accuracy[0] == slices.Min(r.Accuracy) }
	learnedBeatNative := true
	for _, k := range []string{"ST", "CF", "genre"} {
		for _, m := range []string{"diag", "full"} {
			learnedBeatNative = learnedBeatNative && single[k+" K1 "+m].Mean > single[k+" native"].Mean
		}
	}
	sameBeta := len(claims) == len(claimsGo)
	for label, r := range claims {
		sameBeta = sameBeta && slices.Equal(r.Beta, claimsGo[label].Beta)
	}
	cost := costRepeats(t, "aset400_graph_processing")
	cheaper := func(a, b string) bool {
		ok := len(cost[a]) > 1 && len(cost[a]) == len(cost[b])
		for i := range cost[a] {
			ok = ok && cost[a][i] < cost[b][i]
		}
		return ok
	}
	for _, c := range []struct {
		phrase string
		holds  bool
	}{
		{"The paper's single split is the hardest of the ten for the CF and genre native spaces", lowest(splits["CF native"]) && lowest(splits["genre native"])},
		{"Every learned space beats its native space, as in the paper.", learnedBeatNative},
		{"for genre, diagonal is ahead.", single["genre K1 diag"].Mean > single["genre K1 full"].Mean},
		{"Every β is the same in both builds, on every learned row and split", sameBeta},
		{"diagonal W by {{cpucut \"aset400_graph_processing\" \"Processed diag\" \"Full diag\"}}, cheaper in every repeat.", cheaper("Processed full", "Full full") && cheaper("Processed diag", "Full diag")},
	} {
		if !c.holds || !strings.Contains(squash(string(readFile(t, filepath.Join(repoDir, "docs", "results.md.tmpl")))), squash(c.phrase)) {
			t.Errorf("docs/results.md.tmpl does not say %q, or the committed results do not bear it out (holds: %v)", c.phrase, c.holds)
		}
	}
}

// costRepeats is results/<name>/cost.json's process CPU time per row and
// repeat (summed over the repeat's tasks).
func costRepeats(t *testing.T, name string) map[string][]float64 {
	t.Helper()
	var c struct {
		Runs []struct {
			Repeat int     `json:"repeat"`
			Row    string  `json:"row"`
			CPU    float64 `json:"process_cpu_seconds"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(repoDir, "results", name, "cost.json")), &c); err != nil {
		t.Fatal(err)
	}
	rows := map[string][]float64{}
	for _, r := range c.Runs {
		for len(rows[r.Row]) <= r.Repeat {
			rows[r.Row] = append(rows[r.Row], 0)
		}
		rows[r.Row][r.Repeat] += r.CPU
	}
	return rows
}

// docRow is what the doc tests read of a summary row.
type docRow struct {
	Mean     float64   `json:"mean"`
	Accuracy []float64 `json:"accuracy"`
	Beta     []float64 `json:"beta"`
	Paper    *float64  `json:"paper"`
	Tallies  []struct {
		Right int `json:"right"`
		Ties  int `json:"ties"`
		Wrong int `json:"wrong"`
	} `json:"test_tallies"`
}

// tieRate and halfTies are the row's tie rate and its accuracy with ties
// counted ½, over all its splits' test comparisons.
func (r docRow) tieRate() float64 {
	var ties, n int
	for _, s := range r.Tallies {
		ties, n = ties+s.Ties, n+s.Right+s.Ties+s.Wrong
	}
	return float64(ties) / float64(n)
}

func (r docRow) halfTies() float64 {
	var right, n float64
	for _, s := range r.Tallies {
		right += float64(s.Right) + float64(s.Ties)/2
		n += float64(s.Right + s.Ties + s.Wrong)
	}
	return right / n
}

// summaryRows reads results/<name>/summary.json's rows by label.
func summaryRows(t *testing.T, name string) map[string]docRow {
	t.Helper()
	var s struct {
		Rows []struct {
			Label string `json:"label"`
			docRow
		} `json:"rows"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(repoDir, "results", name, "summary.json")), &s); err != nil {
		t.Fatal(err)
	}
	rows := map[string]docRow{}
	for _, r := range s.Rows {
		if len(r.Tallies) == 0 {
			t.Fatalf("results/%s: row %q has no test tallies", name, r.Label)
		}
		rows[r.Label] = r.docRow
	}
	return rows
}

// rawConfig is configs/<name>.yaml as written (no data needed: the
// defaults and checks of LoadConfig are not applied).
func rawConfig(t *testing.T, name string) *Config {
	t.Helper()
	var c Config
	if err := yaml.Unmarshal(readFile(t, filepath.Join(repoDir, "configs", name+".yaml")), &c); err != nil {
		t.Fatalf("configs/%s.yaml: %v", name, err)
	}
	return &c
}

// squash collapses runs of white space (line breaks of the prose) to one
// space.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// word writes 1–10 as a word, as the prose does.
func word(n int) string {
	if n >= 1 && n <= 10 {
		return []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}[n-1]
	}
	return fmt.Sprint(n)
}

func capital(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// fractionWord is the nearest of the fractions the prose names.
func fractionWord(x float64) string {
	words := []struct {
		w string
		f float64
	}{{"half", 1.0 / 2}, {"a third", 1.0 / 3}, {"a quarter", 1.0 / 4}, {"a fifth", 1.0 / 5}, {"an eighth", 1.0 / 8}, {"a tenth", 1.0 / 10}}
	best := 0
	for i, c := range words {
		if math.Abs(x-c.f) < math.Abs(x-words[best].f) {
			best = i
		}
	}
	return words[best].w
}

// pow10 writes a power of ten as the prose does (1e-2, 1e6); anything
// else as %g.
func pow10(x float64) string {
	e := math.Round(math.Log10(x))
	if math.Abs(x-math.Pow(10, e)) > 1e-12*x {
		return fmt.Sprintf("%g", x)
	}
	return fmt.Sprintf("1e%d", int(e))
}

// percentOf is a/b as a percentage with one decimal.
func percentOf(a, b int) string { return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b)) }

// artistSplit is "train/test" of an aset400 config's outer split.
func artistSplit(c *Config) string {
	train, test := cv.OuterSplit(aset400Artists, c.Protocol.TestFraction, c.Seed, 0)
	return fmt.Sprintf("%d/%d", len(train), len(test))
}

// percentSplit is "80/20" of a config's test fraction.
func percentSplit(c *Config) string {
	p := int(math.Round(100 * c.Protocol.TestFraction))
	return fmt.Sprintf("%d/%d", 100-p, p)
}

// partitionSplits is the splits of a partition config (0 otherwise).
func partitionSplits(c *Config) int {
	if c.Protocol.Outer != outerPartition {
		return 0
	}
	return c.Protocol.Splits
}

// randomSplits is the splits of a config with random outer splits (the
// default; 0 otherwise).
func randomSplits(c *Config) int {
	if c.Protocol.Outer != "" && c.Protocol.Outer != outerRandom {
		return 0
	}
	return c.Protocol.Splits
}

// sameSplits is the splits that both configs draw, the same way.
func sameSplits(t *testing.T, a, b *Config) int {
	t.Helper()
	if randomSplits(a) != randomSplits(b) || a.Protocol.TestFraction != b.Protocol.TestFraction || a.Seed != b.Seed {
		t.Errorf("%s and %s draw different splits", a.Name, b.Name)
	}
	return a.Protocol.Splits
}

// learnedMode is the mode of every learned row ("diagonal" or "full";
// "mixed" when they differ).
func learnedMode(c *Config) string {
	modes := map[string]bool{}
	for _, r := range c.Rows {
		if r.Method != "native" {
			modes[r.Mode] = true
		}
	}
	switch {
	case len(modes) == 1 && modes["diag"]:
		return "diagonal"
	case len(modes) == 1 && modes["full"]:
		return "full"
	}
	return "mixed"
}

// group is the kernels of a config's group.
func group(c *Config, name string) []string {
	for _, g := range c.Groups {
		if g.Name == name {
			return g.Kernels
		}
	}
	return nil
}

// noiseKernels counts a config's random (noise) kernels.
func noiseKernels(c *Config) int {
	n := 0
	for _, k := range c.Kernels {
		if k.Type == "noise" {
			n++
		}
	}
	return n
}

// subsampleFactor is how many times as many training and test
// comparisons per fit sub has as main (the same factor for both).
func subsampleFactor(t *testing.T, main, sub *Config) int {
	t.Helper()
	f := sub.Protocol.MaxTrainComparisons / main.Protocol.MaxTrainComparisons
	if f*main.Protocol.MaxTrainComparisons != sub.Protocol.MaxTrainComparisons || f*main.Protocol.MaxTestComparisons != sub.Protocol.MaxTestComparisons {
		t.Errorf("%s: comparisons %d/%d, not a whole multiple of %s's %d/%d", sub.Name, sub.Protocol.MaxTrainComparisons, sub.Protocol.MaxTestComparisons, main.Name, main.Protocol.MaxTrainComparisons, main.Protocol.MaxTestComparisons)
	}
	return f
}

// medianScale is the one median_scale that c's kernels set.
func medianScale(t *testing.T, c *Config) float64 {
	t.Helper()
	scales := map[float64]bool{}
	for _, k := range c.Kernels {
		if s, ok := k.Params["median_scale"]; ok {
			scales[s] = true
		}
	}
	if len(scales) != 1 {
		t.Fatalf("%s: median_scale values %v, want one", c.Name, scales)
	}
	for s := range scales {
		return s
	}
	return 0
}

// levels is dataset.taxonomy.levels of a clustered taxonomy.
func levels(t *testing.T, c *Config) []int {
	t.Helper()
	b, err := yaml.Marshal(c.Dataset.Taxonomy)
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Levels []int `yaml:"levels"`
	}
	if err := yaml.Unmarshal(b, &spec); err != nil || len(spec.Levels) == 0 {
		t.Fatalf("%s: dataset.taxonomy has no levels (%v)", c.Name, err)
	}
	return spec.Levels
}

// andList writes [3 5 7] as "3, 5 and 7".
func andList(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// oneSplitFolds is the inner folds of the one-split aset400 configs, which
// must agree.
func oneSplitFolds(t *testing.T, cs ...*Config) int {
	t.Helper()
	for _, c := range cs[1:] {
		if c.Protocol.InnerFolds != cs[0].Protocol.InnerFolds {
			t.Errorf("%s has %d inner folds, %s %d", c.Name, c.Protocol.InnerFolds, cs[0].Name, cs[0].Protocol.InnerFolds)
		}
	}
	return cs[0].Protocol.InnerFolds
}

// oneSplitProtocol is the aset400 section's sentence on a one-split
// config's protocol.
func oneSplitProtocol(c *Config) string {
	if c.Protocol.Splits != 1 {
		return fmt.Sprintf("%s has %d splits", c.Name, c.Protocol.Splits)
	}
	return fmt.Sprintf("%d inner folds, β ∈ {%s … %s}, as the paper.", c.Protocol.InnerFolds, pow10(c.BetaGrid.Values[0]), pow10(slices.Max(c.BetaGrid.Values)))
}

// quickstartData is README's description of the quickstart's data.
func quickstartData(c *Config) string {
	s := c.Dataset.Synthetic
	items := s.PerClass
	for _, b := range s.Branching {
		items *= b
	}
	random := 0
	for _, v := range s.Views {
		if v.Random {
			random++
		}
	}
	return fmt.Sprintf("(%d items in a %s-level taxonomy; %s informative views of different quality and %s noise views",
		items, word(len(s.Branching)), word(len(s.Views)-random), word(random))
}

// TestDocALOIComparisonCount: the taxonomy comparisons among each split's
// training images of aloi10_taxonomy_experiment are "about 670,000"
// (aloiTrainPairs, which TestDocNumbersFromConfigs divides the subsamples
// by): within 0.5% of it on every split (670,208 on each, the partition
// being stratified). Needs the ALOI data (scripts/fetch_aloi.sh).
func TestDocALOIComparisonCount(t *testing.T) {
	if _, err := os.Stat(filepath.Join(repoDir, "data", "aloi10")); err != nil {
		t.Skip("data/aloi10 absent: run scripts/fetch_aloi.sh (or with --mirror ../shared/data)")
	}
	c := loadOrSkip(t, filepath.Join(repoDir, "configs", "aloi10_taxonomy_experiment.yaml"))
	ds, err := loadDataset(c)
	if err != nil {
		t.Fatal(err)
	}
	for s := 0; s < c.Protocol.Splits; s++ {
		train, test, source := foldOf(c, ds, cv.Outer(s))
		trainCs, _, err := source.Split(train, test)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("split %d: %d training images, %d comparisons among them", s, len(train), len(trainCs))
		if math.Abs(float64(len(trainCs))/aloiTrainPairs-1) > 0.005 {
			t.Errorf("split %d: %d training comparisons, not about %d", s, len(trainCs), aloiTrainPairs)
		}
	}
}
