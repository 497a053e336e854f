package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mkpoe/mkpoe/pkg/data"
)

// runData implements "mkpoe data prepare SET DIR [--out DIR]": derive the
// text files of a data set (aset400, lastfm, aloi) from the originals
// under the data tree DIR (laid out like data/), as the fetch scripts do
// after downloading them. The work is data.Prepare's.
func runData(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("data", stderr)
	out := fs.String("out", "", "data tree to write the derived files to (default: DIR itself)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: mkpoe data prepare SET DIR [--out OUT]

Derive the text files that the configs read from the public originals under
DIR, a data tree laid out like data/ (scripts/fetch_aset400.sh and
scripts/fetch_aloi.sh place the originals there and run this). SET is one of
%s:
  aset400  DIR/aset400/original/{music_triplets.mat,music_labels.mat,cblearn_musician_names.txt}
           -> aset400/{triplets.tsv,artists.tsv,genre_labels.tsv,genre_names.txt,SOURCE.txt}
  lastfm   DIR/lastfm-hetrec2011/artists.dat and the aset400 names
           -> lastfm-hetrec2011/{aset400_to_hetrec_artistID.tsv,SOURCE.txt}
  aloi     DIR/aloi10/original/ALOI_UIMC.mat
           -> aloi10/{view1..4 *.tsv,labels.tsv,subset_10x20_row_indices.tsv,SOURCE.txt}
The rules are in docs/datasets.md and in each SOURCE.txt.

Flags:
`, strings.Join(data.PrepareSets, ", "))
		fs.PrintDefaults()
	}
	// Flags may come before, between or after the positional arguments.
	var pos []string
	rest := args
	for {
		if err := parseFlags(fs, rest, 1<<30); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(pos) != 3 || pos[0] != "prepare" {
		fs.Usage()
		return usagef("usage: mkpoe data prepare SET DIR [--out OUT], got %q", strings.Join(pos, " "))
	}
	set, dir := pos[1], pos[2]
	known := false
	for _, s := range data.PrepareSets {
		known = known || s == set
	}
	if !known {
		return usagef("unknown data set %q: want one of %s", set, strings.Join(data.PrepareSets, ", "))
	}
	if _, err := os.Stat(filepath.Join(dir, "original")); err == nil {
		return usagef("%s holds original/: give the data tree that holds the data sets' folders (e.g. data), not a data set's folder", dir)
	}
	if *out == "" {
		*out = dir
	}
	written, err := data.Prepare(set, dir, *out)
	var fe *data.FileError
	if errors.As(err, &fe) {
		return badInput(err)
	}
	if err != nil {
		return err
	}
	for _, p := range written {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	return nil
}
