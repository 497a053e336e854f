package experiments

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mkpoe/mkpoe/internal/testconfigs"
)

// withValue returns the tiny config with the value at path set to value
// (YAML), creating the mappings on the way, and the line the value is on.
func withValue(t *testing.T, path, value string) (string, int) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(testconfigs.Tiny), &doc); err != nil {
		t.Fatal(err)
	}
	var v yaml.Node
	if err := yaml.Unmarshal([]byte(value), &v); err != nil {
		t.Fatal(err)
	}
	n := doc.Content[0]
	steps := pathSteps(path)
	for i, step := range steps {
		last := i == len(steps)-1
		if strings.HasPrefix(step, "[") {
			var k int
			fmt.Sscanf(step, "[%d]", &k)
			if last {
				n.Content[k] = v.Content[0]
			}
			n = n.Content[k]
			continue
		}
		var next *yaml.Node
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == step {
				next = n.Content[j+1]
				if last {
					n.Content[j+1] = v.Content[0]
				}
			}
		}
		if next == nil {
			next = &yaml.Node{Kind: yaml.MappingNode}
			if last {
				next = v.Content[0]
			}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: step}, next)
		}
		n = next
	}
	b, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, value) {
			return string(b), i + 1
		}
	}
	t.Fatalf("%s not in\n%s", value, b)
	return "", 0
}

// wholeNumberKeys are the config's whole-number keys, one path each
// (TestEveryWholeNumberKey checks that none is missing).
var wholeNumberKeys = []string{
	"seed",
	"dataset.per_class",
	"dataset.synthetic.branching[0]",
	"dataset.synthetic.per_class",
	"dataset.synthetic.views[0].dim",
	"dataset.planted.n",
	"dataset.planted.dim",
	"dataset.planted.triplets",
	"protocol.splits",
	"protocol.inner_folds",
	"protocol.max_train_comparisons",
	"protocol.max_test_comparisons",
	"solver.max_iter",
	"solver.kernel_rank",
	"rows[2].rank[1]", // rank: [0, 2.7]; rank: 2.7 is checked too
}

// TestWholeNumberKeysRefuseFractions: every whole-number key refuses a
// fraction (which yaml.v3 would truncate) with its line, column and path,
// and nothing else is reported; whole numbers written as 3.0 or 1e3 are read.
func TestWholeNumberKeysRefuseFractions(t *testing.T) {
	for _, path := range append(wholeNumberKeys, "dataset.taxonomy.levels[1]", "rows[2].rank") {
		t.Run(path, func(t *testing.T) {
			var body string
			var line int
			switch path {
			case "dataset.taxonomy.levels[1]":
				body, line = withValue(t, "dataset.taxonomy", "{cluster: unused_images, levels: [2, 2.7]}")
			case "rows[2].rank[1]":
				body, line = withValue(t, "rows[2].rank", "[0, 2.7]")
			default:
				body, line = withValue(t, path, "2.7")
			}
			_, err := LoadConfig(writeFile(t, t.TempDir(), "c.yaml", body))
			if err == nil {
				t.Fatalf("2.7 accepted:\n%s", body)
			}
			want := fmt.Sprintf(": %s: must be a whole number, got \"2.7\"", path)
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[1], fmt.Sprintf("line %d, column ", line)) || !strings.HasSuffix(lines[1], want) {
				t.Errorf("error\n%v\nwant one problem: line %d, column …%s", err, line, want)
			}
		})
	}
	for _, tc := range []struct {
		path, value string
		got         func(*Config) int64
		want        int64
	}{
		{"protocol.inner_folds", "3.0", func(c *Config) int64 { return int64(c.Protocol.InnerFolds) }, 3},
		{"protocol.max_train_comparisons", "1e3", func(c *Config) int64 { return int64(c.Protocol.MaxTrainComparisons) }, 1000},
		{"seed", "18446744073709551615", func(c *Config) int64 { return int64(c.Seed) }, -1},
	} {
		body, _ := withValue(t, tc.path, tc.value)
		c, err := LoadConfig(writeFile(t, t.TempDir(), "c.yaml", body))
		if err != nil {
			t.Errorf("%s: %s: %v", tc.path, tc.value, err)
			continue
		}
		if got := tc.got(c); got != tc.want {
			t.Errorf("%s: %s read as %d, want %d", tc.path, tc.value, got, tc.want)
		}
	}
	for _, tc := range []struct{ path, value, want string }{
		{"seed", "-1", `seed: must be a whole number from 0 to 18446744073709551615, got "-1"`},
		{"protocol.splits", "1e30", `protocol.splits: must be a whole number from -9223372036854775808 to 9223372036854775807, got "1e30"`},
		{"protocol.splits", ".inf", `protocol.splits: must be a whole number, got ".inf"`},
		{"protocol.splits", "'3'", `protocol.splits: must be a whole number, got "3"`},
	} {
		body, _ := withValue(t, tc.path, tc.value)
		if _, err := LoadConfig(writeFile(t, t.TempDir(), "c.yaml", body)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %s: error %v, want one containing %q", tc.path, tc.value, err, tc.want)
		}
	}
}

// TestEveryWholeNumberKey: wholeNumberKeys names every integer field of
// Config (a new one must be added there, and so tested).
func TestEveryWholeNumberKey(t *testing.T) {
	var found []string
	var walk func(t reflect.Type, path string)
	walk = func(t reflect.Type, path string) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Struct:
			if reflect.PointerTo(t).Implements(unmarshalerType) {
				return // beta_grid: numbers
			}
			for k, ft := range yamlFields(t) {
				walk(ft, joinPath(path, k))
			}
		case reflect.Slice:
			walk(t.Elem(), path+"[*]")
		case reflect.Map:
			walk(t.Elem(), path+".*")
		default:
			if isInteger(t) {
				found = append(found, path)
			}
		}
	}
	walk(reflect.TypeOf(Config{}), "")
	for _, f := range found {
		covered := false
		for _, k := range wholeNumberKeys {
			covered = covered || pathsMeet(pathSteps(f), pathSteps(k)) && len(pathSteps(f)) == len(pathSteps(k))
		}
		if !covered {
			t.Errorf("whole-number key %s is not in wholeNumberKeys", f)
		}
	}
	if len(found) != len(wholeNumberKeys) {
		t.Errorf("%d whole-number keys in Config, %d in wholeNumberKeys", len(found), len(wholeNumberKeys))
	}
}

// TestOneProblemNotItsConsequences: a value that cannot be read is reported
// once, and the rules that would see its absence (a zero value) stay quiet.
func TestOneProblemNotItsConsequences(t *testing.T) {
	for _, tc := range []struct{ path, value, want string }{
		{"beta_grid", "1000", `beta_grid: must be a list of β values such as [0.1, 1, 10], or {relative_to_min: [multiples of β_min]}, got "1000"`},
		{"beta_grid", "[1e2, 1e3, abc]", `beta_grid[2]: must be a number, got "abc"`},
		{"kernels[0].name", "[good]", "kernels[0].name: must be a text value, got a list"},
		{"groups[0].name", "{a: 1}", "groups[0].name: must be a text value, got a mapping"},
		{"rows[2].method", "[k1]", "rows[2].method: must be a text value, got a list"},
		{"rows[2]", "{methd: k1, group: both, mode: diag}", "rows[2].methd: is not a key of rows[2] (did you mean method?)"},
		{"rows[0]", "{method: native, kernal: good}", "rows[0].kernal: is not a key of rows[0] (did you mean kernel?)"},
		{"protocol", "{outer: partition, splits: five, test_fraction: 0.2}", `protocol.splits: must be a whole number, got "five"`},
		{"rows", "7", `rows: must be a list, got "7"`},
	} {
		body, _ := withValue(t, tc.path, tc.value)
		_, err := LoadConfig(writeFile(t, t.TempDir(), "c.yaml", body))
		if err == nil {
			t.Errorf("%s: %s: accepted", tc.path, tc.value)
			continue
		}
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != 2 || !strings.HasSuffix(lines[1], tc.want) {
			t.Errorf("%s: %s: error\n%v\nwant the one problem %q", tc.path, tc.value, err, tc.want)
		}
	}
}

// TestRuleProblemsHaveLines: a rule's problem about a value written in the
// file names the value's line and column too, such as a kernel's integer
// parameter (which kernels.New decides) given a fraction.
func TestRuleProblemsHaveLines(t *testing.T) {
	for _, tc := range []struct{ path, value, want string }{
		{"kernels[0]", "{name: good, source: good, type: noise, params: {dim: 2.5}}", `kernels[0].params: parameter "dim" of kernel type "noise" must be an integer, got 2.5`},
		{"rows[3].mode", "sparse", `rows[3].mode: must be full or diag, got "sparse"`},
		{"protocol.inner_folds", "1", "protocol.inner_folds: must be >= 2, got 1"},
	} {
		body, line := withValue(t, tc.path, tc.value)
		_, err := LoadConfig(writeFile(t, t.TempDir(), "c.yaml", body))
		if err == nil {
			t.Errorf("%s: %s accepted", tc.path, tc.value)
			continue
		}
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[1], fmt.Sprintf("line %d, column ", line)) || !strings.HasSuffix(lines[1], tc.want) {
			t.Errorf("%s: error\n%v\nwant the one problem line %d, column …: %s", tc.path, err, line, tc.want)
		}
	}
}
