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

// lastFMFiles is a small valid Last.fm HetRec directory: two aset400
// artists, one matched.
var lastFMFiles = map[string]string{
	LastFMMappingFile: "# aset400_index\tname\thetrec_id\thetrec_name\n1\tA\t7\tA\n2\tB\t\t\n",
	LastFMTagsFile:    "tagID\ttagValue\n1\trock\n2\tpop\n",
	LastFMUserArtists: "userID\tartistID\tweight\n2\t7\t10\n3\t7\t5\n",
	LastFMUserTagged:  "userID\tartistID\ttagID\tday\tmonth\tyear\n2\t7\t1\t1\t4\t2009\n",
}

// FuzzLoadLastFM replaces one of the four Last.fm files by arbitrary bytes:
// the loader returns consistent data or an error naming a file of the
// directory, and never panics.
func FuzzLoadLastFM(f *testing.F) {
	for which, name := range []string{LastFMMappingFile, LastFMTagsFile, LastFMUserArtists, LastFMUserTagged} {
		f.Add(uint8(which), []byte(lastFMFiles[name]))
	}
	f.Add(uint8(0), []byte("1\tA\t7\n1\tB\t8\n"))
	f.Add(uint8(2), []byte("userID\tartistID\tweight\n2\t7\tNaN\n"))
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		names := []string{LastFMMappingFile, LastFMTagsFile, LastFMUserArtists, LastFMUserTagged}
		target := names[int(which)%len(names)]
		dir := t.TempDir()
		for name, content := range lastFMFiles {
			if name == target {
				content = string(b)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		lf, err := LoadLastFM(dir)
		if err != nil {
			// The error names the file where the problem shows; for an
			// inconsistency between two files that may be the other one.
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error %q names no file (the broken one is %s)", err, target)
			}
			return
		}
		if len(lf.TagCounts) != len(lf.Names) || len(lf.Listens) != len(lf.Names) || len(lf.Present) != len(lf.Names) {
			t.Fatalf("inconsistent data: %d names, %d tag rows, %d listen rows", len(lf.Names), len(lf.TagCounts), len(lf.Listens))
		}
	})
}

// aset400Files is a small valid aset400 directory: three artists, two
// genres.
var aset400Files = map[string]string{
	Aset400ArtistsFile:  "# index\tname\tid\tdisplay\n1\ta\t5\tA\n2\tb\t6\tB\n3\tc\t7\t\n",
	Aset400TripletsFile: "# i j k\n1\t2\t3\n2\t1\t3\n",
	Aset400GenreNames:   "rock\npop\n",
	Aset400GenresFile:   "# index rock pop\n1\t1\t0\n2\t0\t1\n3\t0\t0\n",
}

// FuzzLoadAset400 replaces one of the four aset400 files by arbitrary
// bytes: the loader returns consistent data or an error naming a file of
// the directory, and never panics.
func FuzzLoadAset400(f *testing.F) {
	names := []string{Aset400ArtistsFile, Aset400TripletsFile, Aset400GenreNames, Aset400GenresFile}
	for which, name := range names {
		f.Add(uint8(which), []byte(aset400Files[name]))
	}
	f.Add(uint8(3), []byte("1\t1\t0\n2\t0\n"))
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		target := names[int(which)%len(names)]
		dir := t.TempDir()
		for name, content := range aset400Files {
			if name == target {
				content = string(b)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		a, err := LoadAset400(dir)
		if err != nil {
			// As for Last.fm: the file where the problem shows is named.
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error %q names no file (the broken one is %s)", err, target)
			}
			return
		}
		n := len(a.Names)
		if err := ValidateComparisons(a.Comparisons, n); err != nil {
			t.Fatalf("accepted comparisons out of range: %v", err)
		}
		if r, c := a.GenreLabels.Dims(); r != n || c != len(a.GenreNames) {
			t.Fatalf("genre labels %d×%d for %d artists and %d genres", r, c, n, len(a.GenreNames))
		}
	})
}
