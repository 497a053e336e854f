package mkpoe

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/pkg/data"
	"gonum.org/v1/gonum/mat"
)

// smallModelJSON is the file of a K4 model on two 4-item kernels.
func smallModelJSON(t testing.TB) []byte {
	k := mat.NewSymDense(4, []float64{1, 0.5, 0, 0, 0.5, 1, 0.2, 0, 0, 0.2, 1, 0.3, 0, 0, 0.3, 1})
	cs := []data.Comparison{data.Triplet(0, 1, 3), data.Triplet(2, 3, 0), data.Triplet(1, 0, 2)}
	m, err := Fit([]mat.Symmetric{k, k}, cs, &Settings{Beta: 10, Mode: Diag})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReadJSONShapes: a model file whose matrices do not fit together is an
// error naming the file and the matrix, not a model that embeds garbage.
func TestReadJSONShapes(t *testing.T) {
	t.Parallel()
	good := smallModelJSON(t)
	if _, err := ReadJSON(bytes.NewReader(good), "m.json"); err != nil {
		t.Fatal(err)
	}
	edit := func(f func(j map[string]any)) []byte {
		var j map[string]any
		if err := json.Unmarshal(good, &j); err != nil {
			t.Fatal(err)
		}
		f(j)
		b, _ := json.Marshal(j)
		return b
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"one W for two kernels", edit(func(j map[string]any) {
			j["W"] = j["W"].([]any)[:1]
			j["projection"] = j["projection"].([]any)[:1]
		}), "has 2 W, got 1"},
		{"W of the wrong size", edit(func(j map[string]any) { j["n"] = 5.0 }), "W[0] must be 5×5 (n = 5), got 4×4"},
		{"non-square W", edit(func(j map[string]any) {
			w := j["W"].([]any)[1].([]any)
			j["W"].([]any)[1] = w[:3]
		}), "W[1] must be square, got 3×4"},
		{"projection columns", edit(func(j map[string]any) {
			p := j["projection"].([]any)[0].([]any)
			for i, row := range p {
				p[i] = row.([]any)[:3]
			}
		}), "projection[0] must have 4 columns"},
		{"embedding width", edit(func(j map[string]any) {
			tr := j["train_embedding"].([]any)
			for i, row := range tr {
				tr[i] = append(row.([]any), 0.0)
			}
		}), "train_embedding must be 4×"},
		{"no inputs", edit(func(j map[string]any) { j["num_inputs"] = 0.0 }), "num_inputs must be > 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadJSON(bytes.NewReader(tc.b), "m.json")
			if err == nil || !strings.Contains(err.Error(), "m.json") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadJSON = %v, want an error naming m.json and %q", err, tc.want)
			}
		})
	}
}

// FuzzReadJSON: any bytes are read as a model or rejected without a panic,
// and an accepted model, dense or factored (no "W"), forms its metrics and
// embeds new items of the right shape.
func FuzzReadJSON(f *testing.F) {
	f.Add(smallModelJSON(f))
	f.Add(factoredModelJSON(f))
	f.Add([]byte(`{"format":"mkpoe-model/1"}`))
	// Hand-made factored files: kernels (one block, k = 1), features (D = 3).
	f.Add([]byte(`{"format":"mkpoe-model/1","input":"kernels","mode":"full","combine":"separate","n":2,"num_inputs":1,` +
		`"projection":[[[1,2]]],"train_embedding":[[1],[2]]}`))
	f.Add([]byte(`{"format":"mkpoe-model/1","input":"features","mode":"full","combine":"separate","n":2,"num_inputs":1,` +
		`"projection":[[[1,0,2],[0,1,0]]],"train_embedding":[[1,0],[2,1]]}`))
	f.Add([]byte(`{"format":"mkpoe-model/1","input":"identity","mode":"full","combine":"separate","n":3,"num_inputs":1,` +
		`"projection":[[[1,0,-1]]],"train_embedding":[[1],[0],[-1]]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ReadJSON(bytes.NewReader(b), "f.json")
		if err != nil {
			return
		}
		if m.Factored() == (m.W != nil) {
			t.Fatalf("Factored %v with %d W", m.Factored(), len(m.W))
		}
		for blk := 0; blk < m.Blocks(); blk++ {
			if d := m.MetricDim(blk); d <= 64 && m.Metric(blk).SymmetricDim() != d {
				t.Fatalf("block %d: metric of order %d, MetricDim %d", blk, m.Metric(blk).SymmetricDim(), d)
			}
		}
		if m.Input == InputIdentity {
			return
		}
		cols := m.N
		if m.Input == InputFeatures {
			cols = m.MetricDim(0)
		}
		rows := make([]*mat.Dense, m.NumInputs)
		for i := range rows {
			rows[i] = mat.NewDense(1, cols, nil)
		}
		if _, err := m.EmbedWithTraining(rows); err != nil {
			t.Fatalf("an accepted model cannot embed: %v", err)
		}
	})
}
