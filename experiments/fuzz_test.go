package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoadConfig: any YAML is loaded or rejected with an error naming the
// file, never a panic; an accepted config plans, hashes and survives the
// round trip through config.resolved.yaml.
func FuzzLoadConfig(f *testing.F) {
	f.Add([]byte(tinyConfig))
	if b, err := os.ReadFile(filepath.Join("..", "configs", "quickstart.yaml")); err == nil {
		f.Add(b)
	}
	if b, err := os.ReadFile(filepath.Join("..", "configs", "aloi10_sensitivity_taxonomy.yaml")); err == nil {
		f.Add(b) // a taxonomy clustered at load time (dataset.taxonomy as a mapping)
	}
	f.Add([]byte("name: x\nrows: [{method: k4}]\n"))
	f.Add([]byte("protocol: {splits: 1000000000}\n"))
	f.Add([]byte(strings.Replace(tinyConfig, "beta_grid: [1, 10]", "beta_grid: {relative_to_min: [1.5, 30]}", 1)))
	if b, err := os.ReadFile(filepath.Join("..", "configs", "scale_planted2000.yaml")); err == nil {
		f.Add(b) // a planted data set, a relative grid, the low-rank solver
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := LoadConfig(p)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if c.Protocol.Splits*c.Protocol.InnerFolds*len(c.Rows) > 1e5 {
			return // a valid but huge plan: not this target's subject
		}
		plan := Plan(c)
		c.Output = dir
		if err := writeRunFiles(c, 0); err != nil {
			t.Fatal(err)
		}
		back, err := LoadConfig(filepath.Join(dir, "config.resolved.yaml"))
		if err != nil {
			t.Fatalf("config.resolved.yaml does not load back: %v", err)
		}
		back.Output = dir
		if back.Hash() != c.Hash() || len(Plan(back)) != len(plan) {
			t.Fatalf("config.resolved.yaml loads back to hash %s (was %s), %d tasks (was %d)", back.Hash(), c.Hash(), len(Plan(back)), len(plan))
		}
	})
}
