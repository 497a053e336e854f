package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// The material appearance similarity set (Lagunas et al., "A Similarity
// Measure for Material Appearance", SIGGRAPH 2019): crowd answers to
// triplet queries over 100 rendered materials, split by the authors into
// a training and a test file (docs/datasets.md). scripts/fetch_material.sh
// places the two files under data/material.
const (
	MaterialDir       = "material"
	MaterialTrainFile = "answers_processed_train.json"
	MaterialTestFile  = "answers_processed_test.json"
	// MaterialItems is the number of materials; an answer's indices are
	// positions in the sorted list of the set's image basenames
	// (data/havran1_ennis_298x298_LDR/*.jpg in the authors' repository).
	MaterialItems = 100
)

// MaterialQuery is one triplet query with its crowd answers: how many
// subjects found A closer to the reference Ref than B, and how many B.
// In the published files A is the majority's choice (CountA ≥ CountB).
type MaterialQuery struct {
	Ref, A, B      int
	CountA, CountB int
}

// MaterialAnswers is one of the set's two JSON files: its "answers"
// ([ref, a, b] per query) read with its "agreement" ([count_a, count_b]).
type MaterialAnswers struct {
	File    string
	Queries []MaterialQuery
}

// Majority returns one triplet per query, the majority's answer: (Ref,A,B)
// when CountA > CountB, (Ref,B,A) when CountB > CountA. Queries whose
// answers are tied carry no order and are dropped; ties counts them. This
// is the reading the authors' own evaluation uses (their files'
// "answers_diff", the queries without a tie).
func (m *MaterialAnswers) Majority() (triplets []Comparison, ties int) {
	for _, q := range m.Queries {
		switch {
		case q.CountA > q.CountB:
			triplets = append(triplets, Triplet(q.Ref, q.A, q.B))
		case q.CountB > q.CountA:
			triplets = append(triplets, Triplet(q.Ref, q.B, q.A))
		default:
			ties++
		}
	}
	return triplets, ties
}

// Responses returns one triplet per subject's answer: CountA copies of
// (Ref,A,B), then CountB copies of (Ref,B,A), query by query. Minority
// answers thus contradict the majority's triplet.
func (m *MaterialAnswers) Responses() []Comparison {
	var out []Comparison
	for _, q := range m.Queries {
		for range q.CountA {
			out = append(out, Triplet(q.Ref, q.A, q.B))
		}
		for range q.CountB {
			out = append(out, Triplet(q.Ref, q.B, q.A))
		}
	}
	return out
}

// Material is the whole set: the authors' training and test answers.
type Material struct {
	N           int
	Train, Test *MaterialAnswers
}

// LoadMaterial reads MaterialTrainFile and MaterialTestFile from dir.
func LoadMaterial(dir string) (*Material, error) {
	m := &Material{N: MaterialItems}
	for _, f := range []struct {
		name string
		dst  **MaterialAnswers
	}{{MaterialTrainFile, &m.Train}, {MaterialTestFile, &m.Test}} {
		a, err := ReadMaterialAnswersFile(filepath.Join(dir, f.name), MaterialItems)
		if err != nil {
			return nil, err
		}
		*f.dst = a
	}
	return m, nil
}

// ReadMaterialAnswersFile reads one answers file of the material set with
// n items (ReadMaterialAnswers).
func ReadMaterialAnswersFile(path string, n int) (*MaterialAnswers, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadMaterialAnswers(f, path, n)
}

// ReadMaterialAnswers reads a JSON object whose "answers" is an array of
// [ref, a, b] queries (integers in [0,n), all three different) and whose
// "agreement" is an array, as long, of [count_a, count_b] (integers ≥ 0,
// at least one answer). Other keys (the files also hold "answers_diff",
// "answers_equal" and their agreements) are ignored. Bad input is a
// *FileError naming the file (name), the JSON path or, for malformed
// JSON, the line and column.
func ReadMaterialAnswers(r io.Reader, name string, n int) (*MaterialAnswers, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, jsonError(name, b, err)
	}
	answers, err := jsonArray(name, "answers", top)
	if err != nil {
		return nil, err
	}
	agreement, err := jsonArray(name, "agreement", top)
	if err != nil {
		return nil, err
	}
	if len(answers) != len(agreement) {
		return nil, &FileError{File: name, Path: "agreement", Rule: fmt.Sprintf("must have one entry per answer (%d)", len(answers)),
			Value: fmt.Sprint(len(agreement), " entries")}
	}
	out := &MaterialAnswers{File: name, Queries: make([]MaterialQuery, len(answers))}
	for i := range answers {
		path := fmt.Sprintf("answers[%d]", i)
		q, err := jsonInts(name, path, answers[i], 3, "[ref, a, b]")
		if err != nil {
			return nil, err
		}
		for k, v := range q {
			if v < 0 || v >= n {
				return nil, &FileError{File: name, Path: fmt.Sprintf("%s[%d]", path, k), Rule: fmt.Sprintf("item index must be in [0,%d)", n), Value: fmt.Sprint(v)}
			}
		}
		if q[0] == q[1] || q[0] == q[2] || q[1] == q[2] {
			return nil, &FileError{File: name, Path: path, Rule: "the reference and the two materials must all differ", Value: fmt.Sprint(q)}
		}
		path = fmt.Sprintf("agreement[%d]", i)
		c, err := jsonInts(name, path, agreement[i], 2, "[count_a, count_b]")
		if err != nil {
			return nil, err
		}
		if c[0] < 0 || c[1] < 0 || c[0]+c[1] == 0 {
			return nil, &FileError{File: name, Path: path, Rule: "answer counts must be ≥ 0 with at least one answer", Value: fmt.Sprint(c)}
		}
		out.Queries[i] = MaterialQuery{Ref: q[0], A: q[1], B: q[2], CountA: c[0], CountB: c[1]}
	}
	return out, nil
}

// jsonArray returns top[key] as an array of raw elements.
func jsonArray(name, key string, top map[string]json.RawMessage) ([]json.RawMessage, error) {
	raw, ok := top[key]
	if !ok {
		return nil, &FileError{File: name, Path: key, Rule: "missing: the file must hold an array \"" + key + "\""}
	}
	var out []json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil || out == nil {
		return nil, &FileError{File: name, Path: key, Rule: "must be an array", Value: clip(string(raw), 40)}
	}
	return out, nil
}

// jsonInts reads raw as an array of exactly k integers (each within ±2⁵³,
// written with or without an exponent, e.g. 12 or 1.2e1).
func jsonInts(name, path string, raw json.RawMessage, k int, shape string) ([]int, error) {
	var fs []float64
	if err := json.Unmarshal(raw, &fs); err != nil || len(fs) != k {
		return nil, &FileError{File: name, Path: path, Rule: fmt.Sprintf("must be an array of %d integers %s", k, shape), Value: clip(string(raw), 40)}
	}
	out := make([]int, k)
	for i, f := range fs {
		if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return nil, &FileError{File: name, Path: fmt.Sprintf("%s[%d]", path, i), Rule: "must be an integer", Value: fmt.Sprint(f)}
		}
		out[i] = int(f)
	}
	return out, nil
}

// jsonError turns a decoding error of the whole file b into a *FileError
// with the line and the byte column (1-based) of the offending byte.
func jsonError(name string, b []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	off := int64(-1)
	rule := "must be a JSON object"
	switch {
	case errors.As(err, &syn):
		off, rule = syn.Offset, "malformed JSON: "+syn.Error()
	case errors.As(err, &typ):
		off = typ.Offset
	}
	fe := &FileError{File: name, Rule: rule}
	if off >= 0 && off <= int64(len(b)) {
		// The decoder reports the offset after the offending byte.
		pos := max(off-1, 0)
		before := b[:pos]
		fe.Line = bytes.Count(before, []byte("\n")) + 1
		fe.Col = int(pos) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	}
	if typ != nil {
		fe.Value = "a JSON " + typ.Value
	}
	return fe
}
