package data

import (
	"bytes"
	"errors"
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

// aloiFiles is a small valid ALOI directory: three images of two classes,
// every view with three rows.
var aloiFiles = map[string]string{
	ALOILabelsFile:   "1\n2\n1\n",
	ALOIViewFiles[0]: "0.5\t0.5\n1\t0\n0\t1\n",
	ALOIViewFiles[1]: "0.25\t0.75\n0.5\t0.5\n1\t0\n",
	ALOIViewFiles[2]: "1\t2\t3\n4\t5\t6\n7\t8\t9\n",
	ALOIViewFiles[3]: "-1.5e4\n2e13\n3\n",
}

// FuzzLoadALOI replaces the labels or one view file by arbitrary bytes: the
// loader returns one row per label in every view, labels ≥ 1, or an error
// naming a file of the directory, and never panics.
func FuzzLoadALOI(f *testing.F) {
	names := append([]string{ALOILabelsFile}, ALOIViewFiles...)
	for which, name := range names {
		f.Add(uint8(which), []byte(aloiFiles[name]))
	}
	f.Add(uint8(0), []byte("1\n0\n1\n"))
	f.Add(uint8(2), []byte("1 2\n3 4\n"))
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		target := names[int(which)%len(names)]
		dir := t.TempDir()
		for name, content := range aloiFiles {
			if name == target {
				content = string(b)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		a, err := LoadALOI(dir)
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error %q names no file (the broken one is %s)", err, target)
			}
			return
		}
		if len(a.Views) != len(ALOIViewFiles) || len(a.ViewNames) != len(ALOIViewFiles) {
			t.Fatalf("%d views, %d names", len(a.Views), len(a.ViewNames))
		}
		for v, x := range a.Views {
			if r, _ := x.Dims(); r != len(a.Labels) {
				t.Fatalf("view %s: %d rows for %d labels", a.ViewNames[v], r, len(a.Labels))
			}
		}
		for i, l := range a.Labels {
			if l < 1 {
				t.Fatalf("label %d of image %d accepted", l, i)
			}
		}
	})
}

// FuzzReadMaterialAnswers: any bytes are read as a material answers file
// or rejected with a *FileError naming the file, never a panic; accepted
// queries are three different items in range with at least one answer,
// and the majority triplets and the ties account for every query.
func FuzzReadMaterialAnswers(f *testing.F) {
	for _, s := range []string{`{"answers": [[0,1,2],[3,4,0]], "agreement": [[3,1],[2,2]]}`, `{"answers": [], "agreement": []}`,
		`{"answers": [[0,1,2]], "agreement": [[1e0,0]], "answers_diff": 7}`, `{"answers": [[0,1,9]]`, `[]`, `null`, ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := ReadMaterialAnswers(bytes.NewReader(b), "m.json", 5)
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || fe.File != "m.json" {
				t.Fatalf("error %v is not a *FileError naming the file", err)
			}
			return
		}
		maj, ties := a.Majority()
		if len(maj)+ties != len(a.Queries) {
			t.Fatalf("%d majority triplets + %d ties, %d queries", len(maj), ties, len(a.Queries))
		}
		if err := ValidateComparisons(maj, 5); err != nil {
			t.Fatalf("accepted triplets out of range: %v", err)
		}
		for _, q := range a.Queries {
			if q.CountA < 0 || q.CountB < 0 || q.CountA+q.CountB == 0 || q.Ref == q.A || q.Ref == q.B || q.A == q.B {
				t.Fatalf("accepted query %+v", q)
			}
		}
	})
}

// FuzzReadPerceptual: any bytes are read as a raw perceptual-kernel
// triplet file (in a small layout) or rejected with a *FileError naming
// the file, never a panic; accepted triplets are in range and every
// palette triplet is a triplet or a catch trial.
func FuzzReadPerceptual(f *testing.F) {
	lay := PerceptualLayout{Fields: 12, PracticeTriplets: 1, PracticeStimuli: 2, Items: 3}
	for _, s := range []string{"0,1,0,2,3,4,4,4,2,3,2,4\n", "0,0,1,2,3,4,2,4,3,3,3,2\n\n1,1,0,4,2,3,2,3,4,3,2,4\n", "0,1\n", "x\n", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ReadPerceptual(bytes.NewReader(b), "p.txt", &lay)
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || fe.File != "p.txt" {
				t.Fatalf("error %v is not a *FileError naming the file", err)
			}
			return
		}
		tr := p.Triplets()
		if err := ValidateComparisons(tr, lay.Items); err != nil {
			t.Fatalf("accepted triplets out of range: %v", err)
		}
		if got, want := len(tr)+p.CatchPassed+p.CatchFailed, len(p.Subjects)*(lay.Fields/3-lay.PracticeTriplets); got != want {
			t.Fatalf("%d triplets and catch trials, want %d", got, want)
		}
	})
}
