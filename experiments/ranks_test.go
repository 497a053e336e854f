package experiments

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// rankedConfig is a small planted GNMDS experiment (comparisons held out)
// whose one learned row is written ROW.
const rankedConfig = `name: ranked
seed: 2
dataset: {type: planted, planted: {n: 40, dim: 3, triplets: 1500, flip: 0.1}}
kernels:
  - {name: identity, type: identity}
protocol: {holdout: comparisons, splits: 1, test_fraction: 0.2, inner_folds: 2}
beta_grid: {relative_to_min: [1.5, 3]}
rows:
  - ROW
`

// rankedWith is rankedConfig with the rows rows (YAML flow mappings).
func rankedWith(rows ...string) string {
	return strings.Replace(rankedConfig, "ROW", strings.Join(rows, "\n  - "), 1)
}

// TestRanksKey: rank is a whole number or a list of distinct whole
// numbers ≥ 0; a list of one is that number; bad values are reported with
// their line, YAML path, rule and value.
func TestRanksKey(t *testing.T) {
	good := []struct {
		name, rank string
		want       Ranks
		label      string
	}{
		{"absent", "", nil, "identity K1 full"},
		{"zero", "rank: 0", Ranks{0}, "identity K1 full"},
		{"one", "rank: 5", Ranks{5}, "identity K1 full rank 5"},
		{"written 5.0", "rank: 5.0", Ranks{5}, "identity K1 full rank 5"},
		{"a list of one", "rank: [5]", Ranks{5}, "identity K1 full rank 5"},
		{"a list", "rank: [0, 2, 5, 10]", Ranks{0, 2, 5, 10}, "identity K1 full ranks 0,2,5,10"},
		{"any order", "rank: [5, 0, 2]", Ranks{5, 0, 2}, "identity K1 full ranks 5,0,2"},
	}
	for _, tc := range good {
		t.Run(tc.name, func(t *testing.T) {
			row := "{method: k1, kernel: identity, mode: full}"
			if tc.rank != "" {
				row = "{method: k1, kernel: identity, mode: full, " + tc.rank + "}"
			}
			c := configOf(t, rankedWith(row))
			if r := c.Rows[0]; !slices.Equal(r.Rank, tc.want) || r.Label != tc.label {
				t.Errorf("rank %v label %q, want %v %q", r.Rank, r.Label, tc.want, tc.label)
			}
		})
	}
	// Each bad row is the config's second row (line 10).
	bad := []struct{ name, row, want string }{
		{"a repeat", "{method: k1, kernel: identity, mode: full, rank: [0, 2, 2]}",
			"line 10, column 61: rows[1].rank[2]: must not repeat a rank (rows[1].rank[1] is 2 too), got 2"},
		{"negative in a list", "{method: k1, kernel: identity, mode: full, rank: [0, -1]}",
			"line 10, column 58: rows[1].rank[1]: must be >= 1 (an embedding dimension), or 0 for no bound, got -1"},
		{"negative", "{method: k1, kernel: identity, mode: full, rank: -3}",
			"line 10, column 54: rows[1].rank: must be >= 1 (an embedding dimension), or 0 for no bound, got -3"},
		{"a fraction in a list", "{method: k1, kernel: identity, mode: full, rank: [0, 2.5]}",
			`line 10, column 58: rows[1].rank[1]: must be a whole number, got "2.5"`},
		{"a fraction", "{method: k1, kernel: identity, mode: full, rank: 2.5}",
			`line 10, column 54: rows[1].rank: must be a whole number, got "2.5"`},
		{"text", "{method: k1, kernel: identity, mode: full, rank: [0, five]}",
			`line 10, column 58: rows[1].rank[1]: must be a whole number, got "five"`},
		{"an empty list", "{method: k1, kernel: identity, mode: full, rank: []}",
			"line 10, column 54: rows[1].rank: must be " + ranksForms + ", got a list"},
		{"a mapping", "{method: k1, kernel: identity, mode: full, rank: {max: 5}}",
			"line 10, column 54: rows[1].rank: must be " + ranksForms + ", got a mapping"},
		{"a bound on a diagonal W", "{method: k1, kernel: identity, mode: diag, rank: [0, 2]}",
			"line 10, column 58: rows[1].rank[1]: bounds a full W: it needs mode full, got 2 with mode diag"},
		{"a native row", "{method: native, kernel: identity, rank: [0, 2]}",
			"line 10, column 46: rows[1].rank: must be absent for a native row (it bounds a learned W), got [0, 2]"},
		{"too many", "{method: k1, kernel: identity, mode: full, rank: [" + strings.Trim(strings.Repeat("1, ", 21), ", ") + "]}",
			"line 10, column 54: rows[1].rank: must list at most 20 ranks, got 21"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			body := rankedWith("{method: k1, kernel: identity, mode: full, table_row: first, label: first}", tc.row)
			_, err := LoadConfig(writeFile(t, t.TempDir(), "c.yaml", body))
			if err == nil {
				t.Fatalf("accepted:\n%s", body)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != 2 || lines[1] != tc.want {
				t.Errorf("error\n%v\nwant the one problem\n%s", err, tc.want)
			}
		})
	}
}

// TestOneRankKeepsItsIDs: a row of one rank, written as a number or a
// list of one, has the config hash and task IDs mkpoe gave it before rank
// lists existed (the golden values were computed by commit d2bf175 on
// this config, whose default solver then was accelerated), and a row of several ranks shares its cv tasks with the
// rows of one of those ranks.
func TestOneRankKeepsItsIDs(t *testing.T) {
	pinned := func(body string) string {
		return strings.Replace(body, "rows:", "solver: {method: accelerated}\nrows:", 1)
	}
	wantIDs := []string{
		"cv-k1full-dc5f5d98-s00-f00", "cv-k1full-dc5f5d98-s00-f01",
		"cv-k1full-72739f54-s00-f00", "cv-k1full-72739f54-s00-f01",
		"refit-k1full-dc5f5d98-s00", "refit-k1full-72739f54-s00",
	}
	for _, five := range []string{"5", "[5]", "5.0"} {
		c := configOf(t, pinned(rankedWith("{method: k1, kernel: identity, mode: full, rank: 0}",
			"{method: k1, kernel: identity, mode: full, rank: "+five+", table_row: r5}")))
		if h := c.Hash(); h != "f35322078efa4a84" {
			t.Errorf("rank: %s: config hash %s, want f35322078efa4a84", five, h)
		}
		var ids []string
		for _, tk := range Plan(c) {
			ids = append(ids, tk.ID)
			if tk.Rank != nil {
				t.Errorf("rank: %s: task %s has a rank", five, tk.ID)
			}
		}
		if !slices.Equal(ids, wantIDs) {
			t.Errorf("rank: %s: tasks %v, want %v", five, ids, wantIDs)
		}
	}
	c := configOf(t, pinned(rankedWith("{method: k1, kernel: identity, mode: full, rank: [0, 5, 2]}",
		"{method: k1, kernel: identity, mode: full, rank: 5, table_row: r5}")))
	plan := Plan(c)
	var cv []string
	var ranks []int
	for _, tk := range plan {
		if tk.Kind == KindCV {
			cv = append(cv, tk.ID)
			ranks = append(ranks, *tk.Rank)
		}
	}
	// Rank 2's tasks are new; 0's and 5's are those above, listed once.
	if !slices.Equal(cv[:4], wantIDs[:4]) || len(cv) != 6 || !slices.Equal(ranks, []int{0, 0, 5, 5, 2, 2}) {
		t.Errorf("cv tasks %v of ranks %v, want %v then rank 2's", cv, ranks, wantIDs[:4])
	}
	if n := len(plan) - len(cv); n != 2 {
		t.Errorf("%d refits, want 2", n)
	}
	swapped := configOf(t, pinned(rankedWith("{method: k1, kernel: identity, mode: full, rank: [2, 0, 5]}")))
	if c.rowID(c.Rows[0]) != swapped.rowID(swapped.Rows[0]) {
		t.Error("the order a list is written in changed the row's task inputs")
	}
}

// TestRankChoice runs a row that chooses among ranks 0 (convex), 2 and 5
// with β and checks the choice against the per-task inner accuracies: per
// split, the best mean over the folds of any (rank, β), ties to the
// smaller rank (convex last), then the earlier β; the refit's model has at
// most the chosen rank's dimensions; the summary, fits.csv and table.md
// record the rank beside β, and RecheckClaims refits at that rank. With
// one worker the run gives the same numbers; rerun, it reuses every task;
// with rank 5 dropped it reuses the cv tasks of 0 and 2.
func TestRankChoice(t *testing.T) {
	if testing.Short() {
		t.Skip("fits 3 ranks × 2 folds × 2 splits × 2 β: a few seconds")
	}
	text := strings.NewReplacer("splits: 1", "splits: 2", "[1.5, 3]", "[1.5, 3, 10]", "dim: 3", "dim: 2",
		"  - {name: identity, type: identity}", "  - {name: identity, type: identity}\n  - {name: points, source: points, type: linear}").
		Replace(rankedWith("{label: rank CV, method: k1, kernel: identity, mode: full, rank: [0, 2, 5]}", "{method: native, kernel: points}")) +
		"claims:\n  - {claim: the true points beat GNMDS, better: points native, worse: rank CV}\n"
	dir := t.TempDir()
	run := func(text, out string, workers int) (*Config, *results.Summary, string) {
		t.Helper()
		c := configOf(t, text)
		c.Output = out
		var log strings.Builder
		s, err := Run(context.Background(), c, RunOptions{Workers: workers, Log: &log})
		if err != nil {
			t.Fatalf("%v\n%s", err, log.String())
		}
		return c, s, log.String()
	}
	c, s, _ := run(text, filepath.Join(dir, "run"), 2)
	row := s.Rows[0]
	if !slices.Equal(row.Ranks, []int{0, 2, 5}) || len(row.Rank) != 2 {
		t.Fatalf("summary ranks %v, chosen %v", row.Ranks, row.Rank)
	}
	st := newStore(c)
	for sp := range 2 {
		wantRank, wantBeta := handChoice(t, c, st, sp)
		if row.Rank[sp] != wantRank || row.BetaMultiple[sp] != c.BetaGrid.Values[wantBeta] {
			t.Errorf("split %d: chose rank %d at %g·β_min, by hand rank %d at %g·β_min", sp, row.Rank[sp], row.BetaMultiple[sp], wantRank, c.BetaGrid.Values[wantBeta])
		}
		refit, ok := st.load(c.TaskID(KindRefit, 0, sp, -1))
		if !ok || refit.ChosenRank == nil || *refit.ChosenRank != wantRank {
			t.Errorf("split %d: refit file's rank %v, want %d", sp, refit.ChosenRank, wantRank)
		}
		if m := readRunModel(t, c.Output, row.Models[sp]); wantRank > 0 && m.Dim() > wantRank {
			t.Errorf("split %d: refit of %d dimensions at rank %d", sp, m.Dim(), wantRank)
		}
		if !strings.Contains(string(readFile(t, filepath.Join(c.Output, "table.md"))), fmt.Sprintf("%s (%s)", betaText(row, sp, row.Beta[sp]), results.RankText(wantRank))) {
			t.Errorf("table.md lacks split %d's β with its rank", sp)
		}
	}
	checkRankFitsCSV(t, c, s)
	if fits := *row.Fits; fits != 2*(3*2*3+1) {
		t.Errorf("%d fits counted, want 38 (every rank's)", fits)
	}

	// The claim rechecked from the summary alone: the refits at the
	// chosen rank and β give the same outcomes.
	cs, err := RecheckClaims(context.Background(), c, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Interval == nil || s.Claims[0].Interval == nil || cs[0].Interval.Diff != s.Claims[0].Interval.Diff {
		t.Errorf("rechecked claim %+v, the run's %+v", cs, s.Claims)
	}

	// One worker: the same numbers.
	_, s1, _ := run(text, filepath.Join(dir, "one"), 1)
	if a, b := fmt.Sprint(s1.Rows[0].Accuracy, s1.Rows[0].Beta, s1.Rows[0].Rank, s1.Rows[0].ValCurve), fmt.Sprint(row.Accuracy, row.Beta, row.Rank, row.ValCurve); a != b {
		t.Errorf("1 worker: %s\n2 workers: %s", a, b)
	}
	// Rerun: everything reused.
	if _, _, log := run(text, filepath.Join(dir, "run"), 2); !strings.Contains(log, "reusing 16 of 16 tasks") {
		t.Errorf("rerun log:\n%s", log)
	}
	// Rank 5 dropped: the cv tasks of 0 and 2 (and the native tasks)
	// reused, the refits run.
	fewer := strings.Replace(text, "rank: [0, 2, 5]", "rank: [0, 2]", 1)
	if _, _, log := run(fewer, filepath.Join(dir, "run"), 2); !strings.Contains(log, "reusing 10 of 12 tasks") {
		t.Errorf("log with rank 5 dropped:\n%s", log)
	}
	// The grid cut to its start: every rank's cv tasks are cut, not rerun.
	cut := strings.Replace(fewer, "[1.5, 3, 10]", "[1.5, 3]", 1)
	if _, _, log := run(cut, filepath.Join(dir, "run"), 2); !strings.Contains(log, "kept the first 2 fits of 8 cv tasks") {
		t.Errorf("log with the grid cut:\n%s", log)
	}
}

// handChoice chooses split sp's (rank, β index) from the cv task files as
// docs/configs.md says, written out: the highest mean over the inner
// folds, visiting ranks from the smallest bound to the convex fit and β
// in grid order, so that a later pair must be strictly better.
func handChoice(t *testing.T, c *Config, st *store, sp int) (rank, beta int) {
	t.Helper()
	row := c.Rows[0]
	order := slices.Clone([]int(row.Rank))
	slices.SortFunc(order, func(a, b int) int {
		if a == 0 || b == 0 {
			return b - a // 0 last
		}
		return a - b
	})
	best := math.Inf(-1)
	for _, k := range order {
		for b := range c.BetaGrid.Values {
			sum := 0.0
			for f := range c.Protocol.InnerFolds {
				r, ok := st.load(c.rowTaskID(KindCV, row.withRank(k), sp, f))
				if !ok || *r.Rank != k {
					t.Fatalf("split %d fold %d: no cv task of rank %d", sp, f, k)
				}
				sum += r.ValAccuracy[b]
			}
			mean := sum / float64(c.Protocol.InnerFolds)
			t.Logf("split %d, rank %d, β index %d: mean inner accuracy %.4f", sp, k, b, mean)
			if mean > best {
				best, rank, beta = mean, k, b
			}
		}
	}
	t.Logf("split %d: best inner accuracy %.4f at rank %d, β index %d", sp, best, rank, beta)
	return rank, beta
}

// checkRankFitsCSV checks fits.csv's rank column: every cv line names its
// task's rank, a refit line the chosen one, and on each split and fold
// exactly one cv line, of the chosen rank and β, is marked chosen.
func checkRankFitsCSV(t *testing.T, c *Config, s *results.Summary) {
	t.Helper()
	f, err := os.Open(filepath.Join(c.Output, results.FitsCSV))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := recs[0]
	if !slices.Equal(header, results.FitsCSVColumns(s)) || header[12] != "rank" || header[13] != "chosen" {
		t.Fatalf("header %v", header)
	}
	chosen := map[string]int{}
	for _, rec := range recs[1:] {
		sp, _ := strconv.Atoi(rec[4])
		rank, err := strconv.Atoi(rec[12])
		if err != nil {
			t.Fatalf("line %v: rank %q", rec, rec[12])
		}
		switch rec[7] {
		case KindRefit:
			if rank != s.Rows[0].Rank[sp] {
				t.Errorf("refit line %v: rank %d, chose %d", rec, rank, s.Rows[0].Rank[sp])
			}
		case KindCV:
			if rec[13] == "true" {
				chosen[rec[4]+"/"+rec[5]]++
				if rank != s.Rows[0].Rank[sp] || rec[10] != strconv.FormatFloat(s.Rows[0].BetaMultiple[sp], 'g', -1, 64) {
					t.Errorf("line %v marked chosen, split %d chose rank %d at %g", rec, sp, s.Rows[0].Rank[sp], s.Rows[0].BetaMultiple[sp])
				}
			}
		}
	}
	if len(chosen) != 4 {
		t.Errorf("chosen lines per split/fold %v, want one on each of 4", chosen)
	}
	for k, n := range chosen {
		if n != 1 {
			t.Errorf("split/fold %s: %d lines chosen", k, n)
		}
	}
}
