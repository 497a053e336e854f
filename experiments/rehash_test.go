package experiments

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestRehashCommittedResults is a one-off migration, skipped unless
// MKPOE_REHASH_FROM names the clone the committed results were run in
// (e.g. /work/main). It rewrites the config hash of every committed
// results/<config>/ folder (summary.json, provenance.json) and the task
// IDs in its summary's model paths from their form with that clone's
// absolute data paths to the portable one (docs/configs.md, "What the
// config hash and the task digests cover"), after checking that the old
// hash is configs/<config>.yaml's as run in that clone. Nothing else
// changes: it checks that the files, decoded, are equal but for those
// fields.
//
//	MKPOE_REHASH_FROM=/work/main go test ./experiments -run TestRehashCommittedResults
func TestRehashCommittedResults(t *testing.T) {
	from := os.Getenv("MKPOE_REHASH_FROM")
	if from == "" {
		t.Skip("set MKPOE_REHASH_FROM to the clone the committed results were run in")
	}
	here, err := filepath.Abs(repoDir)
	if err != nil {
		t.Fatal(err)
	}
	summaries, _ := filepath.Glob(filepath.Join(repoDir, "results", "*", "summary.json"))
	for _, sp := range summaries {
		dir := filepath.Dir(sp)
		var head struct {
			Name       string `json:"name"`
			ConfigHash string `json:"config_hash"`
		}
		if err := json.Unmarshal(readFile(t, sp), &head); err != nil {
			t.Fatal(err)
		}
		c, err := LoadConfig(filepath.Join(repoDir, "configs", head.Name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if head.ConfigHash == c.Hash() {
			t.Logf("%s: already %s", dir, head.ConfigHash)
			continue
		}
		// The config as it was loaded in the clone at from.
		there := *c
		moved := func(p string) string {
			if rel, err := filepath.Rel(here, p); err == nil && p != "" && !strings.HasPrefix(rel, "..") {
				return filepath.Join(from, rel)
			}
			return p
		}
		there.Dataset = mapDatasetPaths(c.Dataset, moved)
		there.Protocol.TestComparisons = moved(c.Protocol.TestComparisons)
		if there.legacyHash() != head.ConfigHash {
			t.Errorf("%s: config hash %s is not %s's in %s (%s): not migrated", dir, head.ConfigHash, head.Name, from, there.legacyHash())
			continue
		}
		renames := []string{`"config_hash": "` + head.ConfigHash + `"`, `"config_hash": "` + c.Hash() + `"`}
		for _, row := range c.Rows {
			if row.Method != "native" {
				renames = append(renames, `"models/refit-`+rowPrefix(row, there.legacyRowInputs(row))+`-s`, `"models/refit-`+rowPrefix(row, c.rowID(row))+`-s`)
			}
		}
		for _, f := range []string{"summary.json", "provenance.json"} {
			p := filepath.Join(dir, f)
			old := readFile(t, p)
			text := strings.NewReplacer(renames...).Replace(string(old))
			var a, b map[string]any
			if err := json.Unmarshal(old, &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(text), &b); err != nil {
				t.Fatal(err)
			}
			if b["config_hash"] != c.Hash() {
				t.Fatalf("%s: config_hash %v after the rewrite", p, b["config_hash"])
			}
			if f == "summary.json" {
				checkModelPaths(t, c, p, b)
			}
			if !reflect.DeepEqual(withoutIDs(a), withoutIDs(b)) {
				t.Fatalf("%s: the rewrite changed more than the hash and the model paths", p)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%s: %s → %s", dir, head.ConfigHash, c.Hash())
	}
}

// withoutIDs is a decoded summary or provenance without its config hash
// and its rows' model paths, the fields the migration rewrites.
func withoutIDs(v map[string]any) map[string]any {
	delete(v, "config_hash")
	if rows, ok := v["rows"].([]any); ok {
		for _, r := range rows {
			if m, ok := r.(map[string]any); ok {
				delete(m, "models")
			}
		}
	}
	return v
}

// checkModelPaths checks that the model paths of summary s (decoded from
// file p) are the refits' of config c.
func checkModelPaths(t *testing.T, c *Config, p string, s map[string]any) {
	t.Helper()
	rows, _ := s["rows"].([]any)
	for r, row := range rows {
		models, _ := row.(map[string]any)["models"].([]any)
		for sp, m := range models {
			if want := filepath.Join("models", c.rowTaskID(KindRefit, c.Rows[r], sp, -1)+".json"); m != want {
				t.Fatalf("%s: row %d split %d: model %v, want %s", p, r, sp, m, want)
			}
		}
	}
}

// TestCommittedResultsFromCleanTrees: every committed run and cost file
// names the commit it ran from and records a tree with no uncommitted
// change (provenance.json, cost.json `dirty: false`): a result from a
// dirty tree cannot be rebuilt from its commit, so it is rerun from a
// clean one before it is committed (docs/results.md lists such runs,
// "none" today).
func TestCommittedResultsFromCleanTrees(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(repoDir, "results", "*", "provenance.json"))
	costs, _ := filepath.Glob(filepath.Join(repoDir, "results", "*", "cost.json"))
	if len(files) == 0 || len(costs) == 0 {
		t.Fatal("no committed provenance or cost file")
	}
	for _, p := range append(files, costs...) {
		var rec struct {
			Commit string `json:"commit"`
			Dirty  *bool  `json:"dirty"`
		}
		if err := json.Unmarshal(readFile(t, p), &rec); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		switch {
		case len(rec.Commit) < 7:
			t.Errorf("%s: commit %q: want the commit the run was made from", p, rec.Commit)
		case rec.Dirty == nil:
			t.Errorf("%s: dirty not recorded: want false", p)
		case *rec.Dirty:
			t.Errorf("%s: run from a tree with uncommitted changes (commit %s): rerun it from a clean one", p, rec.Commit)
		}
	}
}

// TestCommittedResultsCurrent: every committed results/<config>/ folder
// is of its configs/<config>.yaml as it stands, in this clone: the same
// config hash and the model paths of its refits' task IDs. A rerun
// anywhere then compares with it without a "different configs" warning.
func TestCommittedResultsCurrent(t *testing.T) {
	summaries, _ := filepath.Glob(filepath.Join(repoDir, "results", "*", "summary.json"))
	if len(summaries) == 0 {
		t.Fatal("no committed results")
	}
	for _, sp := range summaries {
		var s map[string]any
		if err := json.Unmarshal(readFile(t, sp), &s); err != nil {
			t.Fatal(err)
		}
		name, _ := s["name"].(string)
		t.Run(filepath.Base(filepath.Dir(sp)), func(t *testing.T) {
			c := loadOrSkip(t, filepath.Join(repoDir, "configs", name+".yaml"))
			if s["config_hash"] != c.Hash() {
				t.Errorf("%s: config hash %v, configs/%s.yaml's is %s", sp, s["config_hash"], name, c.Hash())
			}
			checkModelPaths(t, c, sp, s)
		})
	}
}
