package data

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// LastFM holds Last.fm HetRec 2011 social-tag and listening data for the
// aset400 artists: our substitute for the Social-tags and Collaborative-
// filtering views of McFee & Lanckriet (2011, Sec. 5.2.1), which were
// crawled from Last.fm and the Celma (2008) user-artist graph and are not
// available. Row a of every slice is aset400 artist a (0-based).
//
// Present[a] is false for the artists with no HetRec match (33 of 412).
// Their tag and listening maps are empty; the paper fills the kernel rows and
// columns of artists missing from a view with the identity (Sec. 5.2.1,
// "Collaborative filtering"), which is the kernel builder's job.
type LastFM struct {
	Names       []string // aset400 name, as in the mapping file
	HetRecIDs   []int    // HetRec artistID, -1 if unmatched
	HetRecNames []string // HetRec artist name, "" if unmatched
	Present     []bool   // matched to a HetRec artist
	// TagCounts[a][tagID] is the number of tag assignments (user, tag) of tag
	// tagID to artist a in user_taggedartists.dat.
	TagCounts []map[int]float64
	// Users[a] lists, in increasing order, the ids of users who listened to
	// artist a (user_artists.dat): the binary user-artist matrix of the
	// paper's collaborative-filtering view, as sparse rows.
	Users [][]int
	// Listens[a][userID] is the listening count ("weight") of the user for
	// artist a; its keys are exactly Users[a].
	Listens []map[int]float64
	// TagNames maps tagID to its name, decoded from ISO-8859-1 (tags.dat).
	TagNames map[int]string
}

// Last.fm HetRec 2011 file names (layout of ../shared/data/lastfm-hetrec2011).
const (
	LastFMMappingFile = "aset400_to_hetrec_artistID.tsv"
	LastFMTagsFile    = "tags.dat"
	LastFMUserArtists = "user_artists.dat"
	LastFMUserTagged  = "user_taggedartists.dat"
)

// LoadLastFM reads the HetRec files in dir and returns them per aset400
// artist, in the order of the mapping file aset400_to_hetrec_artistID.tsv
// (aset400 index, aset400 name, HetRec artistID or empty, HetRec name).
// Rows of user_artists.dat and user_taggedartists.dat for artists not in
// the mapping are skipped. tags.dat is ISO-8859-1 and is decoded to UTF-8;
// the other files are UTF-8. Errors are [*FileError]s or wrap the I/O error
// with the path.
func LoadLastFM(dir string) (*LastFM, error) {
	lf := &LastFM{TagNames: map[int]string{}}
	byHetRec, err := lf.readMapping(dir)
	if err != nil {
		return nil, err
	}
	n := len(lf.Names)
	lf.TagCounts = make([]map[int]float64, n)
	lf.Listens = make([]map[int]float64, n)
	lf.Users = make([][]int, n)
	for a := range n {
		lf.TagCounts[a] = map[int]float64{}
		lf.Listens[a] = map[int]float64{}
	}

	path := filepath.Join(dir, LastFMTagsFile)
	err = readTabFile(path, false, func(line int, fs []string) error {
		if line == 1 && fs[0] == "tagID" {
			return nil
		}
		id, err := atoiField(path, line, fs, 1, "tagID")
		if err != nil {
			return err
		}
		if len(fs) != 2 {
			return fileErr(path, line, 0, "a tags line must have 2 tab-separated fields: tagID, tagValue", "%d fields", len(fs))
		}
		lf.TagNames[id] = latin1(fs[1])
		return nil
	})
	if err != nil {
		return nil, err
	}

	path = filepath.Join(dir, LastFMUserArtists)
	err = readTabFile(path, false, func(line int, fs []string) error {
		if line == 1 && fs[0] == "userID" {
			return nil
		}
		v, err := intFields(path, line, fs, "userID", "artistID", "weight")
		if err != nil {
			return err
		}
		if a, ok := byHetRec[v[1]]; ok {
			if _, dup := lf.Listens[a][v[0]]; dup {
				return fileErr(path, line, 0, "each (user, artist) pair must appear once", "user %d, artist %d", v[0], v[1])
			}
			lf.Listens[a][v[0]] = float64(v[2])
			lf.Users[a] = append(lf.Users[a], v[0])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, us := range lf.Users {
		sort.Ints(us)
	}

	path = filepath.Join(dir, LastFMUserTagged)
	err = readTabFile(path, false, func(line int, fs []string) error {
		if line == 1 && fs[0] == "userID" {
			return nil
		}
		v, err := intFields(path, line, fs, "userID", "artistID", "tagID", "day", "month", "year")
		if err != nil {
			return err
		}
		if a, ok := byHetRec[v[1]]; ok {
			if _, known := lf.TagNames[v[2]]; !known {
				return fileErr(path, line, 3, "tagID must be listed in "+LastFMTagsFile, "%d", v[2])
			}
			lf.TagCounts[a][v[2]]++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return lf, nil
}

// readMapping reads LastFMMappingFile into lf's Names, HetRecIDs,
// HetRecNames and Present, and returns the map from a HetRec artistID to
// its aset400 index (0-based).
func (lf *LastFM) readMapping(dir string) (map[int]int, error) {
	byHetRec := map[int]int{} // HetRec artistID -> aset400 index
	path := filepath.Join(dir, LastFMMappingFile)
	err := readTabFile(path, true, func(line int, fs []string) error {
		if len(fs) < 3 {
			return fileErr(path, line, 0, "a mapping line must have at least 3 tab-separated fields: aset400 index, name, HetRec artistID (may be empty)", "%d fields", len(fs))
		}
		idx, err := atoiField(path, line, fs, 1, "aset400 index")
		if err != nil {
			return err
		}
		a := len(lf.Names)
		if idx != a+1 {
			return fileErr(path, line, 1, fmt.Sprintf("aset400 indices must run 1, 2, ... in order (expected %d)", a+1), "%d", idx)
		}
		lf.Names = append(lf.Names, fs[1])
		id, name := -1, ""
		if strings.TrimSpace(fs[2]) != "" {
			if id, err = atoiField(path, line, fs, 3, "HetRec artistID"); err != nil {
				return err
			}
			if prev, dup := byHetRec[id]; dup {
				return fileErr(path, line, 3, fmt.Sprintf("a HetRec artist may be matched once (already matched to aset400 artist %d)", prev+1), "%d", id)
			}
			byHetRec[id] = a
			if len(fs) > 3 {
				name = fs[3]
			}
		}
		lf.HetRecIDs = append(lf.HetRecIDs, id)
		lf.HetRecNames = append(lf.HetRecNames, name)
		lf.Present = append(lf.Present, id >= 0)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return byHetRec, nil
}

// intFields parses a tab-separated line of exactly len(names) integers.
func intFields(path string, line int, fs []string, names ...string) ([]int, error) {
	if len(fs) != len(names) {
		return nil, fileErr(path, line, 0, fmt.Sprintf("line must have %d tab-separated fields: %s", len(names), strings.Join(names, ", ")), "%d fields", len(fs))
	}
	v := make([]int, len(fs))
	for c := range fs {
		x, err := atoiField(path, line, fs, c+1, names[c])
		if err != nil {
			return nil, err
		}
		v[c] = x
	}
	return v, nil
}

// latin1 decodes an ISO-8859-1 string: each byte is the code point U+00XX.
func latin1(s string) string {
	rs := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		rs[i] = rune(s[i])
	}
	return string(rs)
}
