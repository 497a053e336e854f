package data

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"
)

// TestReadFramesFile splits frames files by item index, keeping each item's
// frames in file order, and rejects bad indices naming line and column (text)
// or row (.npy).
func TestReadFramesFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("good", func(t *testing.T) {
		// Item 1's frames come first and interleave with item 0's.
		p := write("ok.txt", "# item x y\n1 10 11\n0 1 2\n\n1 12 13\n0 3 4\n0 5 6\n")
		frames, err := ReadFramesFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want := []*mat.Dense{
			mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6}),
			mat.NewDense(2, 2, []float64{10, 11, 12, 13}),
		}
		if len(frames) != len(want) {
			t.Fatalf("%d items, want %d", len(frames), len(want))
		}
		for i := range want {
			if !mat.Equal(frames[i], want[i]) {
				t.Errorf("item %d: frames %v, want %v", i, mat.Formatted(frames[i]), mat.Formatted(want[i]))
			}
		}
	})
	for _, tc := range []struct {
		name, content, want string
	}{
		{"one column", "0\n1\n", "ok.txt: frames file needs an item index column and at least one value column, got 1 column"},
		{"fractional index", "0 1\n# c\n1.5 2\n", ":3:1: item index must be an integer in [0, 1]"},
		{"negative index", "-1 1\n", ":1:1: item index must be an integer in [0, 0]"},
		{"index beyond the rows", "0 1\n7 2\n", ":2:1: item index must be an integer in [0, 1] (0-based; every item up to the largest index needs a frame, and the file has 2 rows), got 7"},
		{"huge index", "0 1\n1e300 2\n", "got 1e+300"},
		{"a gap", "0 1\n2 2\n0 3\n", "every item 0..2 needs frames (item indices are 0-based), got none for item 1"},
		{"ragged", "0 1 2\n1 2\n", ":2: every row must have the same number of values"},
		{"empty", "", "must hold at least one row"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write("ok.txt", tc.content)
			_, err := ReadFramesFile(p)
			if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %s and containing %q", err, p, tc.want)
			}
		})
	}
	t.Run("npy row", func(t *testing.T) {
		p := filepath.Join(dir, "f.npy")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := npyio.Write(f, mat.NewDense(3, 2, []float64{0, 1, 1, 2, 5, 3})); err != nil {
			t.Fatal(err)
		}
		f.Close()
		_, err = ReadFramesFile(p)
		if err == nil || !strings.Contains(err.Error(), p+": item index must be") || !strings.Contains(err.Error(), "got 5 in row 2") {
			t.Errorf("error %v, want one naming %s and row 2", err, p)
		}
	})
}

// FuzzReadFrames: any frames file is split into items or rejected with an
// error naming the file, never a panic; accepted items all have frames of
// one dimension, and their frame count adds up to the file's rows.
func FuzzReadFrames(f *testing.F) {
	for _, s := range []string{"0 1 2\n1 3 4\n0 5 6\n", "1 1\n0 2\n", "0\n", "0 1\n9 1\n", "0 1\n1 NaN\n", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "frames.txt")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		frames, err := ReadFramesFile(p)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		m, err := ReadMatrixFile(p)
		if err != nil {
			t.Fatalf("frames accepted but the matrix is not: %v", err)
		}
		rows, cols := m.Dims()
		total := 0
		for i, fr := range frames {
			r, c := fr.Dims()
			if r == 0 || c != cols-1 {
				t.Fatalf("item %d: %d×%d frames from a file with %d columns", i, r, c, cols)
			}
			total += r
		}
		if total != rows {
			t.Fatalf("%d frames in items, %d rows in the file", total, rows)
		}
	})
}
