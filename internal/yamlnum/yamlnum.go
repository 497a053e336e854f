// Package yamlnum decides which YAML scalars are whole numbers, for every
// reader of mkpoe's YAML files (experiment configs, taxonomy files): yaml.v3
// itself truncates 2.7 to 2 when it decodes into an integer, so a whole-number
// key or label checks its node here first.
package yamlnum

import (
	"math"

	"go.yaml.in/yaml/v3"
)

// IsWhole reports whether n is a scalar holding a whole number: an integer
// (3, -2, 0x1F) or a number with no fractional part (3.0, 1e3). A fraction
// (2.7), an infinity, NaN, text or a non-scalar is not.
func IsWhole(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.ScalarNode {
		return false
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return false
	}
	switch x := v.(type) {
	case int, int64, uint64:
		return true
	case float64:
		return x == math.Trunc(x) && !math.IsInf(x, 0)
	}
	return false
}
