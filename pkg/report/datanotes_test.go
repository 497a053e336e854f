package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestDataNotes: the data notes of items.json (what the loader dropped or
// built, e.g. a clustered taxonomy) appear under "Data" at the top of the
// Markdown, HTML and notebook reports, escaped; a run without notes has no
// such section.
func TestDataNotes(t *testing.T) {
	note := "taxonomy [[1,[2,4,7],[3,5,6,10]],8,9] clustered from 879 images (unused_images) <i>"
	for _, notes := range [][]string{nil, {note}} {
		run := loadFixture(t)
		if run.Items == nil {
			t.Fatal("fixture has no items.json")
		}
		run.Items.Notes = notes
		rep, err := NewReport(run, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var md, html, nb bytes.Buffer
		if err := rep.Markdown(&md); err != nil {
			t.Fatal(err)
		}
		if err := rep.HTML(&html); err != nil {
			t.Fatal(err)
		}
		if err := rep.Notebook(&nb); err != nil {
			t.Fatal(err)
		}
		has := []bool{strings.Contains(md.String(), "**Data**"), strings.Contains(html.String(), `<div class="data">`), strings.Contains(nb.String(), "**Data**")}
		for i, h := range has {
			if h != (notes != nil) {
				t.Errorf("notes %q: format %d has a Data section = %v", notes, i, h)
			}
		}
		if notes == nil {
			continue
		}
		if !strings.Contains(md.String(), "- taxonomy [[1,[2,4,7],[3,5,6,10]],8,9] clustered from 879 images") {
			t.Errorf("Markdown lacks the note:\n%s", md.String())
		}
		if !strings.Contains(html.String(), "clustered from 879 images (unused_images) &lt;i&gt;") {
			t.Error("HTML lacks the escaped note")
		}
		if strings.Index(md.String(), "**Data**") > strings.Index(md.String(), "| ") {
			t.Error("Markdown: the Data section comes after the table, want it at the top")
		}
	}
}
