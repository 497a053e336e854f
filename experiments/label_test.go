package experiments

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDefaultLabels: a row without a label is named by its kernel or
// group, its method as the tables write it (native, K1, K4) and its mode,
// so that the quickstart's automatic labels read as its written ones.
func TestDefaultLabels(t *testing.T) {
	for _, tc := range []struct {
		config string
		want   []string
	}{
		{"tiny", []string{"good native", "both native", "both K1 diag", "both K4 diag", "both K4 full"}},
		{filepath.Join("..", "configs", "quickstart.yaml"), []string{"clean native", "blurry native", "noise_a native", "sum native",
			"clean K1 diag", "sum K1 diag", "sum K1 full", "MKPOE K4 diag", "MKPOE K4 full"}},
	} {
		var c *Config
		if tc.config == "tiny" {
			c = loadTiny(t, t.TempDir())
		} else {
			var err error
			if c, err = LoadConfig(tc.config); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		for _, r := range c.Rows {
			got = append(got, r.Label)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: labels %q, want %q", tc.config, got, tc.want)
		}
	}
}
