package experiments

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mkpoe/mkpoe/internal/yamlnum"
	"github.com/mkpoe/mkpoe/pkg/data"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"github.com/mkpoe/mkpoe/pkg/results"
)

// NotConfigError is LoadConfig's error for a file that mkpoe writes or
// reads but that is not an experiment config (a run's summary, a task
// file, a model, a taxonomy, ...): it says what the file is and which
// command reads it, in place of a line per key that a config lacks.
type NotConfigError struct {
	Path string
	// What the file is, e.g. "a run's summary (format mkpoe-summary/1)".
	What string
	// ReadBy names the commands that read it.
	ReadBy string
	// read reads the file's bytes with the reader of its kind and says in
	// a few words what it holds.
	read func(b []byte, name string) (string, error)
	b    []byte
}

func (e *NotConfigError) Error() string {
	return fmt.Sprintf("config %s: the file is %s, not an experiment config: %s", e.Path, e.What, e.ReadBy)
}

// Read checks the file with the reader of its kind (what "mkpoe check"
// does with it) and says in a few words what it holds.
func (e *NotConfigError) Read() (string, error) { return e.read(e.b, filepath.Base(e.Path)) }

// identifyFile recognises, from its top-level shape, a file of mkpoe's that
// is not a config; nil if it is none of them.
func identifyFile(doc *yaml.Node, path string, b []byte) *NotConfigError {
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		doc = doc.Content[0]
	}
	dir := filepath.Dir(path)
	e := &NotConfigError{Path: path, b: b}
	keys, format := topLevel(doc)
	has := func(names ...string) bool {
		for _, k := range names {
			if keys[k] == nil {
				return false
			}
		}
		return true
	}
	switch {
	case format == results.SummaryFormat:
		e.What = "a run's summary (summary.json)"
		e.ReadBy = fmt.Sprintf("mkpoe report, compare and status read it through its run directory (mkpoe report %s)", dir)
		e.read = func(b []byte, name string) (string, error) {
			s, err := results.DecodeSummary(b, name)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("experiment %s, %d rows, %d splits, config hash %s", s.Name, len(s.Rows), s.Splits, s.ConfigHash), nil
		}
	case format == results.TaskFormat:
		e.What = "the result of one task of a run (tasks/ID.json)"
		e.ReadBy = fmt.Sprintf("mkpoe run reuses it, mkpoe status and merge read it through its run directory (mkpoe status %s)", filepath.Dir(dir))
		e.read = func(b []byte, name string) (string, error) {
			r, err := results.DecodeTaskResult(b, name)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("task %s (%s), status %s", r.ID, r.Kind, r.Status), nil
		}
	case format == results.ItemsFormat:
		e.What = "a run's items and splits (items.json)"
		e.ReadBy = fmt.Sprintf("mkpoe report and query --run read it through its run directory (mkpoe query --run %s --item NAME)", dir)
		e.read = func(b []byte, name string) (string, error) {
			it, err := results.DecodeItems(b, name)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%d items, %d splits", len(it.Names), len(it.Splits)), nil
		}
	case format == mkpoe.ModelFormat:
		e.What = "a learned model (" + format + ")"
		e.ReadBy = fmt.Sprintf("mkpoe eval, embed and query read it (mkpoe query --model %s --item NAME)", path)
		e.read = func(b []byte, name string) (string, error) {
			m, err := mkpoe.ReadJSON(bytes.NewReader(b), name)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s W (%s, %s) over %d training items, β = %g", m.Mode, m.Combine, m.Input, m.N, m.Beta), nil
		}
	case strings.HasPrefix(format, "mkpoe-"):
		e.What = "a file of mkpoe (format " + format + ")"
		e.ReadBy = "docs/ names the command that reads each format"
		e.read = func([]byte, string) (string, error) {
			return "", fmt.Errorf("mkpoe check reads configs; no reader of %s here", format)
		}
	case len(keys) == 1 && keys["taxonomy"] != nil, doc.Kind == yaml.SequenceNode && wholeLeaves(doc):
		e.What = "a taxonomy (nested lists of class labels)"
		e.ReadBy = "a config names it as dataset.taxonomy: FILE (aloi10, synthetic), and mkpoe check and run read it through that config"
		e.read = func(b []byte, name string) (string, error) {
			t, err := data.ParseTaxonomy(string(b))
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%d classes: %s", len(t.Labels()), t), nil
		}
	case has("config_hash", "commit", "linalg_backend"):
		e.What = "a run's provenance record (" + results.ProvenanceFile + ")"
		e.ReadBy = fmt.Sprintf("mkpoe compare, report and resultsdoc read it through its run directory (mkpoe report %s)", dir)
		e.read = readProvenanceFile
	case has("goos", "goarch"):
		e.What = "a run's environment record (env.json)"
		e.ReadBy = fmt.Sprintf("mkpoe merge and report read it through its run directory (mkpoe report %s)", dir)
		e.read = func(b []byte, name string) (string, error) {
			var env map[string]any
			if err := json.Unmarshal(b, &env); err != nil {
				return "", fmt.Errorf("parsing %s: %w", name, err)
			}
			return fmt.Sprintf("%d fields", len(env)), nil
		}
	case len(keys) > 0 && timingsShape(doc):
		e.What = "a run's task times (timings.json: task → seconds)"
		e.ReadBy = fmt.Sprintf("mkpoe report reads it through its run directory (mkpoe report %s)", dir)
		e.read = readTimingsFile
	default:
		return nil
	}
	return e
}

// topLevel returns the top-level keys of a YAML or JSON mapping (none for
// another node) and the file format they declare ("format"), or, for files
// written before the format tags existed, the one their keys imply.
func topLevel(doc *yaml.Node) (map[string]*yaml.Node, string) {
	keys := map[string]*yaml.Node{}
	if doc.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(doc.Content); i += 2 {
			keys[doc.Content[i].Value] = doc.Content[i+1]
		}
	}
	has := func(names ...string) bool {
		for _, k := range names {
			if keys[k] == nil {
				return false
			}
		}
		return true
	}
	switch f := keys["format"]; {
	case f != nil && f.Kind == yaml.ScalarNode:
		return keys, f.Value
	case has("config_hash", "rows", "splits"):
		return keys, results.SummaryFormat
	case has("id", "kind", "status"):
		return keys, results.TaskFormat
	case has("names", "splits"):
		return keys, results.ItemsFormat
	}
	return keys, ""
}

// readProvenanceFile reads a provenance.json and says what it records.
func readProvenanceFile(b []byte, name string) (string, error) {
	var p results.Provenance
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return "", fmt.Errorf("parsing %s: %w", name, err)
	}
	return fmt.Sprintf("experiment %s, config hash %s, backend %s, %s", p.Config, p.ConfigHash, p.LinalgBackend, p.Finished), nil
}

// readTimingsFile reads a timings.json (task → seconds, or task → times
// with CPU time; results.DecodeTimings) and sums it.
func readTimingsFile(b []byte, name string) (string, error) {
	tm, err := results.DecodeTimings(b, name)
	if err != nil {
		return "", err
	}
	sum, cpu, withCPU := 0.0, 0.0, 0
	for _, t := range tm {
		sum += t.Seconds
		if t.CPUSeconds != nil {
			cpu += *t.CPUSeconds
			withCPU++
		}
	}
	out := fmt.Sprintf("%d tasks, %.1f s in all", len(tm), sum)
	if withCPU > 0 {
		out += fmt.Sprintf("; thread CPU time of %d of them %.1f s", withCPU, cpu)
	}
	return out, nil
}

// wholeLeaves reports whether every scalar under the list n is a whole
// number (a taxonomy's labels).
func wholeLeaves(n *yaml.Node) bool {
	for _, c := range n.Content {
		if c.Kind == yaml.SequenceNode {
			if !wholeLeaves(c) {
				return false
			}
		} else if !yamlnum.IsWhole(c) {
			return false
		}
	}
	return true
}

// timingsShape reports whether the mapping n maps task ids (native-…,
// cv-…, refit-…) to numbers or to mappings with "seconds", as
// timings.json does (older files: numbers).
func timingsShape(n *yaml.Node) bool {
	number := func(v *yaml.Node) bool {
		return v.Kind == yaml.ScalarNode && (v.Tag == "!!int" || v.Tag == "!!float")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		id := strings.HasPrefix(k, KindNative+"-") || strings.HasPrefix(k, KindCV+"-") || strings.HasPrefix(k, KindRefit+"-")
		if !id {
			return false
		}
		if v.Kind == yaml.MappingNode {
			keys, _ := topLevel(v)
			if keys["seconds"] == nil || !number(keys["seconds"]) {
				return false
			}
		} else if !number(v) {
			return false
		}
	}
	return true
}
