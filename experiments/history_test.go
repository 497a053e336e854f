package experiments

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/results"
)

// TestEditedConfigKeepsHistory: rerunning an edited config (an extended β
// grid) into the same run directory moves the previous summary, tables,
// report and resolved config to history/<time>-<old hash>/, says so and
// how many tasks are reused; rerunning the same config archives nothing.
func TestEditedConfigKeepsHistory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	run := func(text string) (*Config, string) {
		t.Helper()
		c := configOf(t, text)
		c.Output = dir
		var log strings.Builder
		if _, err := Run(context.Background(), c, RunOptions{Workers: 2, Log: &log}); err != nil {
			t.Fatal(err)
		}
		return c, log.String()
	}
	first, _ := run(tinyConfig)
	if _, log := run(tinyConfig); strings.Contains(log, "kept in") {
		t.Errorf("the same config again archived its results:\n%s", log)
	}
	if _, err := os.Stat(filepath.Join(dir, "history")); !os.IsNotExist(err) {
		t.Fatalf("history/ after rerunning the same config: %v", err)
	}
	extended, log := run(strings.Replace(tinyConfig, "beta_grid: [1, 10]", "beta_grid: [1, 10, 100]", 1))
	for _, want := range []string{"the previous results (config " + first.Hash() + ") are kept in ", "reusing "} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	kept, _ := filepath.Glob(filepath.Join(dir, "history", "*-"+first.Hash()))
	if len(kept) != 1 {
		t.Fatalf("history: %v, want one folder for config %s", kept, first.Hash())
	}
	for _, f := range []string{"summary.json", "table.md", "table.csv", "config.resolved.yaml", "env.json"} {
		if _, err := os.Stat(filepath.Join(kept[0], f)); err != nil {
			t.Errorf("history lacks %s: %v", f, err)
		}
	}
	var old, cur results.Summary
	if err := json.Unmarshal(readFile(t, filepath.Join(kept[0], "summary.json")), &old); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "summary.json")), &cur); err != nil {
		t.Fatal(err)
	}
	if old.ConfigHash != first.Hash() || cur.ConfigHash != extended.Hash() || len(old.BetaGrid) != 2 || len(cur.BetaGrid) != 3 {
		t.Errorf("kept summary %s (grid %v), current %s (grid %v)", old.ConfigHash, old.BetaGrid, cur.ConfigHash, cur.BetaGrid)
	}
	// The snapshot's tasks are the run directory's: the extended grid
	// replaced its cv tasks, which one warning says, with no rerun advice.
	w := taskFileWarnings(kept[0])
	if len(w) != 1 || !strings.HasPrefix(w[0], "a snapshot kept in "+dir+"'s history/: ") || strings.Contains(w[0], "mkpoe run") {
		t.Errorf("the snapshot's warnings: %q", w)
	}
}
