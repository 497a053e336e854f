package experiments

import (
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// BetaGrid is a config's beta_grid: the β values the inner
// cross-validation tries, or, written {relative_to_min: [m₁, m₂, …]},
// multiples of β_min, the largest β at which W = 0 is optimal
// (docs/solver.md, "The smallest useful β"), computed on each training set
// before its fits. A relative grid means the same at every number of items
// and comparisons: at m ≤ 1 every fit would learn W = 0, so its values
// must exceed 1. Chosen by CV is the multiple; the refit learns at that
// multiple of its own training set's β_min.
type BetaGrid struct {
	Values   []float64
	Relative bool
}

// relativeKey is the key of a relative grid's mapping form.
const relativeKey = "relative_to_min"

// UnmarshalYAML reads a list of β values or {relative_to_min: [...]}. Its
// errors are yaml.TypeErrors, so that decoding a config goes on past them
// to the other keys (LoadConfig has reported them with their paths).
func (g *BetaGrid) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.SequenceNode:
		g.Relative = false
		return n.Decode(&g.Values)
	case yaml.MappingNode:
		if len(n.Content) != 2 || n.Content[0].Value != relativeKey {
			keys := ""
			for i := 0; i < len(n.Content); i += 2 {
				keys += fmt.Sprintf(" %q", n.Content[i].Value)
			}
			return typeError("line %d: beta_grid: a mapping must have the one key %s (multiples of β_min), got%s", n.Line, relativeKey, keys)
		}
		g.Relative = true
		return n.Content[1].Decode(&g.Values)
	}
	return typeError("line %d: beta_grid: must be a list of β values or {%s: [multiples of β_min]}", n.Line, relativeKey)
}

// typeError is a yaml.TypeError of one message.
func typeError(format string, a ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf(format, a...)}}
}

// relativeGrid is the shape of a relative grid's mapping.
type relativeGrid struct {
	RelativeToMin []float64 `yaml:"relative_to_min"`
}

// shapeForm tells LoadConfig's shape check (walkShape) the form of n: a
// list of numbers, or the mapping {relative_to_min: [numbers]}.
func (g *BetaGrid) shapeForm(n *yaml.Node) (reflect.Type, string) {
	switch n.Kind {
	case yaml.SequenceNode:
		return reflect.TypeOf([]float64(nil)), ""
	case yaml.MappingNode:
		if len(n.Content) > 0 {
			return reflect.TypeOf(relativeGrid{}), ""
		}
	}
	return nil, fmt.Sprintf("a list of β values such as [0.1, 1, 10], or {%s: [multiples of β_min]}", relativeKey)
}

// MarshalYAML writes the form UnmarshalYAML reads: an absolute grid as a
// plain list, so that the hashes of configs written before relative grids
// existed do not change.
func (g BetaGrid) MarshalYAML() (any, error) {
	if g.Relative {
		return map[string][]float64{relativeKey: g.Values}, nil
	}
	return g.Values, nil
}

// path returns the YAML path of value i, for messages.
func (g BetaGrid) path(i int) string {
	if g.Relative {
		return fmt.Sprintf("beta_grid.%s[%d]", relativeKey, i)
	}
	return fmt.Sprintf("beta_grid[%d]", i)
}
