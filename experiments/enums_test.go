package experiments

import (
	"strings"
	"testing"
)

// TestEnumsCaseAside: every enumeration of a config is read case aside and
// stored in its canonical spelling, so that the config hash, the labels and
// the task ids are those of the canonical spelling; a word in no list is
// still refused, as written.
func TestEnumsCaseAside(t *testing.T) {
	load := func(path, value string) (*Config, error) {
		body, _ := withValue(t, path, value)
		return LoadConfig(writeFile(t, t.TempDir(), "c.yaml", body))
	}
	for _, tc := range []struct {
		path, mixed, canonical string
		got                    func(*Config) string
	}{
		{"rows[3].mode", "Diag", "diag", func(c *Config) string { return c.Rows[3].Mode }},
		{"rows[3].mode", "DIAGONAL", "diag", func(c *Config) string { return c.Rows[3].Mode }},
		{"rows[4].mode", "Full", "full", func(c *Config) string { return c.Rows[4].Mode }},
		{"rows[2].method", "K1", "k1", func(c *Config) string { return c.Rows[2].Method }},
		{"rows[0].method", "Native", "native", func(c *Config) string { return c.Rows[0].Method }},
		{"solver.method", "LowRank", "lowrank", func(c *Config) string { return c.Solver.Method }},
		{"protocol.outer", "Random", "random", func(c *Config) string { return c.Protocol.Outer }},
		{"protocol.holdout", "ITEMS", "items", func(c *Config) string { return c.Protocol.Holdout }},
		{"dataset.type", "Synthetic", "synthetic", func(c *Config) string { return c.Dataset.Type }},
		{"kernels[0].type", "Linear", "linear", func(c *Config) string { return c.Kernels[0].Type }},
		{"kernels[1].type", "RBF", "rbf", func(c *Config) string { return c.Kernels[1].Type }},
		{"kernels[0].normalize", "Trace", "trace", func(c *Config) string { return c.Kernels[0].Normalize }},
		{"constraints.train", "[Dedup, Reduce]", "[dedup, reduce]", func(c *Config) string { return strings.Join(c.Constraints.Train, ",") }},
		{"constraints.test", "[ACYCLIC]", "[acyclic]", func(c *Config) string { return strings.Join(c.Constraints.Test, ",") }},
		{"rows[2].train_steps", "[Vote]", "[vote]", func(c *Config) string { return strings.Join(*c.Rows[2].TrainSteps, ",") }},
	} {
		mixed, err := load(tc.path, tc.mixed)
		if err != nil {
			t.Errorf("%s: %s: %v", tc.path, tc.mixed, err)
			continue
		}
		canon, err := load(tc.path, tc.canonical)
		if err != nil {
			t.Fatalf("%s: %s: %v", tc.path, tc.canonical, err)
		}
		if got, want := tc.got(mixed), tc.got(canon); got != want {
			t.Errorf("%s: %s read as %q, want %q", tc.path, tc.mixed, got, want)
		}
		if mixed.Hash() != canon.Hash() {
			t.Errorf("%s: %s: hash %s, want %s (that of %s)", tc.path, tc.mixed, mixed.Hash(), canon.Hash(), tc.canonical)
		}
		for i := range canon.Rows {
			if mixed.Rows[i].Label != canon.Rows[i].Label {
				t.Errorf("%s: %s: rows[%d] label %q, want %q", tc.path, tc.mixed, i, mixed.Rows[i].Label, canon.Rows[i].Label)
			}
		}
		pm, pc := Plan(mixed), Plan(canon)
		for i := range pc {
			if pm[i].ID != pc[i].ID {
				t.Errorf("%s: %s: task %d is %s, want %s", tc.path, tc.mixed, i, pm[i].ID, pc[i].ID)
				break
			}
		}
	}
	for _, tc := range []struct{ path, value, want string }{
		{"rows[3].mode", "Sparse", `rows[3].mode: must be full or diag, got "Sparse"`},
		{"protocol.outer", "Shuffled", `protocol.outer: must be random, partition or given, got "Shuffled"`},
		{"dataset.type", "CSV", `dataset.type: must be synthetic, planted, aset400, aloi10 or generic, got "CSV"`},
	} {
		if _, err := load(tc.path, tc.value); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %s: error %v, want one containing %q", tc.path, tc.value, err, tc.want)
		}
	}
}
