package data

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// materialJSON is a small answers file: three queries over 5 items, the
// second tied, the third with the minority first.
const materialJSON = `{
  "agreement": [[3, 1], [2, 2], [0, 2]],
  "agreement_diff": [[3, 1]],
  "answers": [[0, 1, 2], [3, 4, 0], [4, 2, 1]],
  "answers_diff": [[0, 1, 2]]
}
`

func TestReadMaterialAnswers(t *testing.T) {
	a, err := ReadMaterialAnswers(strings.NewReader(materialJSON), "m.json", 5)
	if err != nil {
		t.Fatal(err)
	}
	wantQ := []MaterialQuery{{0, 1, 2, 3, 1}, {3, 4, 0, 2, 2}, {4, 2, 1, 0, 2}}
	if !reflect.DeepEqual(a.Queries, wantQ) {
		t.Errorf("queries %v, want %v", a.Queries, wantQ)
	}
	maj, ties := a.Majority()
	if want := []Comparison{Triplet(0, 1, 2), Triplet(4, 1, 2)}; !reflect.DeepEqual(maj, want) || ties != 1 {
		t.Errorf("Majority() = %v, %d ties; want %v, 1", maj, ties, want)
	}
	resp := a.Responses()
	want := []Comparison{Triplet(0, 1, 2), Triplet(0, 1, 2), Triplet(0, 1, 2), Triplet(0, 2, 1),
		Triplet(3, 4, 0), Triplet(3, 4, 0), Triplet(3, 0, 4), Triplet(3, 0, 4), Triplet(4, 1, 2), Triplet(4, 1, 2)}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("Responses() = %v, want %v", resp, want)
	}
}

// TestReadMaterialAnswersErrors: each rule's error names the file, the
// JSON path (or line and column) and the value.
func TestReadMaterialAnswersErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`{"answers": [[0,1,2]], "agreement": [[1,0]]`, "m.json:1:43: malformed JSON"},
		{"{\n\"answers\": [[0,1,2]],\n \"agreement\": [[1,0]] x}", "m.json:3:23: malformed JSON"},
		{`[1, 2]`, "m.json:1:1: must be a JSON object, got a JSON array"},
		{`{"agreement": [[1,0]]}`, `m.json: answers: missing: the file must hold an array "answers"`},
		{`{"answers": {"a": 1}, "agreement": []}`, `m.json: answers: must be an array, got {"a": 1}`},
		{`{"answers": [[0,1,2]], "agreement": []}`, "m.json: agreement: must have one entry per answer (1), got 0 entries"},
		{`{"answers": [[0,1]], "agreement": [[1,0]]}`, "m.json: answers[0]: must be an array of 3 integers [ref, a, b], got [0,1]"},
		{`{"answers": [[0,1,"2"]], "agreement": [[1,0]]}`, `m.json: answers[0]: must be an array of 3 integers [ref, a, b], got [0,1,"2"]`},
		{`{"answers": [[0,1,2],[0,1.5,2]], "agreement": [[1,0],[1,0]]}`, "m.json: answers[1][1]: must be an integer, got 1.5"},
		{`{"answers": [[0,1,5]], "agreement": [[1,0]]}`, "m.json: answers[0][2]: item index must be in [0,5), got 5"},
		{`{"answers": [[-1,1,2]], "agreement": [[1,0]]}`, "m.json: answers[0][0]: item index must be in [0,5), got -1"},
		{`{"answers": [[0,1,1]], "agreement": [[1,0]]}`, "m.json: answers[0]: the reference and the two materials must all differ, got [0 1 1]"},
		{`{"answers": [[0,1,2]], "agreement": [[1,0,0]]}`, "m.json: agreement[0]: must be an array of 2 integers [count_a, count_b], got [1,0,0]"},
		{`{"answers": [[0,1,2]], "agreement": [[0,0]]}`, "m.json: agreement[0]: answer counts must be ≥ 0 with at least one answer, got [0 0]"},
		{`{"answers": [[0,1,2]], "agreement": [[3,-1]]}`, "m.json: agreement[0]: answer counts must be ≥ 0 with at least one answer, got [3 -1]"},
	}
	for _, tc := range tests {
		_, err := ReadMaterialAnswers(strings.NewReader(tc.in), "m.json", 5)
		var fe *FileError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want a *FileError containing %q", tc.in, err, tc.want)
		}
	}
}

func TestLoadMaterial(t *testing.T) {
	dir := t.TempDir()
	other := strings.Replace(materialJSON, "[4, 2, 1]", "[99, 2, 1]", 1)
	for name, body := range map[string]string{MaterialTrainFile: materialJSON, MaterialTestFile: other} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := LoadMaterial(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.N != 100 || len(m.Train.Queries) != 3 || m.Test.Queries[2].Ref != 99 || m.Test.File != filepath.Join(dir, MaterialTestFile) {
		t.Errorf("LoadMaterial = N %d, train %v, test %v", m.N, m.Train.Queries, m.Test.Queries)
	}
	os.Remove(filepath.Join(dir, MaterialTestFile))
	if _, err := LoadMaterial(dir); err == nil || !strings.Contains(err.Error(), MaterialTestFile) {
		t.Errorf("without the test file: %v", err)
	}
}

// TestLoadMaterialFetched reads the real set when it has been fetched
// (scripts/fetch_material.sh): 22801 training and 3000 test queries, of
// which 1395 and 262 are tied (the authors' "answers_equal").
func TestLoadMaterialFetched(t *testing.T) {
	dir := filepath.Join("..", "..", "data", MaterialDir)
	if _, err := os.Stat(filepath.Join(dir, MaterialTrainFile)); err != nil {
		t.Skip("material set not fetched (scripts/fetch_material.sh)")
	}
	m, err := LoadMaterial(dir)
	if err != nil {
		t.Fatal(err)
	}
	train, trainTies := m.Train.Majority()
	test, testTies := m.Test.Majority()
	if len(m.Train.Queries) != 22801 || len(train) != 21406 || trainTies != 1395 || len(m.Test.Queries) != 3000 || len(test) != 2738 || testTies != 262 {
		t.Errorf("train %d queries, %d triplets, %d ties; test %d, %d, %d", len(m.Train.Queries), len(train), trainTies, len(m.Test.Queries), len(test), testTies)
	}
	if n := len(m.Train.Responses()); n != 92892 {
		t.Errorf("%d training responses, want 92892 (cblearn's count)", n)
	}
}
