package data

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed" // the aset400 display names
	"errors"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"
	"gonum.org/v1/gonum/mat"
)

// This file derives the text files that the loaders read (LoadAset400,
// LoadLastFM, LoadALOI) from the public originals that
// scripts/fetch_aset400.sh and scripts/fetch_aloi.sh download; see
// docs/datasets.md for the sources and the rules.

// PrepareSets lists the names [Prepare] accepts, in the order the fetch
// scripts run them.
var PrepareSets = []string{"aset400", "lastfm", "aloi"}

// Data set directories under a data root (the layout of ../shared/data).
const (
	Aset400Dir = "aset400"
	LastFMDir  = "lastfm-hetrec2011"
	ALOIDir    = "aloi10"
)

// Original file names under <set>/original/ (aset400, ALOI) or <set>/
// (Last.fm), as the fetch scripts place them.
const (
	Aset400TripletsMat = "original/music_triplets.mat"
	Aset400LabelsMat   = "original/music_labels.mat"
	Aset400CblearnList = "original/cblearn_musician_names.txt"
	LastFMArtistsFile  = "artists.dat"
	ALOIMat            = "original/ALOI_UIMC.mat"
)

// Prepare derives the text files of one data set from its originals: name
// is "aset400", "lastfm" or "aloi"; root is a data tree laid out like
// data/ (root/aset400/original/music_triplets.mat, ...); the files are
// written under out in the same layout (out may be root). It returns the
// paths written, SOURCE.txt last. Each file is written to a temporary
// name and renamed, so a failed run leaves no half-written file.
//
// Bad or missing originals give a [*FileError] naming the file; a failure
// to write gives another error.
func Prepare(name, root, out string) ([]string, error) {
	switch name {
	case "aset400":
		return prepareAset400(root, out)
	case "lastfm":
		return prepareLastFM(root, out)
	case "aloi":
		return prepareALOI(root, out)
	}
	return nil, fmt.Errorf("data: unknown data set %q (want one of %s)", name, strings.Join(PrepareSets, ", "))
}

// readOriginal reads an original file; a missing file is the user's to
// fetch, so it is a [*FileError].
func readOriginal(path, fetch string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &FileError{File: path, Rule: "the original must be in place (run " + fetch + ")", Value: "no such file"}
	}
	if err != nil {
		return nil, fmt.Errorf("data: reading %w", err)
	}
	return b, nil
}

// readOriginalMat reads a MAT-file original.
func readOriginalMat(path, fetch string) (map[string]*MatVar, []byte, error) {
	b, err := readOriginal(path, fetch)
	if err != nil {
		return nil, nil, err
	}
	vars, err := ReadMat(b, path)
	return vars, b, err
}

// matVariable returns a variable of a MAT-file or an error naming it.
func matVariable(vars map[string]*MatVar, path, name string) (*MatVar, error) {
	v := vars[name]
	if v == nil {
		return nil, &FileError{File: path, Rule: "MAT-file must hold the variable " + name, Value: "no such variable"}
	}
	return v, nil
}

// eachLine calls fn with every line of b and its 1-based number (a final
// line without a newline included, "\r" endings removed).
func eachLine(b []byte, fn func(num int, line string) error) error {
	for num := 1; len(b) > 0; num++ {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if err := fn(num, strings.TrimSuffix(string(line), "\r")); err != nil {
			return err
		}
	}
	return nil
}

// matDense is [MatVar.Dense] with its error as the file's: the original
// holds something other than a matrix.
func matDense(path string, v *MatVar) (*mat.Dense, error) {
	m, err := v.Dense()
	if err != nil {
		return nil, &FileError{File: path, Rule: "the variable must be a non-empty numeric matrix", Value: strings.TrimPrefix(err.Error(), "data: ")}
	}
	return m, nil
}

// writer collects the files of one data set and writes them atomically.
type writer struct {
	dir     string
	written []string
	source  strings.Builder // the originals, for SOURCE.txt
}

func (w *writer) file(name string, body []byte) error {
	if err := os.MkdirAll(w.dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(w.dir, name)
	f, err := os.CreateTemp(w.dir, "."+name+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("data: writing %s: %w", path, err)
	}
	w.written = append(w.written, path)
	return nil
}

// original records an original file for SOURCE.txt.
func (w *writer) original(rel string, b []byte, from string) {
	fmt.Fprintf(&w.source, "  %s  %d bytes  sha256 %x\n      from %s\n", rel, len(b), sha256.Sum256(b), from)
}

// sourceFile writes SOURCE.txt: what made the files, from which originals,
// by which rules.
func (w *writer) sourceFile(set, rules string) error {
	version := "(unknown version)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				version += " commit " + s.Value
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Written by `mkpoe data prepare %s` (mkpoe %s; pkg/data/prepare.go)\nfrom these originals:\n\n", set, version)
	b.WriteString(w.source.String())
	b.WriteString("\n" + rules)
	b.WriteString("\nSources, licences and the works to cite: docs/datasets.md.\n")
	return w.file("SOURCE.txt", []byte(b.String()))
}

// --- aset400 -----------------------------------------------------------------

const (
	stePinned     = "github.com/amandasongmm/simi_triplet@a22b7160bbfec7ed17f8099eb0197d48a67c5449 STE_Release/data/"
	cblearnPinned = "github.com/cblearn/cblearn@d0beebfd08f4f76f88506386f6000fef051ec298 cblearn/datasets/data/musician_names.txt (MIT)"
	fetchAset400  = "scripts/fetch_aset400.sh"
	fetchALOI     = "scripts/fetch_aloi.sh"
)

// cblearnExtra is the one name of cblearn's list that is not an aset400
// artist; without it the list is the 412 aset400 artists in index order.
const cblearnExtra = "a_new_found_glory"

// aset400Artist is one row of artists.tsv.
type aset400Artist struct {
	name    string
	id      int
	display string
}

// readCblearnNames reads cblearn's musician_names.txt ("name musicseer_id"
// per line) and drops [cblearnExtra].
func readCblearnNames(path string, b []byte) ([]aset400Artist, error) {
	var artists []aset400Artist
	err := eachLine(b, func(num int, line string) error {
		fs := strings.Fields(line)
		if len(fs) == 0 {
			return nil
		}
		if len(fs) != 2 {
			return fileErr(path, num, 0, "a cblearn name line must be \"name musicseer_id\"", "%d fields", len(fs))
		}
		id, err := strconv.Atoi(fs[1])
		if err != nil {
			return fileErr(path, num, 2, "a MusicSeer id must be an integer", "%q", fs[1])
		}
		if fs[0] != cblearnExtra {
			artists = append(artists, aset400Artist{name: fs[0], id: id})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(artists) == 0 {
		return nil, &FileError{File: path, Rule: "the cblearn name list must name the artists", Value: "no names"}
	}
	return artists, nil
}

//go:embed aset400_display_names.tsv
var aset400DisplayNames string

// displayNames parses the embedded table: cblearn name -> display name at
// each 1-based index.
func displayNames() (index []int, names, display []string) {
	for _, line := range strings.Split(strings.TrimSuffix(aset400DisplayNames, "\n"), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Split(line, "\t")
		i, _ := strconv.Atoi(fs[0])
		index, names, display = append(index, i), append(names, fs[1]), append(display, fs[2])
	}
	return index, names, display
}

// aset400Names reads the artists: names and ids from cblearn's list,
// display names from the embedded table, checked against each other. The
// list is recorded in w's SOURCE.txt as rel.
func aset400Names(root string, w *writer, rel string) ([]aset400Artist, error) {
	path := filepath.Join(root, Aset400Dir, Aset400CblearnList)
	b, err := readOriginal(path, fetchAset400)
	if err != nil {
		return nil, err
	}
	w.original(rel, b, cblearnPinned)
	artists, err := readCblearnNames(path, b)
	if err != nil {
		return nil, err
	}
	index, names, display := displayNames()
	if len(index) != len(artists) {
		return nil, &FileError{File: path, Rule: fmt.Sprintf("the cblearn list without %s must name the %d artists of the display-name table (pkg/data/aset400_display_names.tsv)", cblearnExtra, len(index)), Value: fmt.Sprintf("%d names", len(artists))}
	}
	for i := range artists {
		if index[i] != i+1 || names[i] != artists[i].name {
			return nil, &FileError{File: path, Rule: fmt.Sprintf("artist %d must be %q as in the display-name table", i+1, names[i]), Value: fmt.Sprintf("%q", artists[i].name)}
		}
		artists[i].display = display[i]
	}
	return artists, nil
}

func prepareAset400(root, out string) ([]string, error) {
	w := &writer{dir: filepath.Join(out, Aset400Dir)}
	dir := filepath.Join(root, Aset400Dir)
	artists, err := aset400Names(root, w, Aset400CblearnList)
	if err != nil {
		return nil, err
	}
	n := len(artists)

	// triplets.tsv, then genre_names.txt and genre_labels.tsv.
	triplets, err := aset400Triplets(dir, w, n)
	if err != nil {
		return nil, err
	}
	genreNames, genreLabels, err := aset400Genres(dir, w, n)
	if err != nil {
		return nil, err
	}

	// artists.tsv.
	var at bytes.Buffer
	at.WriteString("# index(1-based)\tcblearn_name\tmusicseer_id\tdisplay_name_from_tSTE_map(empty if artist has no triplets)\n")
	for i, a := range artists {
		fmt.Fprintf(&at, "%d\t%s\t%d\t%s\n", i+1, a.name, a.id, a.display)
	}

	for _, f := range []struct {
		name string
		body []byte
	}{{Aset400TripletsFile, triplets}, {Aset400ArtistsFile, at.Bytes()}, {Aset400GenresFile, genreLabels}, {Aset400GenreNames, genreNames}} {
		if err := w.file(f.name, f.body); err != nil {
			return nil, err
		}
	}
	err = w.sourceFile("aset400", `Rules:
  triplets.tsv      the rows of music_triplets.mat's triplets (1-based i j k), order kept.
  artists.tsv       index, name and MusicSeer id from cblearn's list without "a_new_found_glory"
                    (order kept); display name from pkg/data/aset400_display_names.tsv, the
                    labels of t-STE's music_tste_map.eps (not recomputable: a curator read them).
  genre_labels.tsv  music_labels.mat's label_matrix (412 × 58, 0/1), one row per artist.
  genre_names.txt   music_labels.mat's lablist, HTML entities decoded ("r&amp;b" -> "r&b").
`)
	if err != nil {
		return nil, err
	}
	return w.written, nil
}

// aset400Triplets is triplets.tsv: the rows of music_triplets.mat's
// `triplets` (1-based indices of the n artists), order kept; the original
// is recorded in w.
func aset400Triplets(dir string, w *writer, n int) ([]byte, error) {
	path := filepath.Join(dir, Aset400TripletsMat)
	vars, b, err := readOriginalMat(path, fetchAset400)
	if err != nil {
		return nil, err
	}
	w.original(Aset400TripletsMat, b, stePinned+"music_triplets.mat")
	tv, err := matVariable(vars, path, "triplets")
	if err != nil {
		return nil, err
	}
	tm, err := matDense(path, tv)
	if err != nil {
		return nil, err
	}
	rows, cols := tm.Dims()
	if cols != 3 {
		return nil, &FileError{File: path, Rule: "variable triplets must have 3 columns (i j k)", Value: fmt.Sprintf("%d×%d", rows, cols)}
	}
	var t bytes.Buffer
	t.WriteString("# i\tj\tk  (1-based artist indices; artist i judged more similar to j than to k). From STE_Release music_triplets.mat, row order preserved.\n")
	for r := 0; r < rows; r++ {
		for c := 0; c < 3; c++ {
			x := tm.At(r, c)
			if x != float64(int(x)) || x < 1 || x > float64(n) {
				return nil, &FileError{File: path, Rule: fmt.Sprintf("triplets must hold artist indices 1..%d", n), Value: fmt.Sprintf("%g in row %d, column %d", x, r+1, c+1)}
			}
			if c > 0 {
				t.WriteByte('\t')
			}
			t.WriteString(strconv.Itoa(int(x)))
		}
		t.WriteByte('\n')
	}
	return t.Bytes(), nil
}

// aset400Genres is genre_names.txt and genre_labels.tsv, from
// music_labels.mat (HDF5) of the n artists; the original is recorded in w.
func aset400Genres(dir string, w *writer, n int) (names, labels []byte, err error) {
	path := filepath.Join(dir, Aset400LabelsMat)
	vars, b, err := readOriginalMat(path, fetchAset400)
	if err != nil {
		return nil, nil, err
	}
	w.original(Aset400LabelsMat, b, stePinned+"music_labels.mat")
	lv, err := matVariable(vars, path, "label_matrix")
	if err != nil {
		return nil, nil, err
	}
	nv, err := matVariable(vars, path, "lablist")
	if err != nil {
		return nil, nil, err
	}
	lm, err := matDense(path, lv)
	if err != nil {
		return nil, nil, err
	}
	lr, lc := lm.Dims()
	if nv.Class != MatCell || len(nv.Cells) != lc || lr != n {
		return nil, nil, &FileError{File: path, Rule: fmt.Sprintf("label_matrix must be %d artists × genres and lablist a cell of one name per genre", n), Value: fmt.Sprintf("label_matrix %d×%d, lablist of class %v with %d cells", lr, lc, nv.Class, len(nv.Cells))}
	}
	genres := make([]string, lc)
	var gn bytes.Buffer
	for g, c := range nv.Cells {
		if c.Class != MatChar {
			return nil, nil, &FileError{File: path, Rule: "lablist must hold char arrays", Value: fmt.Sprintf("cell %d of class %v", g+1, c.Class)}
		}
		// The names are stored HTML-escaped ("r&amp;b").
		genres[g] = html.UnescapeString(c.String())
		if genres[g] == "" || strings.ContainsAny(genres[g], "\t\n") {
			return nil, nil, &FileError{File: path, Rule: "a genre name must be non-empty text on one line", Value: fmt.Sprintf("%q in cell %d", genres[g], g+1)}
		}
		gn.WriteString(genres[g] + "\n")
	}
	var gl bytes.Buffer
	gl.WriteString("# index(1-based)\t" + strings.Join(genres, "\t") + "\n")
	for i := 0; i < lr; i++ {
		gl.WriteString(strconv.Itoa(i + 1))
		for g := 0; g < lc; g++ {
			x := lm.At(i, g)
			if x != 0 && x != 1 {
				return nil, nil, &FileError{File: path, Rule: "label_matrix must be 0/1", Value: fmt.Sprintf("%g at (%d,%d)", x, i+1, g+1)}
			}
			gl.WriteString("\t" + strconv.Itoa(int(x)))
		}
		gl.WriteByte('\n')
	}
	return gn.Bytes(), gl.Bytes(), nil
}

// --- Last.fm HetRec 2011 -------------------------------------------------------

const hetrecPinned = "github.com/Coder-Yu/QRec@a61b79db3fdc15c2c1d739fb3dd60430236ec3e0 dataset/lastfm-2k/artists.dat"

// hetrecAliases are the aset400 artists that the name rule ([hetrecKey])
// does not match but the data curators matched by hand, keyed by aset400
// name: the HetRec name they chose. cblearn misspells two of them and
// abbreviates the third.
var hetrecAliases = map[string]string{
	"missy_elliot":          "Missy Elliott",
	"presidents_of_the_usa": "The Presidents of the United States of America",
	"procal_harum":          "Procol Harum",
}

// hetrecKey is the name rule of aset400_to_hetrec_artistID.tsv: lower
// case, folded to ASCII (accents dropped, other non-ASCII letters
// removed), a leading "the" dropped, "&" read as "and", and everything but
// letters and digits removed.
func hetrecKey(name string) string {
	s := strings.ToLower(name)
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		if r < 0x80 {
			b.WriteRune(r)
		}
	}
	s = strings.ReplaceAll(b.String(), "&", " and ")
	for _, the := range []string{"the ", "the_"} {
		if rest, ok := strings.CutPrefix(s, the); ok {
			s = strings.TrimLeft(rest, " _")
		}
	}
	b.Reset()
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// hetrecArtist is an artist of HetRec's artists.dat.
type hetrecArtist struct{ id, name string }

// readHetRecArtists reads artists.dat ("id name url pictureURL", tab-
// separated, a header line) and indexes the artists by [hetrecKey] and by
// name; the first artist in file order wins a key ("Britney Spears", id
// 289, over "Britney Spears㞦", id 9374).
func readHetRecArtists(path string, b []byte) (byKey, byName map[string]hetrecArtist, err error) {
	byKey, byName = map[string]hetrecArtist{}, map[string]hetrecArtist{}
	err = eachLine(b, func(num int, line string) error {
		fs := strings.Split(line, "\t")
		if num == 1 && fs[0] == "id" {
			return nil
		}
		if len(fs) < 2 {
			return fileErr(path, num, 0, "an artists.dat line must have the tab-separated fields id, name, url, pictureURL", "%d fields", len(fs))
		}
		if _, err := strconv.Atoi(fs[0]); err != nil {
			return fileErr(path, num, 1, "an artist id must be an integer", "%q", fs[0])
		}
		h := hetrecArtist{fs[0], fs[1]}
		if k := hetrecKey(h.name); k != "" {
			if _, ok := byKey[k]; !ok {
				byKey[k] = h
			}
		}
		if _, ok := byName[h.name]; !ok {
			byName[h.name] = h
		}
		return nil
	})
	return byKey, byName, err
}

func prepareLastFM(root, out string) ([]string, error) {
	w := &writer{dir: filepath.Join(out, LastFMDir)}
	artists, err := aset400Names(root, w, "../"+Aset400Dir+"/"+Aset400CblearnList)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(root, LastFMDir, LastFMArtistsFile)
	b, err := readOriginal(path, fetchAset400)
	if err != nil {
		return nil, err
	}
	w.original(LastFMArtistsFile, b, hetrecPinned)
	byKey, byName, err := readHetRecArtists(path, b)
	if err != nil {
		return nil, err
	}
	var m bytes.Buffer
	m.WriteString("# aset400_index(1-based)\taset400_name\thetrec_artistID(empty=no match)\thetrec_name   (exact match after lowercasing, ASCII-folding, dropping leading \"the\", & -> and, removing non-alphanumerics)\n")
	for i, a := range artists {
		h, ok := byKey[hetrecKey(a.name)]
		if alias, aliased := hetrecAliases[a.name]; aliased && !ok {
			if h, ok = byName[alias]; !ok {
				return nil, &FileError{File: path, Rule: fmt.Sprintf("must list %q, the HetRec artist matched by hand to aset400's %s (pkg/data/prepare.go hetrecAliases)", alias, a.name), Value: "not found"}
			}
		}
		fmt.Fprintf(&m, "%d\t%s\t%s\t%s\n", i+1, a.name, h.id, h.name)
	}
	if err := w.file(LastFMMappingFile, m.Bytes()); err != nil {
		return nil, err
	}
	err = w.sourceFile("lastfm", `Rules:
  aset400_to_hetrec_artistID.tsv  for each aset400 artist (cblearn's list without
      "a_new_found_glory"), the first artists.dat artist whose name has the same key:
      lower case, folded to ASCII, a leading "the" dropped, "&" read as "and", only
      letters and digits kept. Three artists the rule misses were matched by hand
      (pkg/data/prepare.go hetrecAliases): missy_elliot, presidents_of_the_usa,
      procal_harum. The other HetRec files are used as downloaded.
`)
	if err != nil {
		return nil, err
	}
	return w.written, nil
}

// --- ALOI ----------------------------------------------------------------------

const aloiPinned = "github.com/AllminerLab/Code-for-UIMC-master@c6b06be146850db6b56ee713e0359e6aa73175a6 data/ALOI.mat"

// ALOISubsetStep and ALOISubsetPerClass define subset_10x20_row_indices.tsv:
// class by class in label order, the rows at positions 0, 5, ..., 95 among
// the class's rows (in file order).
const (
	ALOISubsetStep     = 5
	ALOISubsetPerClass = 20
)

func prepareALOI(root, out string) ([]string, error) {
	w := &writer{dir: filepath.Join(out, ALOIDir)}
	path := filepath.Join(root, ALOIDir, ALOIMat)
	vars, b, err := readOriginalMat(path, fetchALOI)
	if err != nil {
		return nil, err
	}
	w.original(ALOIMat, b, aloiPinned)
	x, err := matVariable(vars, path, "X")
	if err != nil {
		return nil, err
	}
	truth, err := matVariable(vars, path, "truth")
	if err != nil {
		return nil, err
	}
	if x.Class != MatCell || len(x.Cells) != len(ALOIViewFiles) {
		return nil, &FileError{File: path, Rule: fmt.Sprintf("X must be a cell of %d views", len(ALOIViewFiles)), Value: fmt.Sprintf("class %v with %d cells", x.Class, len(x.Cells))}
	}
	n := len(truth.Data)
	if n == 0 || truth.Class == MatCell || truth.Class == MatChar {
		return nil, &FileError{File: path, Rule: "truth must be a numeric vector of class labels", Value: fmt.Sprintf("class %v with %d values", truth.Class, n)}
	}
	var views [][]byte
	for v, cell := range x.Cells {
		m, err := matDense(path, cell) // d × n, MATLAB orientation
		if err != nil {
			return nil, err
		}
		d, c := m.Dims()
		if c != n {
			return nil, &FileError{File: path, Rule: fmt.Sprintf("view X{%d} must have one column per image (%d, the length of truth)", v+1, n), Value: fmt.Sprintf("%d×%d", d, c)}
		}
		var buf bytes.Buffer
		bw := bufio.NewWriter(&buf)
		num := make([]byte, 0, 32)
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				if j > 0 {
					bw.WriteByte('\t')
				}
				bw.Write(formatG10(num[:0], m.At(j, i)))
			}
			bw.WriteByte('\n')
		}
		bw.Flush()
		views = append(views, buf.Bytes())
	}
	var labels, subset bytes.Buffer
	rowsOf := map[int][]int{} // class label -> its rows, in file order
	maxLabel := 0
	for i, l := range truth.Data {
		if l != float64(int(l)) || l < 1 || l > float64(n) {
			return nil, &FileError{File: path, Rule: fmt.Sprintf("truth must hold class labels 1..%d", n), Value: fmt.Sprintf("%g at row %d", l, i+1)}
		}
		rowsOf[int(l)] = append(rowsOf[int(l)], i)
		maxLabel = max(maxLabel, int(l))
		labels.WriteString(strconv.Itoa(int(l)) + "\n")
	}
	subset.WriteString("# 0-based rows of the 1079-row set: per class, in-class positions 0,5,...,95\n")
	for l := 1; l <= maxLabel; l++ {
		for pos := 0; pos < len(rowsOf[l]) && pos < ALOISubsetStep*ALOISubsetPerClass; pos += ALOISubsetStep {
			subset.WriteString(strconv.Itoa(rowsOf[l][pos]) + "\n")
		}
	}
	for v, body := range views {
		if err := w.file(ALOIViewFiles[v], body); err != nil {
			return nil, err
		}
	}
	if err := w.file(ALOILabelsFile, labels.Bytes()); err != nil {
		return nil, err
	}
	if err := w.file(ALOISubsetFile, subset.Bytes()); err != nil {
		return nil, err
	}
	err = w.sourceFile("aloi", `Rules:
  view1_64d_hist_sum1.tsv, view2_64d_hist_sum1.tsv, view3_77d.tsv, view4_13d_haralick_like.tsv
      the cells X{1..4} of ALOI_UIMC.mat (d × 1079) transposed to one row per image,
      tab-separated, each value printed as C's %.10g.
  labels.tsv  truth (1..10), one per image.
  subset_10x20_row_indices.tsv  0-based rows: class by class in label order, the rows at
      positions 0,5,...,95 among the class's rows.
`)
	if err != nil {
		return nil, err
	}
	return w.written, nil
}

// formatG10 appends x as C's printf("%.10g") prints it: 10 significant
// digits, trailing zeros removed, exponent form when the exponent is below
// -4 or at least 10, with at least two exponent digits.
func formatG10(buf []byte, x float64) []byte {
	return strconv.AppendFloat(buf, x, 'g', 10, 64)
}
