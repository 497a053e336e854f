package data

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLoadLastFMCounts(t *testing.T) {
	dir := fetchedData(t, "lastfm-hetrec2011")
	lf, err := LoadLastFM(dir)
	if err != nil {
		t.Fatal(err)
	}
	// HetRec's users (its readme: 1892), which the docs set against the
	// paper's 336,527: the distinct user ids of user_artists.dat.
	b, err := os.ReadFile(filepath.Join(dir, LastFMUserArtists))
	if err != nil {
		t.Fatal(err)
	}
	users := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		users[strings.SplitN(l, "\t", 2)[0]] = true
	}
	if len(users) != 1892 {
		t.Errorf("users in %s: got %d, want 1892", LastFMUserArtists, len(users))
	}
	// Counts from ../shared/data/lastfm-hetrec2011/SOURCE.txt: 379 of 412
	// matched, all 379 with listening and tag data; 11946 tags.
	if len(lf.Names) != 412 {
		t.Fatalf("artists: got %d, want 412", len(lf.Names))
	}
	present, withTags, withUsers := 0, 0, 0
	assignments, pairs := 0.0, 0
	for a := range lf.Names {
		for _, c := range lf.TagCounts[a] {
			assignments += c
			pairs++
		}
		if lf.Present[a] != (lf.HetRecIDs[a] >= 0) {
			t.Errorf("artist %d: Present %v but HetRec id %d", a+1, lf.Present[a], lf.HetRecIDs[a])
		}
		if lf.Present[a] {
			present++
		} else if len(lf.TagCounts[a]) > 0 || len(lf.Users[a]) > 0 {
			t.Errorf("unmatched artist %d (%s) has data", a+1, lf.Names[a])
		}
		if len(lf.TagCounts[a]) > 0 {
			withTags++
		}
		if len(lf.Users[a]) > 0 {
			withUsers++
		}
		if !slices.IsSorted(lf.Users[a]) || len(lf.Users[a]) != len(lf.Listens[a]) {
			t.Errorf("artist %d: users not sorted or not matching listens", a+1)
		}
		for _, u := range lf.Users[a] {
			if lf.Listens[a][u] <= 0 {
				t.Errorf("artist %d, user %d: listening count %v, want > 0", a+1, u, lf.Listens[a][u])
			}
		}
	}
	if present != 379 || withTags != 379 || withUsers != 379 {
		t.Errorf("got %d matched, %d with tags, %d with listeners; want 379 each", present, withTags, withUsers)
	}
	// The social-tag kernel's data (docs/datasets.md, docs/deviations.md):
	// 33,495 tag assignments to the matched artists, 14,174 distinct
	// (artist, tag) pairs, 37.4 distinct tags per artist.
	if assignments != 33495 || pairs != 14174 {
		t.Errorf("tag assignments to matched artists: got %v in %d (artist, tag) pairs, want 33495 in 14174", assignments, pairs)
	}
	if len(lf.TagNames) != 11946 {
		t.Errorf("tags: got %d, want 11946", len(lf.TagNames))
	}
	// tags.dat is ISO-8859-1: tag 2863 is the byte string "tropic\xe1lia".
	if got := lf.TagNames[2863]; got != "tropicália" {
		t.Errorf("tag 2863: got %q, want %q", got, "tropicália")
	}
	for id, s := range lf.TagNames {
		if !utf8.ValidString(s) {
			t.Fatalf("tag %d: invalid UTF-8 %q", id, s)
		}
	}
	if lf.TagNames[237] != "#1" {
		t.Errorf("tag 237: got %q, want \"#1\" ('#' is data in tags.dat)", lf.TagNames[237])
	}
	// Artist 3 (3_doors_down) is HetRec artist 472.
	if lf.HetRecIDs[2] != 472 || lf.HetRecNames[2] != "3 Doors Down" {
		t.Errorf("artist 3: got HetRec %d %q, want 472 \"3 Doors Down\"", lf.HetRecIDs[2], lf.HetRecNames[2])
	}
}

func TestLoadLastFMNamesMatchAset400(t *testing.T) {
	a, err := LoadAset400(fetchedData(t, "aset400"))
	if err != nil {
		t.Fatal(err)
	}
	lf, err := LoadLastFM(fetchedData(t, "lastfm-hetrec2011"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Names, lf.Names) {
		t.Errorf("aset400 names in the Last.fm mapping differ from artists.tsv")
	}
}
