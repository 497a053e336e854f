package results

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSummaryRoundTripWithNaN(t *testing.T) {
	paper, fits, bad, gap := 0.75, 13, 0, 8e-4
	s := &Summary{Name: "x", ConfigHash: "h", Splits: 2, InnerFolds: 2, BetaGrid: []float64{1, 10}, SolverTol: 1e-3,
		Rows: []Row{{Label: "A K4 diag", Method: "k4", Mode: "diag", TableRow: "A", Kernels: []string{"A", "B"},
			Accuracy: []float64{0.8, math.NaN()}, Mean: math.NaN(), Std: math.NaN(), Beta: []float64{1, 10},
			ValCurve: [][]float64{{0.5, math.NaN()}, {0.25, 0.75}}, Models: []string{"m0", "m1"},
			ValFoldMin: [][]float64{{0.4, math.NaN()}, {0.2, 0.7}}, ValFoldMax: [][]float64{{0.6, math.NaN()}, {0.3, 0.8}},
			TrainComparisons: []int{3, 4}, TestComparisons: []int{1, 0}, Paper: &paper, KernelShare: []float64{0.25, 0.75},
			Fits: &fits, UnconvergedFits: &bad, MaxGap: &gap}}}
	var b bytes.Buffer
	if err := Encode(&b, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"format": "mkpoe-summary/1"`, `"mean": null`, `null`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("encoded summary lacks %s:\n%s", want, b.String())
		}
	}
	back, err := DecodeSummary(b.Bytes(), "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	var b2 bytes.Buffer
	if err := Encode(&b2, back); err != nil {
		t.Fatal(err)
	}
	if b.String() != b2.String() {
		t.Errorf("round trip changed the file:\n%s\nvs\n%s", b.String(), b2.String())
	}
	r := back.Rows[0]
	if !math.IsNaN(r.Mean) || !math.IsNaN(r.Accuracy[1]) || r.Accuracy[0] != 0.8 || !math.IsNaN(r.ValCurve[0][1]) || r.ValCurve[1][1] != 0.75 {
		t.Errorf("decoded row %+v", r)
	}
	if !math.IsNaN(r.ValFoldMin[0][1]) || r.ValFoldMin[1][1] != 0.7 || !math.IsNaN(r.ValFoldMax[0][1]) || r.ValFoldMax[1][0] != 0.3 {
		t.Errorf("decoded band %v – %v", r.ValFoldMin, r.ValFoldMax)
	}
	// A band of the wrong shape is rejected, naming the field.
	back.Rows[0].ValFoldMax = r.ValFoldMax[:1]
	back.Rows[0].ValFoldMin[1] = r.ValFoldMin[1][:1]
	for _, want := range []string{"val_fold_max must have one list per val_curve split (2), got 1", "val_fold_min[1] must have one value per beta_grid entry (2), got 1"} {
		if err := back.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v, want %q", err, want)
		}
	}
}

func TestTaskResultRoundTripWithNaN(t *testing.T) {
	r := &TaskResult{Task: Task{ID: "cv-r00-s00-f00", Kind: KindCV, Fold: 0}, Status: "ok", TestAccuracy: math.NaN(),
		Betas: []float64{1, 10}, ValAccuracy: []float64{math.NaN(), 0.5}, Gaps: []float64{1e-4, math.NaN()}, Converged: []bool{true, false}}
	var b bytes.Buffer
	if err := Encode(&b, r); err != nil {
		t.Fatal(err)
	}
	back, err := DecodeTaskResult(b.Bytes(), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	if back.ID != r.ID || !math.IsNaN(back.TestAccuracy) || !math.IsNaN(back.ValAccuracy[0]) || back.ValAccuracy[1] != 0.5 || !math.IsNaN(back.Gaps[1]) || back.Format != TaskFormat {
		t.Errorf("decoded %+v", back)
	}
}

func TestDecodeRejects(t *testing.T) {
	cases := []struct {
		name, file, json, want string
	}{
		{"unknown summary field", "summary.json", `{"name":"x","rowz":[]}`, `unknown field "rowz"`},
		{"unknown row field", "summary.json", `{"rows":[{"label":"a","acuracy":[1]}]}`, `unknown field "acuracy"`},
		{"foreign format", "summary.json", `{"format":"mkpoe-summary/9"}`, `format "mkpoe-summary/9"`},
		{"task file as summary", "summary.json", `{"format":"mkpoe-task/1"}`, `want "mkpoe-summary/1"`},
		{"accuracy per split", "summary.json", `{"splits":2,"rows":[{"label":"a","accuracy":[0.5]}]}`, "accuracy must have one value per split (2), got 1"},
		{"val_curve per β", "summary.json", `{"splits":1,"beta_grid":[1,10],"rows":[{"label":"a","accuracy":[0.5],"val_curve":[[0.5]]}]}`, "val_curve[0] must have one value per beta_grid entry (2), got 1"},
		{"β > 0", "summary.json", `{"splits":1,"beta_grid":[1,0],"rows":[]}`, "beta_grid[1] must be > 0 and finite, got 0"},
		{"shares per kernel", "summary.json", `{"rows":[{"label":"a","kernels":["A","B"],"kernel_share":[1]}]}`, "kernel_share must have one value per kernel (2), got 1"},
		{"trailing data", "summary.json", `{} {}`, "data after the JSON value"},
		{"truncated", "summary.json", `{"rows":[`, "unexpected EOF"},
		{"unknown task field", "t.json", `{"id":"x","test_acc":1}`, `unknown field "test_acc"`},
		{"task format", "t.json", `{"format":"mkpoe-summary/1"}`, `want "mkpoe-task/1"`},
		{"items out of range", "items.json", `{"names":["a"],"splits":[{"train":[0],"test":[1]}]}`, "splits[0] names item 1, outside 0..0"},
		{"label without a name", "items.json", `{"names":["a","b"],"labels":[0,2],"label_names":["x","y"],"splits":[]}`, "labels[1] is 2, but label_names names labels 0..1 only"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			switch tc.file {
			case "summary.json":
				_, err = DecodeSummary([]byte(tc.json), tc.file)
			case "items.json":
				_, err = DecodeItems([]byte(tc.json), tc.file)
			default:
				_, err = DecodeTaskResult([]byte(tc.json), tc.file)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), tc.file) && !strings.Contains(err.Error(), tc.file) {
				t.Errorf("error %v, want one naming %s and %q", err, tc.file, tc.want)
			}
		})
	}
}

// TestLegacySummary reads a summary.json written before format tags and
// table_row existed.
func TestLegacySummary(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "legacy-summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := DecodeSummary(b, "legacy-summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != SummaryFormat || len(s.Rows) != 7 || s.Rows[0].TableRow != "" || s.Rows[5].Mean != 0.88 {
		t.Errorf("legacy summary read as %+v", s)
	}
}

func TestWriteFileIsAtomicAndReadable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "items.json")
	if err := WriteFile(p, &Items{Names: []string{"a", "b"}, Splits: []Split{{Train: []int{0}, Test: []int{1}}}}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o644 {
		t.Errorf("mode %o, want 644", info.Mode().Perm())
	}
	b, _ := os.ReadFile(p)
	it, err := DecodeItems(b, p)
	if err != nil || it.Names[1] != "b" || it.Format != ItemsFormat {
		t.Errorf("read back %+v, %v", it, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("%d files left in the directory, want 1 (no temporary file)", len(entries))
	}
}

// FuzzDecode feeds arbitrary bytes to every decoder: they may reject the
// input, never panic, and what they accept encodes and decodes back to the
// same file.
// TestChosenRank: a summary row of several ranks reads back its ranks and
// the rank chosen per split, which the tables print beside β; a row
// without them (one rank, or a summary written before rank lists) prints
// β alone.
func TestChosenRank(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		want       []string // WithRank(s, "β") per split
	}{
		{"several ranks", `{"label":"a","method":"k1","kernels":["A"],"accuracy":[0.5,0.6],"mean":0.55,"std":0.07,"beta":[1,10],"ranks":[0,2,5],"rank":[5,0]}`,
			[]string{"β (rank 5)", "β (convex)"}},
		{"one rank", `{"label":"a","method":"k1","kernels":["A"],"accuracy":[0.5,0.6],"mean":0.55,"std":0.07,"beta":[1,10]}`,
			[]string{"β", "β"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r Row
			if err := json.Unmarshal([]byte(tc.json), &r); err != nil {
				t.Fatal(err)
			}
			for s, want := range tc.want {
				if got := r.WithRank(s, "β"); got != want {
					t.Errorf("split %d: %q, want %q", s, got, want)
				}
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if has := bytes.Contains(b, []byte(`"rank":`)); has != (len(r.Rank) > 0) {
				t.Errorf("encoded as %s", b)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"format":"mkpoe-summary/1","splits":2,"beta_grid":[1],"rows":[{"label":"a","method":"k1","kernels":["A"],"accuracy":[0.5,0.6],"mean":0.55,"std":0,"beta":[1,1],"ranks":[0,2],"rank":[2,0]}]}`,
		`{"format":"mkpoe-task/1","id":"cv-r00-s00-f00","kind":"cv","row":0,"split":0,"fold":0,"phase":0,"rank":0,"status":"ok","test_accuracy":null,"val_accuracy":[0.5]}`,
		`{"format":"mkpoe-task/1","id":"refit-r00-s00","kind":"refit","row":0,"split":0,"fold":-1,"phase":1,"status":"ok","test_accuracy":0.5,"beta":1,"chosen_rank":0}`,
		`{"format":"mkpoe-summary/1","splits":1,"beta_grid":[1],"rows":[{"label":"a","method":"k4","kernels":["A","B"],"accuracy":[null],"mean":null,"std":0,"val_curve":[[0.5]],"kernel_share":[0.5,0.5]}]}`,
		`{"format":"mkpoe-task/1","id":"cv-r00-s00-f00","kind":"cv","row":0,"split":0,"fold":0,"phase":0,"status":"ok","test_accuracy":null,"val_accuracy":[0.5,null],"gaps":[1e-4]}`,
		`{"format":"mkpoe-items/1","names":["a","b"],"labels":[1,2],"splits":[{"train":[0],"test":[1]}]}`,
		`{"format":"mkpoe-items/1","names":["a","b"],"labels":[1,0],"label_names":["pop","r&b"],"splits":[{"train":[0],"test":[1]}]}`,
		`{"cv-a-s00-f00": 1.5, "refit-a-s00": {"seconds": 2, "cpu_seconds": 1, "process_cpu_seconds": 1.5}}`,
		`{}`, `null`, `[]`,
	} {
		f.Add([]byte(seed))
	}
	for _, name := range []string{"legacy-summary.json", "tiny-summary.json", "tiny-refit-task.json", "cost.json"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		roundTrip := func(v any, decode func([]byte) (any, error)) {
			var out bytes.Buffer
			if err := Encode(&out, v); err != nil {
				t.Fatalf("accepted input does not encode: %v", err)
			}
			back, err := decode(out.Bytes())
			if err != nil {
				t.Fatalf("encoded file does not decode: %v\n%s", err, out.Bytes())
			}
			var again bytes.Buffer
			if err := Encode(&again, back); err != nil || again.String() != out.String() {
				t.Fatalf("round trip changed the file:\n%s\nvs\n%s", out.Bytes(), again.Bytes())
			}
		}
		if s, err := DecodeSummary(b, "summary.json"); err == nil {
			roundTrip(s, func(b []byte) (any, error) { return DecodeSummary(b, "summary.json") })
		}
		if r, err := DecodeTaskResult(b, "task.json"); err == nil {
			roundTrip(r, func(b []byte) (any, error) { return DecodeTaskResult(b, "task.json") })
		}
		if it, err := DecodeItems(b, "items.json"); err == nil {
			roundTrip(it, func(b []byte) (any, error) { return DecodeItems(b, "items.json") })
		}
		if tm, err := DecodeTimings(b, "timings.json"); err == nil {
			roundTrip(tm, func(b []byte) (any, error) { return DecodeTimings(b, "timings.json") })
		}
		if c, err := DecodeCost(b, "cost.json"); err == nil {
			roundTrip(c, func(b []byte) (any, error) { return DecodeCost(b, "cost.json") })
		}
	})
}
