package data

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sharedData returns ../shared/data beside the repository (the curators'
// copy of the originals and of the derived files), or skips.
func sharedData(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "data")
	if _, err := os.Stat(filepath.Join(dir, Aset400Dir, "original")); err != nil {
		t.Skipf("../shared/data not available (%v): the originals and the curators' derived files live there", err)
	}
	return dir
}

// derivedFiles lists, per data set name of Prepare, the files it derives
// (SOURCE.txt aside) relative to the data root.
var derivedFiles = map[string][]string{
	"aset400": {"aset400/triplets.tsv", "aset400/artists.tsv", "aset400/genre_labels.tsv", "aset400/genre_names.txt"},
	"lastfm":  {"lastfm-hetrec2011/aset400_to_hetrec_artistID.tsv"},
	"aloi": {"aloi10/view1_64d_hist_sum1.tsv", "aloi10/view2_64d_hist_sum1.tsv", "aloi10/view3_77d.tsv",
		"aloi10/view4_13d_haralick_like.tsv", "aloi10/labels.tsv", "aloi10/subset_10x20_row_indices.tsv"},
}

// TestPrepareMatchesShared derives every file from the originals in
// ../shared/data into a temporary directory and compares it with the
// curators' file byte for byte, then value for value through the loaders.
func TestPrepareMatchesShared(t *testing.T) {
	shared := sharedData(t)
	out := t.TempDir()
	for _, set := range PrepareSets {
		written, err := Prepare(set, shared, out)
		if err != nil {
			t.Fatalf("Prepare(%s): %v", set, err)
		}
		if len(written) != len(derivedFiles[set])+1 || filepath.Base(written[len(written)-1]) != "SOURCE.txt" {
			t.Errorf("Prepare(%s) wrote %v, want %v and SOURCE.txt", set, written, derivedFiles[set])
		}
		for _, rel := range derivedFiles[set] {
			got, err := os.ReadFile(filepath.Join(out, rel))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(shared, rel))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
				for i := range min(len(gl), len(wl)) {
					if gl[i] != wl[i] {
						t.Errorf("%s differs from the shared file at line %d:\n got %.200q\nwant %.200q", rel, i+1, gl[i], wl[i])
						break
					}
				}
				t.Errorf("%s: %d bytes, shared file %d bytes", rel, len(got), len(want))
			}
		}
	}

	// Value for value: the loaders read the same data from both trees.
	// (The HetRec .dat files are not derived: link them beside the mapping.)
	for _, f := range []string{"artists.dat", "tags.dat", "user_artists.dat", "user_taggedartists.dat"} {
		abs, _ := filepath.Abs(filepath.Join(shared, LastFMDir, f))
		if err := os.Symlink(abs, filepath.Join(out, LastFMDir, f)); err != nil {
			t.Fatal(err)
		}
	}
	a1, err := LoadAset400(filepath.Join(out, Aset400Dir))
	if err != nil {
		t.Fatal(err)
	}
	a2, err := LoadAset400(filepath.Join(shared, Aset400Dir))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(a1.Names, ",") != strings.Join(a2.Names, ",") || strings.Join(a1.DisplayNames, ",") != strings.Join(a2.DisplayNames, ",") ||
		len(a1.Comparisons) != 9090 || len(a1.Comparisons) != len(a2.Comparisons) || !mat.Equal(a1.GenreLabels, a2.GenreLabels) ||
		strings.Join(a1.GenreNames, ",") != strings.Join(a2.GenreNames, ",") {
		t.Error("aset400: the derived files load differently from the shared ones")
	}
	for i := range a1.Comparisons {
		if a1.Comparisons[i] != a2.Comparisons[i] || a1.MusicSeerIDs[i%412] != a2.MusicSeerIDs[i%412] {
			t.Fatalf("aset400: comparison %d: %v, shared %v", i, a1.Comparisons[i], a2.Comparisons[i])
		}
	}
	l1, err := LoadLastFM(filepath.Join(out, LastFMDir))
	if err != nil {
		t.Fatal(err)
	}
	l2, err := LoadLastFM(filepath.Join(shared, LastFMDir))
	if err != nil {
		t.Fatal(err)
	}
	matched := 0
	for i := range l1.HetRecIDs {
		if l1.HetRecIDs[i] != l2.HetRecIDs[i] || l1.HetRecNames[i] != l2.HetRecNames[i] {
			t.Errorf("lastfm: artist %d %s: HetRec %d %q, shared %d %q", i+1, l1.Names[i], l1.HetRecIDs[i], l1.HetRecNames[i], l2.HetRecIDs[i], l2.HetRecNames[i])
		}
		if l1.Present[i] {
			matched++
		}
	}
	if matched != 379 {
		t.Errorf("lastfm: %d artists matched, want 379 (SOURCE.txt)", matched)
	}
	d1, err := LoadALOI(filepath.Join(out, ALOIDir))
	if err != nil {
		t.Fatal(err)
	}
	d2, err := LoadALOI(filepath.Join(shared, ALOIDir))
	if err != nil {
		t.Fatal(err)
	}
	for v := range d1.Views {
		if !mat.Equal(d1.Views[v], d2.Views[v]) {
			t.Errorf("aloi: view %d differs", v+1)
		}
	}
	for i := range d2.Labels {
		if d1.Labels[i] != d2.Labels[i] {
			t.Fatalf("aloi: label %d: %d, shared %d", i+1, d1.Labels[i], d2.Labels[i])
		}
	}
}

// FuzzPrepareTextOriginals: any bytes are read as cblearn's name list and
// as HetRec's artists.dat or rejected with an error naming the file and
// line, never a panic; what is read holds no whitespace in a name (list)
// and integer ids under non-empty keys (artists.dat).
func FuzzPrepareTextOriginals(f *testing.F) {
	f.Add([]byte("112 5\n311 21\na_new_found_glory 3\nzz_top 6027"))
	f.Add([]byte("id\tname\turl\tpictureURL\n1\tMALICE MIZER\thttp://x\thttp://y\n289\tBritney Spears\t\t\n9374\tBritney Spears㞦\t\t\n"))
	f.Add([]byte("x\n\r\n\t\t\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		names, err := readCblearnNames("names.txt", b)
		if err != nil && !strings.Contains(err.Error(), "names.txt") {
			t.Fatalf("error %q does not name the file", err)
		}
		for _, a := range names {
			if a.name == "" || strings.ContainsAny(a.name, " \t\n") || a.name == cblearnExtra {
				t.Fatalf("name %q accepted", a.name)
			}
		}
		byKey, _, err := readHetRecArtists("artists.dat", b)
		if err != nil {
			if !strings.Contains(err.Error(), "artists.dat:") {
				t.Fatalf("error %q does not name the file and line", err)
			}
			return
		}
		for k, h := range byKey {
			if k == "" || hetrecKey(h.name) != k || strings.TrimLeft(k, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
				t.Fatalf("artist %+v under key %q", h, k)
			}
		}
	})
}

func TestHetRecKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"3 Doors Down", "3doorsdown"},
		{"3_doors_down", "3doorsdown"},
		{"The Prodigy", "prodigy"},
		{"the_beatles", "beatles"},
		{"Theatre of Tragedy", "theatreoftragedy"},
		{"Simon & Garfunkel", "simonandgarfunkel"},
		{"Mýa", "mya"},
		{"Blink 182攀", "blink182"},
		{"*NSYNC", "nsync"},
		{"Sisqó", "sisqo"},
	} {
		if got := hetrecKey(tc.in); got != tc.want {
			t.Errorf("hetrecKey(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestPrepareBadOriginals: originals of the wrong shape give a FileError
// naming the file and the rule (the command line exits 2 on it).
func TestPrepareBadOriginals(t *testing.T) {
	root := t.TempDir()
	write := func(rel string, b []byte) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// ALOI_UIMC.mat: a v7.3 file whose X is a 2×3 double, not a cell of views.
	write(filepath.Join(ALOIDir, ALOIMat), synthV73())
	_, err := Prepare("aloi", root, t.TempDir())
	var fe *FileError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "ALOI_UIMC.mat: MAT-file must hold the variable X") {
		t.Errorf("aloi: got %v, want a FileError: no variable X", err)
	}
	// cblearn's list with a line of three fields.
	write(filepath.Join(Aset400Dir, Aset400CblearnList), []byte("112 5\nzz top 6027\n"))
	_, err = Prepare("aset400", root, t.TempDir())
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), `cblearn_musician_names.txt:2: a cblearn name line must be "name musicseer_id", got 3 fields`) {
		t.Errorf("aset400: got %v, want a FileError at line 2", err)
	}
	// The right number of names but in another order than the display-name table.
	var names bytes.Buffer
	_, tableNames, _ := displayNames()
	for i := range tableNames {
		fmt.Fprintf(&names, "%s %d\n", tableNames[len(tableNames)-1-i], i)
	}
	write(filepath.Join(Aset400Dir, Aset400CblearnList), names.Bytes())
	_, err = Prepare("lastfm", root, t.TempDir())
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), `artist 1 must be "112" as in the display-name table, got "zz_top"`) {
		t.Errorf("lastfm: got %v, want a FileError on artist 1", err)
	}
	// A matrix variable where a matrix cannot be: triplets as a cell.
	write(filepath.Join(Aset400Dir, Aset400CblearnList), func() []byte {
		var b bytes.Buffer
		for i, n := range tableNames {
			fmt.Fprintf(&b, "%s %d\n", n, i)
		}
		return b.Bytes()
	}())
	b := newH5builder()
	b.dataset("triplets", "cell", datatypeMsg(7, 0, 8), nil, 0, 0)
	write(filepath.Join(Aset400Dir, Aset400TripletsMat), b.file())
	_, err = Prepare("aset400", root, t.TempDir())
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "music_triplets.mat: the variable must be a non-empty numeric matrix") {
		t.Errorf("aset400 triplets: got %v, want a FileError: not a matrix", err)
	}
}
