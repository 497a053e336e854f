package experiments

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mkpoe/mkpoe/internal/yamlnum"
)

// shapeProblems walks a config's YAML document against the Go type it
// decodes into and reports, all at once, every key that names no field
// (with the nearest known key) and every value of the wrong kind, each with
// its line, column and YAML path, in words rather than Go types. LoadConfig
// runs it before decoding, so that a misspelt key does not hide the file's
// other problems. paths receives the YAML path of every value reported (and,
// for a misspelt key, of the key it was meant to be), so that the validation
// rules report neither the same value again nor what follows from its
// absence. Each value reported is set to null in doc, so that decoding doc
// reads every other value.
func shapeProblems(doc *yaml.Node, t reflect.Type, ps *problems, paths map[string]bool) {
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return
		}
		doc = doc.Content[0]
	}
	if doc.Kind != yaml.MappingNode {
		paths[""] = true
		*ps = append(*ps, fmt.Errorf("line %d: the file is %s, not an experiment config: a config is a mapping of keys (name, dataset, kernels, protocol, beta_grid, rows, ...; docs/configs.md)", doc.Line, describeNode(doc)))
		return
	}
	walkShape(doc, t, "", ps, paths)
}

var unmarshalerType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()

func walkShape(n *yaml.Node, t reflect.Type, path string, ps *problems, paths map[string]bool) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // absent: the field keeps its zero value (validation decides)
	}
	bad := func(rule string) { reportNode(n, path, rule, ps, paths) }
	if f, ok := reflect.New(t).Interface().(formed); ok {
		ft, forms := f.shapeForm(n)
		if ft == nil {
			bad("must be " + forms)
			return
		}
		before := len(*ps)
		walkShape(n, ft, path, ps, paths)
		if len(*ps) > before {
			paths[path] = true // one form, partly read, is no value at all
		}
		return
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		// Any other type that reads itself.
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			paths[path] = true
			*ps = append(*ps, fmt.Errorf("line %d, column %d: %s: %w", n.Line, n.Column, path, err))
			*n = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			bad("must be a mapping (key: value pairs)")
			return
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			at := joinPath(path, key.Value)
			ft, ok := fields[key.Value]
			if !ok {
				paths[at] = true
				hint, meant := suggestKey(key.Value, fields)
				if meant != "" {
					paths[joinPath(path, meant)] = true // absent as spelt: its rules would only say so
				}
				*ps = append(*ps, fmt.Errorf("line %d, column %d: %s: is not a key of %s%s", key.Line, key.Column, at, sectionName(path), hint))
				continue
			}
			walkShape(val, ft, at, ps, paths)
		}
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			bad("must be a list")
			return
		}
		for i, el := range n.Content {
			walkShape(el, t.Elem(), fmt.Sprintf("%s[%d]", path, i), ps, paths)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			bad("must be a mapping (key: value pairs)")
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			walkShape(n.Content[i+1], t.Elem(), joinPath(path, n.Content[i].Value), ps, paths)
		}
	case reflect.Interface:
		// Any value, unless its path has a shape of its own.
		anyShape(n, path, ps, paths)
	default:
		if n.Kind != yaml.ScalarNode {
			bad("must be " + scalarWords(t))
			return
		}
		// yaml.v3 would truncate a fraction into an integer: a whole-number
		// key refuses it here, the one place every such key of a config
		// passes (yamlnum decides what is whole).
		if isInteger(t) && !yamlnum.IsWhole(n) {
			bad("must be " + scalarWords(t))
			return
		}
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			bad("must be " + scalarWords(t) + rangeWords(t))
		}
	}
}

// reportNode reports the value n at path ("line L, column C: path: rule,
// got value") and sets it to null, so that decoding the document reads
// every other value.
func reportNode(n *yaml.Node, path, rule string, ps *problems, paths map[string]bool) {
	paths[path] = true
	*ps = append(*ps, fmt.Errorf("line %d, column %d: %s: %s, got %s", n.Line, n.Column, path, rule, describeNode(n)))
	*n = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: n.Line, Column: n.Column}
}

// positions maps the YAML path of every node of a document to its line
// and column.
type positions map[string][2]int

// nodePositions records where each value of doc is.
func nodePositions(doc *yaml.Node) positions {
	at := positions{}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		at[path] = [2]int{n.Line, n.Column}
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], joinPath(path, n.Content[i].Value))
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	walk(doc, "")
	return at
}

// locate prefixes each problem "path: rule" whose path is in the document
// with that value's "line L, column C: ", as the shape problems are.
func (at positions) locate(ps problems) problems {
	out := make(problems, len(ps))
	for i, p := range ps {
		out[i] = p
		path, _, ok := strings.Cut(p.Error(), ": ")
		if pos, found := at[path]; ok && found && path != "" {
			out[i] = fmt.Errorf("line %d, column %d: %w", pos[0], pos[1], p)
		}
	}
	return out
}

// formed is a type whose YAML value has several forms (BetaGrid):
// shapeForm returns the Go type that n's form decodes as, checked in its
// place, or nil and the forms in words when n has none of them.
type formed interface {
	shapeForm(n *yaml.Node) (t reflect.Type, forms string)
}

// anyShape checks the value at path of one of the config's fields of type
// any that has a shape of its own; it reports as walkShape does.
func anyShape(n *yaml.Node, path string, ps *problems, paths map[string]bool) {
	if path == "dataset.taxonomy" {
		taxonomyShape(n, path, ps, paths)
	}
}

// taxonomyShape checks dataset.taxonomy: a file name, a nested list of
// class labels (whole numbers), or the mapping of a clustered taxonomy
// (taxonomySpec).
func taxonomyShape(n *yaml.Node, path string, ps *problems, paths map[string]bool) {
	switch {
	case n.Kind == yaml.MappingNode:
		walkShape(n, reflect.TypeOf(taxonomySpecYAML{}), path, ps, paths)
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		// A taxonomy file.
	default:
		labelsShape(n, path, ps, paths)
	}
}

// labelsShape checks a nested list of class labels.
func labelsShape(n *yaml.Node, path string, ps *problems, paths map[string]bool) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch {
	case n.Kind == yaml.SequenceNode:
		for i, el := range n.Content {
			labelsShape(el, fmt.Sprintf("%s[%d]", path, i), ps, paths)
		}
	case !yamlnum.IsWhole(n):
		reportNode(n, path, "must be a class label (a whole number) or a list of subtrees", ps, paths)
	}
}

// taxonomySpecYAML is the shape of a clustered taxonomy's mapping
// (parseTaxonomySpec reads it).
type taxonomySpecYAML struct {
	Cluster string   `yaml:"cluster"`
	Levels  []int    `yaml:"levels"`
	Views   []string `yaml:"views"`
}

// isInteger reports whether t is a Go integer type.
func isInteger(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// yamlFields maps the YAML keys of struct type t to their field types, as
// yaml.v3 names them: the tag's name, else the lower-cased field name;
// inline fields contribute theirs.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			for k, v := range yamlFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// sectionName names the mapping a key belongs to, for messages.
func sectionName(path string) string {
	if path == "" {
		return "the config"
	}
	return path
}

// suggestKey is " (did you mean X?)" for the known key X nearest to key,
// and X; or the list of known keys when none is near, and "".
func suggestKey(key string, fields map[string]reflect.Type) (hint, meant string) {
	var names []string
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	best, bestD := "", len(key)+1
	for _, k := range names {
		if d := editDistance(strings.ToLower(key), k); d < bestD {
			best, bestD = k, d
		}
	}
	if bestD <= max(2, len(key)/3) {
		return fmt.Sprintf(" (did you mean %s?)", best), best
	}
	return fmt.Sprintf(" (its keys: %s)", strings.Join(names, ", ")), ""
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// scalarWords says in words what a scalar of Go type t must be.
func scalarWords(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a text value"
	}
	return "a single value"
}

// describeNode says what a YAML node is, quoting short scalars.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		v := n.Value
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		return fmt.Sprintf("%q", v)
	}
	return "an empty document"
}

// rangeWords is " from MIN to MAX" for an integer type t, else "".
func rangeWords(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		most := int64(math.MaxInt64 >> (64 - t.Bits()))
		return fmt.Sprintf(" from %d to %d", -most-1, most)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprintf(" from 0 to %d", uint64(math.MaxUint64>>(64-t.Bits())))
	}
	return ""
}
