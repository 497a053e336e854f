package yamlnum

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestIsWhole(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		want bool
	}{
		{"3", true},
		{"-2", true},
		{"0x1F", true},
		{"18446744073709551615", true}, // a uint64 seed
		{"3.0", true},
		{"1e3", true},
		{"2.7", false},
		{"15.9", false},
		{"1e-3", false},
		{".inf", false},
		{".nan", false},
		{"abc", false},
		{"'3'", false}, // quoted: text
		{"[3]", false},
		{"{a: 3}", false},
		{"~", false},
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(tc.yaml), &doc); err != nil {
			t.Fatalf("%s: %v", tc.yaml, err)
		}
		var n *yaml.Node
		if len(doc.Content) > 0 {
			n = doc.Content[0]
		}
		if got := IsWhole(n); got != tc.want {
			t.Errorf("IsWhole(%s) = %v, want %v", tc.yaml, got, tc.want)
		}
	}
}
