package data

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadComparisons: any bytes are read as comparisons or rejected with an
// error naming the file, never a panic; what is accepted lies in range,
// and writing it back in its own format reads back the same comparisons.
func FuzzReadComparisons(f *testing.F) {
	for _, s := range []string{"0 1 2\n1 2 0\n", "# i j k l\n0 1 2 3\n", "1\t2\t3\n", "0 1 2\n0 1 9\n", "0 1 1 0\n", ""} {
		f.Add([]byte(s), false, 5)
	}
	f.Add([]byte("1 2 3\n"), true, 3)
	f.Fuzz(func(t *testing.T, b []byte, oneBased bool, n int) {
		if n < 0 || n > 1000 {
			return
		}
		cf, err := ReadComparisons(bytes.NewReader(b), "c.txt", ComparisonOptions{OneBased: oneBased, N: n})
		if err != nil {
			if !strings.Contains(err.Error(), "c.txt") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if n > 0 {
			if err := ValidateComparisons(cf.Comparisons, n); err != nil {
				t.Fatalf("accepted comparisons out of range: %v", err)
			}
		}
		var out bytes.Buffer
		if err := WriteComparisons(&out, cf.Comparisons, cf.Format); err != nil {
			t.Fatal(err)
		}
		back, err := ReadComparisons(&out, "back.txt", ComparisonOptions{OneBased: oneBased, N: n})
		if err != nil || len(back.Comparisons) != len(cf.Comparisons) {
			t.Fatalf("written comparisons do not read back: %v", err)
		}
		for i := range back.Comparisons {
			if back.Comparisons[i] != cf.Comparisons[i] {
				t.Fatalf("comparison %d: %v read back as %v", i, cf.Comparisons[i], back.Comparisons[i])
			}
		}
	})
}

// FuzzReadItemsFile: any items file is read or rejected with an error
// naming the file, never a panic; accepted ids are unique and non-empty.
func FuzzReadItemsFile(f *testing.F) {
	for _, s := range []string{"id\tname\na\tAlice\nb\tBob\n", "a\nb\n", "a\na\n", "\tx\n", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "items.tsv")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ids, names, err := ReadItemsFile(p)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		seen := map[string]bool{}
		for i, id := range ids {
			if id == "" || seen[id] || names[i] == "" {
				t.Fatalf("accepted item %d: id %q name %q (duplicate: %v)", i, id, names[i], seen[id])
			}
			seen[id] = true
		}
	})
}
