package data

import (
	"fmt"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Aset400 is the aset400 artist-similarity data (McFee & Lanckriet 2011,
// Sec. 5.2): 412 popular artists and relative comparisons (i,j,i,k) "artist
// i is more similar to j than to k" from the web survey of Ellis et al.
// (2002). Artist a (0-based) is row a of every field.
//
// The comparisons are the 9107 triplets released with t-STE (van der Maaten
// & Weinberger 2012), not the 16385 raw survey comparisons of Sec. 5.2; see
// docs/datasets.md.
type Aset400 struct {
	Names        []string // cblearn/MusicSeer artist name, e.g. "3_doors_down"
	MusicSeerIDs []int    // MusicSeer artist id
	DisplayNames []string // name printed on the t-STE map; "" for the 12 artists without triplets
	Comparisons  []Comparison
	// Dropped are the degenerate triplets of triplets.tsv, left out of
	// Comparisons: 14 "i j k" lines with i = j (trivially satisfied, since
	// d(i,i) = 0) and 3 with i = k (unsatisfiable: d(i,j) < d(i,i) = 0).
	Dropped     []DroppedComparison
	GenreLabels *mat.Dense // 412×58, 0/1: artist × genre; 17 artists have no genre
	GenreNames  []string   // 58 genre names, column order of GenreLabels
}

// Aset400 file names inside the data directory (layout of ../shared/data/aset400).
const (
	Aset400ArtistsFile  = "artists.tsv"
	Aset400TripletsFile = "triplets.tsv"
	Aset400GenresFile   = "genre_labels.tsv"
	Aset400GenreNames   = "genre_names.txt"
)

// LoadAset400 reads the aset400 files from dir (artists.tsv, triplets.tsv,
// genre_labels.tsv, genre_names.txt; see docs/datasets.md). Triplet lines
// "i j k" are 1-based and become Triplet(i-1, j-1, k-1). It checks that
// artist indices run 1..n in order, that every triplet names an artist, and
// that the genre matrix has one 0/1 row per artist and one column per genre
// name. Errors are [*FileError]s or wrap the I/O error with the path.
func LoadAset400(dir string) (*Aset400, error) {
	a := &Aset400{}
	path := filepath.Join(dir, Aset400ArtistsFile)
	err := readTabFile(path, true, func(line int, fs []string) error {
		if len(fs) != 4 {
			return fileErr(path, line, 0, "an artists line must have 4 tab-separated fields: index, name, musicseer id, display name", "%d fields", len(fs))
		}
		idx, err := atoiField(path, line, fs, 1, "artist index")
		if err != nil {
			return err
		}
		if idx != len(a.Names)+1 {
			return fileErr(path, line, 1, fmt.Sprintf("artist indices must run 1, 2, ... in order (expected %d)", len(a.Names)+1), "%d", idx)
		}
		id, err := atoiField(path, line, fs, 3, "musicseer id")
		if err != nil {
			return err
		}
		a.Names = append(a.Names, fs[1])
		a.MusicSeerIDs = append(a.MusicSeerIDs, id)
		a.DisplayNames = append(a.DisplayNames, cleanDisplayName(fs[1], fs[3]))
		return nil
	})
	if err != nil {
		return nil, err
	}
	n := len(a.Names)
	if n == 0 {
		return nil, &FileError{File: path, Rule: "artists file must list at least one artist", Value: "no artists"}
	}
	cf, err := ReadComparisonsFile(filepath.Join(dir, Aset400TripletsFile), ComparisonOptions{OneBased: true, N: n})
	if err != nil {
		// Indices are checked against the artists file: name it too.
		return nil, fmt.Errorf("%w (checked against the %d artists of %s)", err, n, path)
	}
	for n, c := range cf.Comparisons {
		switch {
		case c.J == c.I:
			a.Dropped = append(a.Dropped, DroppedComparison{Line: cf.Lines[n], Comparison: c, Reason: "i = j: trivially satisfied, d(i,i) = 0"})
		case c.L == c.I:
			a.Dropped = append(a.Dropped, DroppedComparison{Line: cf.Lines[n], Comparison: c, Reason: "i = k: unsatisfiable, d(i,j) < d(i,i) = 0"})
		default:
			a.Comparisons = append(a.Comparisons, c)
		}
	}
	if cf.Format.Arity != 3 {
		return nil, &FileError{File: filepath.Join(dir, Aset400TripletsFile), Rule: "aset400 comparisons must be triplets (3 columns)", Value: "4-column lines"}
	}

	namesPath := filepath.Join(dir, Aset400GenreNames)
	err = readTabFile(namesPath, false, func(line int, fs []string) error {
		a.GenreNames = append(a.GenreNames, strings.TrimSpace(strings.Join(fs, "\t")))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(a.GenreNames) == 0 {
		return nil, &FileError{File: namesPath, Rule: "genre names file must list at least one genre", Value: "no genres"}
	}
	a.GenreLabels, err = readGenreLabels(filepath.Join(dir, Aset400GenresFile), n, len(a.GenreNames))
	if err != nil {
		return nil, err
	}
	return a, nil
}

// NoGenre is the name [MainGenres] gives the artists without a genre.
const NoGenre = "none"

// MainGenres gives each artist one genre, for colouring a map: of the
// artist's genres (GenreLabels), the one the most artists share (ties: the
// earlier column). An artist has up to 9 genres in aset400; taking its
// most widespread one keeps the classes broad (32 distinct, most artists
// in the first ten). Artists without a genre get the label len(GenreNames),
// named [NoGenre]. names holds the genre names, then NoGenre: label l is
// named names[l].
func (a *Aset400) MainGenres() (labels []int, names []string) {
	n, g := a.GenreLabels.Dims()
	count := make([]float64, g)
	for j := range count {
		count[j] = mat.Sum(a.GenreLabels.ColView(j))
	}
	labels = make([]int, n)
	for i := range labels {
		labels[i] = g
		for j := 0; j < g; j++ {
			if a.GenreLabels.At(i, j) != 0 && (labels[i] == g || count[j] > count[labels[i]]) {
				labels[i] = j
			}
		}
	}
	names = append(append([]string(nil), a.GenreNames...), NoGenre)
	return labels, names
}

// DroppedComparison is a comparison a loader left out: its 1-based line in
// the file, the comparison (0-based) and why.
type DroppedComparison struct {
	Line       int
	Comparison Comparison
	Reason     string
}

// DroppedSummary says in one line how many comparisons were dropped from
// file and why, e.g. "triplets.tsv: dropped 17 degenerate comparisons (14
// i = j: trivially satisfied…, 3 …; lines 12, 40, …)", or "" for none.
func DroppedSummary(file string, ds []DroppedComparison) string {
	if len(ds) == 0 {
		return ""
	}
	count := map[string]int{}
	var reasons, lines []string
	for _, d := range ds {
		if count[d.Reason] == 0 {
			reasons = append(reasons, d.Reason)
		}
		count[d.Reason]++
		lines = append(lines, fmt.Sprint(d.Line))
	}
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%d %s", count[r], r)
	}
	return fmt.Sprintf("%s: dropped %d degenerate comparisons (%s; lines %s)", file, len(ds), strings.Join(parts, "; "), strings.Join(lines, ", "))
}

// readGenreLabels reads genre_labels.tsv: per line the 1-based artist index
// then one 0/1 value per genre.
func readGenreLabels(path string, n, g int) (*mat.Dense, error) {
	m, err := ReadMatrixFile(path)
	if err != nil {
		return nil, err
	}
	r, c := m.Dims()
	if r != n {
		return nil, &FileError{File: path, Rule: fmt.Sprintf("genre labels must have one row per artist (%d)", n), Value: fmt.Sprintf("%d rows", r)}
	}
	if c != g+1 {
		return nil, &FileError{File: path, Line: 1, Rule: fmt.Sprintf("genre label rows must hold the artist index and one value per genre name of %s (1+%d)", Aset400GenreNames, g), Value: fmt.Sprintf("%d values", c)}
	}
	out := mat.NewDense(n, g, nil)
	for i := 0; i < n; i++ {
		// Line numbers are not known after ReadMatrix; the header is one
		// comment line, so data row i is usually on line i+2.
		if int(m.At(i, 0)) != i+1 {
			return nil, &FileError{File: path, Rule: fmt.Sprintf("genre label row %d must start with artist index %d", i+1, i+1), Value: fmt.Sprintf("%g", m.At(i, 0))}
		}
		for j := 0; j < g; j++ {
			x := m.At(i, j+1)
			if x != 0 && x != 1 {
				return nil, &FileError{File: path, Rule: "genre labels must be 0 or 1", Value: fmt.Sprintf("%g in data row %d, column %d", x, i+1, j+2)}
			}
			out.Set(i, j, x)
		}
	}
	return out, nil
}

// displayNameFixes restores the four display names of the released
// artists.tsv whose non-ASCII letter was replaced by the escape "\32"
// when the t-STE map's labels were exported ("C\32line Dion"), keyed by
// the artist's cblearn name.
var displayNameFixes = map[string]string{
	"celine_dion": "Céline Dion",
	"korn":        "KoЯn",
	"queensryche": "Queensrÿche",
	"sisqo":       "Sisqó",
}

// cleanDisplayName returns the display name of an artist without encoding
// leftovers: a known damaged name is restored (displayNameFixes), and any
// other name holding a backslash escape falls back to the cblearn name with
// spaces for underscores, so that no "\32" reaches a table or a map.
func cleanDisplayName(name, display string) string {
	if !strings.Contains(display, `\`) {
		return display
	}
	if fixed, ok := displayNameFixes[name]; ok {
		return fixed
	}
	return strings.ReplaceAll(name, "_", " ")
}
