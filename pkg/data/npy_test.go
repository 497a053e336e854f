package data

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"
)

// npyBytes is a 2×3 float64 .npy file.
func npyBytes(t testing.TB) []byte {
	var b bytes.Buffer
	if err := npyio.Write(&b, mat.NewDense(2, 3, []float64{0, 1, 2, 3, 4, 5})); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReadNPYMalformed: damaged .npy files are errors naming the file, the
// rule and what was found; none panics, none is read as garbage.
func TestReadNPYMalformed(t *testing.T) {
	ok := npyBytes(t)
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"truncated header", ok[:20], "must be a valid NumPy .npy file"},
		{"only the magic", ok[:6], "must be a valid NumPy .npy file"},
		{"data cut short", ok[:len(ok)-8], "NumPy array data must hold shape [2 3] of 8-byte values, got 40 bytes of data"},
		{"data too long", append(append([]byte(nil), ok...), make([]byte, 8)...), "got 56 bytes of data"},
		{"no data", ok[:len(ok)-48], "got 0 bytes of data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := readNPY(bytes.NewReader(tc.b), "x.npy")
			if err == nil || !strings.Contains(err.Error(), "x.npy") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("readNPY = %v, %v; want an error naming x.npy and %q", m, err, tc.want)
			}
		})
	}
	m, err := readNPY(bytes.NewReader(ok), "ok.npy")
	if err != nil || !mat.Equal(m, mat.NewDense(2, 3, []float64{0, 1, 2, 3, 4, 5})) {
		t.Errorf("a good file: %v, %v", m, err)
	}
}

// FuzzReadMatrix feeds arbitrary bytes to the .npy and the text matrix
// readers: each returns a finite non-empty matrix or an error naming the
// file, and never panics.
func FuzzReadMatrix(f *testing.F) {
	f.Add(npyBytes(f))
	f.Add([]byte("1 2 3\n4 5 6\n"))
	f.Add([]byte("# comment\n1,2\n3,4\n"))
	f.Add([]byte("1 NaN\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for name, read := range map[string]func() (*mat.Dense, error){
			"f.npy": func() (*mat.Dense, error) { return readNPY(bytes.NewReader(b), "f.npy") },
			"f.tsv": func() (*mat.Dense, error) { return ReadMatrix(bytes.NewReader(b), "f.tsv") },
		} {
			m, err := read()
			if err != nil {
				if !strings.Contains(err.Error(), name) {
					t.Fatalf("%s: error %q does not name the file", name, err)
				}
				continue
			}
			r, c := m.Dims()
			if r == 0 || c == 0 {
				t.Fatalf("%s: empty matrix accepted", name)
			}
		}
	})
}
