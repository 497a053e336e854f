package data

import (
	"fmt"
	"math"
	"os"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// ReadFramesFile reads a frames file for the probability product kernel
// (McFee & Lanckriet 2011, Sec. 5.2.2: one GMM per song, fitted to its
// delta-MFCC frames): a text or .npy matrix whose first column is the
// 0-based item index and whose other columns are one frame. Rows may come
// in any order; an item's frames keep their file order. Every item
// 0..max needs at least one frame, so an index is at most the number of
// rows minus one. It returns one frames×D matrix per item.
//
// Errors name the file, and for text files the line and column of the
// offending index; for .npy files the row (0-based, as numpy counts).
func ReadFramesFile(path string) ([]*mat.Dense, error) {
	x, lines, err := readMatrixFileLines(path)
	if err != nil {
		return nil, err
	}
	r, c := x.Dims()
	if c < 2 {
		return nil, &FileError{File: path, Rule: "frames file needs an item index column and at least one value column", Value: fmt.Sprintf("%d column", c)}
	}
	at := func(row int) (line int, value string) {
		if lines != nil {
			return lines[row], ""
		}
		return 0, fmt.Sprintf(" in row %d", row)
	}
	byItem := make([][]float64, 0)
	for i := range r {
		id := x.At(i, 0)
		if id < 0 || id != math.Trunc(id) || id >= float64(r) {
			line, where := at(i)
			return nil, &FileError{File: path, Line: line, Col: 1,
				Rule:  fmt.Sprintf("item index must be an integer in [0, %d] (0-based; every item up to the largest index needs a frame, and the file has %d rows)", r-1, r),
				Value: strconv.FormatFloat(id, 'g', -1, 64) + where}
		}
		for int(id) >= len(byItem) {
			byItem = append(byItem, nil)
		}
		byItem[int(id)] = append(byItem[int(id)], x.RawRowView(i)[1:]...)
	}
	frames := make([]*mat.Dense, len(byItem))
	for id, v := range byItem {
		if len(v) == 0 {
			return nil, &FileError{File: path, Rule: fmt.Sprintf("every item 0..%d needs frames (item indices are 0-based)", len(byItem)-1), Value: fmt.Sprintf("none for item %d", id)}
		}
		frames[id] = mat.NewDense(len(v)/(c-1), c-1, v)
	}
	return frames, nil
}

// readMatrixFileLines is [ReadMatrixFile] that also returns the 1-based file
// line of every row of a text file (nil for .npy, which has no lines).
func readMatrixFileLines(path string) (*mat.Dense, []int, error) {
	if IsNPY(path) {
		x, err := ReadMatrixFile(path)
		return x, nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("data: reading matrix: %w", err)
	}
	defer f.Close()
	return readMatrixLines(f, path)
}
