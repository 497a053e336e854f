package data

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// fetchedData returns data/<sub> at the repository root, where the fetch
// scripts put the real data (scripts/fetch_aset400.sh, fetch_aloi.sh; CI
// runs them with --mirror ../shared/data), and skips the test when it is
// absent: the data are never committed (.gitignore).
func fetchedData(t *testing.T, sub string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "data", sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real data %s not available (%v): run scripts/fetch_aset400.sh and scripts/fetch_aloi.sh (--mirror DIR for a local copy)", dir, err)
	}
	return dir
}

func TestLoadAset400Counts(t *testing.T) {
	a, err := LoadAset400(fetchedData(t, "aset400"))
	if err != nil {
		t.Fatal(err)
	}
	// Counts from ../shared/data/aset400/SOURCE.txt ("Verified counts").
	if len(a.Names) != 412 || len(a.MusicSeerIDs) != 412 || len(a.DisplayNames) != 412 {
		t.Errorf("artists: got %d names, want 412", len(a.Names))
	}
	// 9107 lines, of which 17 degenerate (SOURCE.txt lines 5033–5057,
	// 5669, 5673 of triplets.tsv) are dropped.
	if len(a.Comparisons) != 9090 || len(a.Dropped) != 17 {
		t.Errorf("comparisons: got %d kept and %d dropped, want 9090 and 17", len(a.Comparisons), len(a.Dropped))
	}
	reasons := map[string]int{}
	for _, d := range a.Dropped {
		reasons[d.Reason[:5]]++
	}
	if reasons["i = j"] != 14 || reasons["i = k"] != 3 {
		t.Errorf("dropped: %v, want 14 with i = j and 3 with i = k", reasons)
	}
	if d := a.Dropped[0]; d.Line != 5033 || d.Comparison != Triplet(221, 150, 221) {
		t.Errorf("first dropped: %+v, want line 5033, the triplet 222 151 222 (1-based)", d)
	}
	if got := DroppedSummary("triplets.tsv", a.Dropped); !strings.HasPrefix(got, "triplets.tsv: dropped 17 degenerate comparisons (3 i = k: unsatisfiable, d(i,j) < d(i,i) = 0; 14 i = j: trivially satisfied, d(i,i) = 0; lines 5033, 5044,") {
		t.Errorf("summary %q", got)
	}
	if err := ValidateComparisons(a.Comparisons, 412); err != nil {
		t.Error(err)
	}
	occur, heads, distinct := map[int]bool{}, map[int]bool{}, map[Comparison]bool{}
	for _, c := range a.Comparisons {
		distinct[c] = true
		if !c.IsTriplet() {
			t.Fatalf("comparison %v is not a triplet", c)
		}
		occur[c.I], occur[c.J], occur[c.L] = true, true, true
		heads[c.I] = true
	}
	if len(distinct) != 9090 {
		t.Errorf("distinct triplets: got %d, want 9090", len(distinct))
	}
	if len(occur) != 400 || len(heads) != 374 {
		t.Errorf("got %d distinct artists and %d distinct heads in triplets, want 400 and 374", len(occur), len(heads))
	}
	// The 12 artists without triplets have no display name (SOURCE.txt).
	noName := 0
	for i, d := range a.DisplayNames {
		if d == "" {
			noName++
			if occur[i] {
				t.Errorf("artist %d (%s) occurs in triplets but has no display name", i+1, a.Names[i])
			}
		}
	}
	if noName != 12 {
		t.Errorf("artists without display name: got %d, want 12", noName)
	}
	// The released display names carry "\32" for four non-ASCII letters
	// (artists.tsv lines 71, 195, 298, 334); they are restored, and no
	// escape is left in any name.
	for idx, want := range map[int]string{70: "Céline Dion", 194: "KoЯn", 297: "Queensrÿche", 333: "Sisqó"} {
		if got := a.DisplayNames[idx-1]; got != want {
			t.Errorf("artist %d: display name %q, want %q", idx, got, want)
		}
	}
	for i, d := range a.DisplayNames {
		if strings.Contains(d, `\`) {
			t.Errorf("artist %d: display name %q keeps an escape", i+1, d)
		}
	}
	// First triplet line of triplets.tsv is "3 47 206" (1-based).
	if got, want := a.Comparisons[0], Triplet(2, 46, 205); got != want {
		t.Errorf("first comparison: got %v, want %v", got, want)
	}
	if a.Names[2] != "3_doors_down" {
		t.Errorf("artist 3: got %q, want 3_doors_down", a.Names[2])
	}
	r, c := a.GenreLabels.Dims()
	if r != 412 || c != 58 || len(a.GenreNames) != 58 {
		t.Fatalf("genre labels %d×%d with %d names, want 412×58 and 58", r, c, len(a.GenreNames))
	}
	if a.GenreNames[0] != "r&b" {
		t.Errorf("first genre: got %q, want r&b", a.GenreNames[0])
	}
	unlabeled := 0
	for i := 0; i < r; i++ {
		s := 0.0
		for j := 0; j < c; j++ {
			s += a.GenreLabels.At(i, j)
		}
		if s == 0 {
			unlabeled++
		}
	}
	if unlabeled != 17 {
		t.Errorf("unlabeled artists: got %d, want 17", unlabeled)
	}
}

func TestLoadAset400Errors(t *testing.T) {
	src := fetchedData(t, "aset400")
	copyDir := func(t *testing.T) string {
		dir := t.TempDir()
		for _, f := range []string{Aset400ArtistsFile, Aset400TripletsFile, Aset400GenresFile, Aset400GenreNames} {
			b, err := os.ReadFile(filepath.Join(src, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	t.Run("missing file", func(t *testing.T) {
		dir := copyDir(t)
		os.Remove(filepath.Join(dir, Aset400TripletsFile))
		_, err := LoadAset400(dir)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), Aset400TripletsFile) {
			t.Errorf("got %v, want a not-exist error naming %s", err, Aset400TripletsFile)
		}
	})
	t.Run("artist out of range", func(t *testing.T) {
		dir := copyDir(t)
		p := filepath.Join(dir, Aset400TripletsFile)
		f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("3\t47\t413\n")
		f.Close()
		_, err := LoadAset400(dir)
		var fe *FileError
		if !errors.As(err, &fe) || fe.Line != 9109 || fe.Col != 3 || fe.Value != `"413"` {
			t.Errorf("got %v, want a FileError at line 9109, column 3, value \"413\"", err)
		}
	})
}

func TestCleanDisplayName(t *testing.T) {
	for _, tc := range []struct{ name, display, want string }{
		{"abba", "ABBA", "ABBA"},
		{"celine_dion", `C\32line Dion`, "Céline Dion"},
		{"motley_crue", `M\32tley Cr\32e`, "motley crue"}, // unknown damage: the cblearn name
		{"x", "", ""},
	} {
		if got := cleanDisplayName(tc.name, tc.display); got != tc.want {
			t.Errorf("cleanDisplayName(%q, %q) = %q, want %q", tc.name, tc.display, got, tc.want)
		}
	}
}

func TestMainGenres(t *testing.T) {
	// Genre counts over the artists: a 3, b 2, c 2. Ties go to the earlier
	// column; an artist without genres gets "none" (label 3).
	a := &Aset400{GenreNames: []string{"a", "b", "c"}, GenreLabels: mat.NewDense(5, 3, []float64{
		1, 1, 0, // a (3 artists) beats b
		0, 1, 1, // b and c tie at 2: b, the earlier column
		0, 0, 0, // none
		1, 0, 1, // a
		1, 0, 0, // a
	})}
	labels, names := a.MainGenres()
	if want := []int{0, 1, 3, 0, 0}; !slices.Equal(labels, want) {
		t.Errorf("labels %v, want %v", labels, want)
	}
	if want := []string{"a", "b", "c", NoGenre}; !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
}

func TestMainGenresReal(t *testing.T) {
	a, err := LoadAset400(fetchedData(t, "aset400"))
	if err != nil {
		t.Fatal(err)
	}
	labels, names := a.MainGenres()
	count := map[string]int{}
	for _, l := range labels {
		count[names[l]]++
	}
	// Counted from genre_labels.tsv independently (SOURCE.txt: 17 artists
	// have no genre).
	want := map[string]int{"alternative rock": 92, "pop": 72, "rock": 37, "hard rock": 35, "r&b": 31, "hip hop": 22, "pop rock": 21, NoGenre: 17, "country": 15, "new wave": 10}
	for g, n := range want {
		if count[g] != n {
			t.Errorf("%s: %d artists, want %d", g, count[g], n)
		}
	}
	if len(count) != 32 || len(names) != 59 {
		t.Errorf("%d distinct main genres of %d names, want 32 of 59", len(count), len(names))
	}
}
