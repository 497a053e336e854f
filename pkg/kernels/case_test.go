package kernels

import "testing"

// TestTypesCaseAside: kernel types and normalisations are read case aside.
func TestTypesCaseAside(t *testing.T) {
	for _, typ := range []string{"RBF", "Linear", "chi2", "TFIDF"} {
		if _, _, ok := Describe(typ); !ok {
			t.Errorf("Describe(%q): unknown", typ)
		}
		if _, err := New(typ, nil); err != nil {
			t.Errorf("New(%q): %v", typ, err)
		}
	}
	if k, err := New("Noise", map[string]float64{"dim": 2}); err != nil || k.(Noise).Dim != 2 {
		t.Errorf("New(Noise, dim 2) = %+v, %v", k, err)
	}
	if _, err := New("gaussian", nil); err == nil {
		t.Error(`New("gaussian"): want an error`)
	}
	for _, tc := range []struct {
		in   string
		want Normalization
	}{{"", NormNone}, {"None", NormNone}, {"Diag", NormDiag}, {"TRACE", NormTrace}, {"center", NormCenter}} {
		if got, err := ParseNormalization(tc.in); err != nil || got != tc.want {
			t.Errorf("ParseNormalization(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
