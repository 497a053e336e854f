package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/png"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/vg"

	"github.com/mkpoe/mkpoe/pkg/cv"
	"github.com/mkpoe/mkpoe/pkg/mkpoe"
	"github.com/mkpoe/mkpoe/pkg/results"
)

func TestWeightSeries(t *testing.T) {
	run := loadFixture(t)
	m := run.Models["models/refit-r05-s00.json"]
	got, err := WeightSeries(m)
	if err != nil {
		t.Fatal(err)
	}
	// The diagonals written into testdata/run/models/refit-r05-s00.json.
	want := [][]float64{{1.0, 0.0, 0.5, 0.0, 2.0, 0.25}, {0.0, 0.1, 0.0, 0.0, 0.05, 0.0}}
	if len(got) != len(want) {
		t.Fatalf("%d blocks, want %d", len(got), len(want))
	}
	for p := range want {
		if !floats.Equal(got[p], want[p]) {
			t.Errorf("block %d: %v, want %v", p, got[p], want[p])
		}
	}
	if _, err := WeightSeries(run.Models["models/refit-r06-s00.json"]); err == nil {
		t.Error("WeightSeries accepted a full model")
	}
}

func TestValidationSeries(t *testing.T) {
	s := loadFixture(t).Summary
	for _, test := range []struct {
		row    int
		chosen []int
		curve0 []float64
	}{
		{1, []int{1, 2}, []float64{0.60, 0.75, 0.70}},
		{3, []int{0, 0}, []float64{0.58, 0.52, 0.51}},
		{5, []int{2, 2}, []float64{0.70, 0.80, 0.90}},
		{0, nil, nil}, // native: no sweep
	} {
		betas, curves, chosen := ValidationSeries(s, &s.Rows[test.row])
		if !floats.Equal(betas, []float64{1, 10, 100}) {
			t.Errorf("row %d: betas %v", test.row, betas)
		}
		if len(chosen) != len(test.chosen) || (len(chosen) > 0 && (chosen[0] != test.chosen[0] || chosen[1] != test.chosen[1])) {
			t.Errorf("row %d: chosen %v, want %v", test.row, chosen, test.chosen)
		}
		if test.curve0 != nil && !floats.Equal(curves[0], test.curve0) {
			t.Errorf("row %d: curve of split 0 %v, want %v", test.row, curves[0], test.curve0)
		}
	}
}

func TestObjectiveSeries(t *testing.T) {
	run := loadFixture(t)
	row := &run.Summary.Rows[5]
	tr := ObjectiveSeries(run, row)
	if len(tr) != 2 {
		t.Fatalf("%d traces, want one per split", len(tr))
	}
	// The fixture's traces are a·2⁻ⁱ + 1 with a = 100(r+s+1), 8+r values.
	for s, want0 := range []float64{601, 701} {
		if len(tr[s]) != 13 || tr[s][0] != want0 || tr[s][12] != 100*float64(6+s)/4096+1 {
			t.Errorf("split %d: trace %v", s, tr[s])
		}
	}
}

func TestMapSeries(t *testing.T) {
	run := loadFixture(t)
	m := run.Models["models/refit-r05-s01.json"]
	md, err := MapSeries(m, nil, run.Items, 1, &TSNESettings{Seed: 1, Iterations: 200})
	if err != nil {
		t.Fatal(err)
	}
	// Split 1 trains on items 2..7 (testdata/run/items.json).
	wantNames := []string{"gamma & co", "delta", "epsilon", "zeta", "eta", "theta"}
	wantLabels := []int{1, 2, 2, 2, 1, 2}
	for i := range wantNames {
		if md.Names[i] != wantNames[i] || md.Labels[i] != wantLabels[i] {
			t.Errorf("point %d: %q class %d, want %q class %d", i, md.Names[i], md.Labels[i], wantNames[i], wantLabels[i])
		}
	}
	if len(md.X) != 6 || len(md.Y) != 6 {
		t.Fatalf("%d×%d points, want 6", len(md.X), len(md.Y))
	}
	// Without items: no names, no labels.
	md, err = MapSeries(m, nil, nil, 1, &TSNESettings{Seed: 1, Iterations: 50})
	if err != nil || md.Labels != nil || md.Names[0] != "" {
		t.Errorf("without items: labels %v names %q err %v", md.Labels, md.Names, err)
	}
	// With the held-out items (split 1 holds out items 0 and 1): they follow
	// the training items, flagged, with their names and labels.
	held := mat.NewDense(2, m.Dim(), nil)
	for c := 0; c < m.Dim(); c++ {
		held.Set(0, c, m.Train.At(0, c)+0.01)
		held.Set(1, c, m.Train.At(5, c)-0.01)
	}
	md, err = MapSeries(m, held, run.Items, 1, &TSNESettings{Seed: 1, Iterations: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(md.X) != 8 || md.Held[5] || !md.Held[6] || !md.Held[7] {
		t.Fatalf("held-out flags %v for %d points, want 6 training then 2 held-out", md.Held, len(md.X))
	}
	if md.Names[6] != run.Items.Names[run.Items.Splits[1].Test[0]] || md.Labels[7] != run.Items.Labels[run.Items.Splits[1].Test[1]] {
		t.Errorf("held-out names/labels %q %v", md.Names[6:], md.Labels[6:])
	}
	if _, err := MapSeries(m, mat.NewDense(2, m.Dim()+1, nil), run.Items, 1, nil); err == nil {
		t.Error("a held-out embedding of the wrong width must be an error")
	}
}

func TestLabelSubset(t *testing.T) {
	th := DefaultTheme()
	// Ten points on one spot: only one name fits.
	md := &MapData{X: make([]float64, 10), Y: make([]float64, 10), Names: strings.Split("a,b,c,d,e,f,g,h,i,j", ",")}
	if got := LabelSubset(md, th, 400, 400, -1, 1, -1, 1); len(got) != 1 {
		t.Errorf("stacked points: %d names kept, want 1", len(got))
	}
	// Ten points far apart vertically: all fit.
	for i := range md.Y {
		md.Y[i] = float64(i) / 10
	}
	if got := LabelSubset(md, th, 400, 400, -0.5, 1, -0.1, 1); len(got) != 10 {
		t.Errorf("spread points: %d names kept, want 10", len(got))
	}
	// Kept boxes never overlap (random layout).
	n := 200
	md = &MapData{X: make([]float64, n), Y: make([]float64, n), Names: make([]string, n)}
	for i := 0; i < n; i++ {
		md.X[i], md.Y[i] = math.Sin(float64(i)*1.7), math.Cos(float64(i)*2.3)
		md.Names[i] = strings.Repeat("x", 3+i%9)
	}
	w, h := vg.Length(500), vg.Length(500)
	kept := LabelSubset(md, th, w, h, -1.2, 1.2, -1.2, 1.2)
	em := float64(th.PointLabel)
	box := func(i int) [4]float64 {
		x0 := (md.X[i]+1.2)*float64(w)/2.4 + 2*float64(th.GlyphRadius)
		y0 := (md.Y[i] + 1.2) * float64(h) / 2.4
		return [4]float64{x0, x0 + 0.55*em*float64(len(md.Names[i])), y0 - 0.6*em, y0 + 0.6*em}
	}
	for a := range kept {
		for b := a + 1; b < len(kept); b++ {
			p, q := box(kept[a]), box(kept[b])
			if p[0] < q[1] && q[0] < p[1] && p[2] < q[3] && q[2] < p[3] {
				t.Fatalf("names of points %d and %d overlap", kept[a], kept[b])
			}
		}
	}
	if len(kept) == 0 || len(kept) == n {
		t.Errorf("%d of %d names kept: expected a proper subset", len(kept), n)
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (logTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, test := range []struct {
		lo, hi float64
		want   string
	}{
		{1, 100, "1 2 5 10 20 50 100"},
		{1, 1000, "1 10 100 1000"},
		// Seven decades: every other one labelled, so labels never touch.
		{1, 1e6, "1 100 1e4 1e6"},
		{0.01, 1e7, "0.01 1 100 1e4 1e6"},
		{1, 1e4, "1 10 100 1000 1e4"},
		{0.88, 0.99, "0.9"}, // a single tick in range: every tick labelled
		{3, 9, "3 4 5 6 7 8 9"},
	} {
		if got := strings.Join(labels(test.lo, test.hi), " "); got != test.want {
			t.Errorf("ticks on [%g, %g]: %q, want %q", test.lo, test.hi, got, test.want)
		}
	}
}

// TestFiguresRender is an image smoke test: every figure of the fixture
// renders as a PNG of the expected pixel size that is not blank, and as SVG.
func TestFiguresRender(t *testing.T) {
	run := loadFixture(t)
	rep, err := NewReport(run, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range rep.Figures {
		names = append(names, f.Name)
	}
	want := "fig-validation fig-objective fig-weights-mkpoe-k4-diag-s00 fig-weights-mkpoe-k4-diag-s01 fig-map"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("figures %q, want %q", got, want)
	}
	th := DefaultTheme()
	for _, f := range rep.Figures {
		img, err := png.Decode(bytes.NewReader(rep.PNG[f.Name]))
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		wantW := int(math.Ceil(f.Width.Points() / 72 * float64(th.DPI)))
		wantH := int(math.Ceil(f.Height.Points() / 72 * float64(th.DPI)))
		if b := img.Bounds(); absInt(b.Dx()-wantW) > 1 || absInt(b.Dy()-wantH) > 1 {
			t.Errorf("%s: %d×%d pixels, want %d×%d", f.Name, b.Dx(), b.Dy(), wantW, wantH)
		}
		if frac := inkFraction(img); frac < 0.003 { // the 6-point map inks ~0.7%
			t.Errorf("%s: only %.4f of the pixels are not white", f.Name, frac)
		}
		var svg bytes.Buffer
		if err := f.Render(&svg, "svg", th.DPI); err != nil || !bytes.Contains(svg.Bytes(), []byte("<svg")) {
			t.Errorf("%s: SVG: %v", f.Name, err)
		}
	}
	if err := rep.Figures[0].Render(&bytes.Buffer{}, "gif", 96); err == nil {
		t.Error("Render accepted format gif")
	}
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// inkFraction is the fraction of pixels that are not (near) white.
func inkFraction(img image.Image) float64 {
	b := img.Bounds()
	ink := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				ink++
			}
		}
	}
	return float64(ink) / float64(b.Dx()*b.Dy())
}

func TestThinLog(t *testing.T) {
	y := make([]float64, 100000)
	for i := range y {
		y[i] = float64(i)
	}
	x, v := thinLog(y, 1500)
	if len(x) > 1501 || len(x) < 750 || // early log-spaced indices coincide
		x[0] != 1 || x[len(x)-1] != 100000 || v[len(v)-1] != 99999 {
		t.Errorf("%d points from %g to %g", len(x), x[0], x[len(x)-1])
	}
	for k := 1; k < len(x); k++ {
		if x[k] <= x[k-1] || v[k] != x[k]-1 {
			t.Fatalf("point %d: (%g, %g) after (%g, %g)", k, x[k], v[k], x[k-1], v[k-1])
		}
	}
	x, _ = thinLog([]float64{3, 2, 1}, 1500)
	if !floats.Equal(x, []float64{1, 2, 3}) {
		t.Errorf("short trace: %v", x)
	}
}

// TestValidationFigureMarksZeroModels: points where some inner folds fit
// W = 0 get a cross and the caption explains them; without such points
// neither appears.
func TestValidationFigureMarksZeroModels(t *testing.T) {
	s := loadFixture(t).Summary
	plain, err := ValidationFigure(s, DefaultTheme())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.Caption, "W = 0") {
		t.Errorf("caption explains W = 0 without any such fit: %q", plain.Caption)
	}
	s.Rows[3].ValZeroFolds = [][]int{{2, 0, 0}, {0, 0, 0}}
	marked, err := ValidationFigure(s, DefaultTheme())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(marked.Caption, "A cross marks β where the fit of some inner folds was W = 0") {
		t.Errorf("caption does not explain the cross: %q", marked.Caption)
	}
	// The cross is drawn: the rendered figures differ.
	var a, b bytes.Buffer
	if err := plain.Render(&a, "png", 72); err != nil {
		t.Fatal(err)
	}
	if err := marked.Render(&b, "png", 72); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the figure with W = 0 points renders like the one without")
	}
}

// TestValidationBand: a row whose inner folds scored known validation
// accuracies gets a band from the lowest to the highest fold at every β
// (hand-computed), drawn as one polygon per split under the mean line,
// and the caption says the band is min–max over the inner folds.
func TestValidationBand(t *testing.T) {
	s := loadFixture(t).Summary
	row := &s.Rows[1] // "A K1 diag", val_curve[0] = 0.60, 0.75, 0.70
	// Per split, per inner fold (3), the validation accuracy at β = 1, 10, 100.
	folds := [][][]float64{
		{{0.5, 0.75, 0.65}, {0.6, 0.70, 0.70}, {0.7, 0.80, 0.75}},
		{{0.55, 0.6, 0.78}, {0.55, 0.7, 0.78}, {0.55, 0.8, 0.78}},
	}
	wantLo := [][]float64{{0.5, 0.70, 0.65}, {0.55, 0.6, 0.78}}
	wantHi := [][]float64{{0.7, 0.80, 0.75}, {0.55, 0.8, 0.78}}
	plain, err := ValidationFigure(s, DefaultTheme())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.Caption, "min–max") {
		t.Errorf("caption mentions a band the summary does not record: %q", plain.Caption)
	}
	row.ValFoldMin, row.ValFoldMax = nil, nil
	for sp, f := range folds {
		if mean := cv.MeanCurve(f); !floats.EqualApprox(mean, row.ValCurve[sp], 1e-12) {
			t.Fatalf("split %d: folds average %v, fixture's val_curve %v", sp, mean, row.ValCurve[sp])
		}
		lo, hi := cv.FoldRange(f)
		row.ValFoldMin, row.ValFoldMax = append(row.ValFoldMin, lo), append(row.ValFoldMax, hi)
	}
	for sp := range folds {
		lo, hi := ValidationBand(row, sp)
		if !floats.Equal(lo, wantLo[sp]) || !floats.Equal(hi, wantHi[sp]) {
			t.Errorf("split %d: band %v – %v, want %v – %v", sp, lo, hi, wantLo[sp], wantHi[sp])
		}
	}
	if lo, hi := ValidationBand(row, 2); lo != nil || hi != nil {
		t.Errorf("split 2 (none): band %v %v", lo, hi)
	}
	if lo, hi := ValidationBand(&s.Rows[3], 0); lo != nil || hi != nil {
		t.Errorf("row without recorded folds: band %v %v", lo, hi)
	}
	// The polygon of split 0: the upper limits left to right, then the
	// lower ones right to left.
	pg, err := bandPolygon(s.BetaGrid, wantLo[0], wantHi[0], DefaultTheme().Color(0))
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]float64{{1, 0.7}, {10, 0.8}, {100, 0.75}, {100, 0.65}, {10, 0.7}, {1, 0.5}}
	if len(pg.XYs) != 1 || len(pg.XYs[0]) != len(want) {
		t.Fatalf("polygon %v, want one ring of %v", pg.XYs, want)
	}
	for i, w := range want {
		if p := pg.XYs[0][i]; p.X != w[0] || p.Y != w[1] {
			t.Errorf("polygon vertex %d = (%v, %v), want %v", i, p.X, p.Y, w)
		}
	}
	// A NaN limit drops its β; fewer than two β left: no band.
	if pg, _ := bandPolygon(s.BetaGrid, []float64{0.5, math.NaN(), 0.6}, []float64{0.7, 0.8, math.NaN()}, DefaultTheme().Color(0)); pg != nil {
		t.Errorf("band over one finite β: %v", pg.XYs)
	}
	banded, err := ValidationFigure(s, DefaultTheme())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(banded.Caption, "lowest to the highest validation accuracy among the 3 inner folds (min–max") {
		t.Errorf("caption does not explain the band: %q", banded.Caption)
	}
	// The band is drawn, in PNG and SVG alike.
	for _, format := range []string{"png", "svg"} {
		var a, b bytes.Buffer
		if err := plain.Render(&a, format, 72); err != nil {
			t.Fatal(err)
		}
		if err := banded.Render(&b, format, 72); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: the figure with bands renders like the one without", format)
		}
	}
}

func TestMapClasses(t *testing.T) {
	// labels gives the points' labels; want the groups as "name:size".
	rep := func(l int, n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = l
		}
		return out
	}
	var many []int // 12 labels: label l has l+1 points, so 11..3 are the largest nine
	for l := 0; l < 12; l++ {
		many = append(many, rep(l, l+1)...)
	}
	cases := []struct {
		name   string
		labels []int
		names  []string
		want   []string
	}{
		{"no labels", nil, nil, []string{":3"}},
		{"numbered, label order", []int{2, 1, 2}, nil, []string{"class 1:1", "class 2:2"}},
		{"named", []int{1, 0, 1, 2}, []string{"pop", "r&b", "none"}, []string{"pop:1", "r&b:2", "none:1"}},
		{"more than ten: largest nine, then other", many, nil, []string{"class 11:12", "class 10:11", "class 9:10", "class 8:9", "class 7:8",
			"class 6:7", "class 5:6", "class 4:5", "class 3:4", "other (3 classes):6"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := len(tc.labels)
			if n == 0 {
				n = 3
			}
			md := &MapData{X: make([]float64, n), Labels: tc.labels, LabelNames: tc.names}
			var got []string
			for _, c := range mapClasses(md) {
				got = append(got, fmt.Sprintf("%s:%d", c.Name, len(c.Points)))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("groups %q, want %q", got, tc.want)
			}
		})
	}
}

// hoverTitles parses an SVG with encoding/xml and returns the hover
// circles' centres and titles (the <g class="hover"> group).
func hoverTitles(t *testing.T, svg []byte) (cx, cy []float64, titles []string) {
	t.Helper()
	var doc struct {
		XMLName xml.Name `xml:"svg"`
		Groups  []struct {
			Class   string `xml:"class,attr"`
			Circles []struct {
				CX    float64 `xml:"cx,attr"`
				CY    float64 `xml:"cy,attr"`
				Title string  `xml:"title"`
			} `xml:"circle"`
		} `xml:"g"`
	}
	if err := xml.Unmarshal(svg, &doc); err != nil {
		t.Fatalf("the SVG is not valid XML: %v", err)
	}
	groups := 0
	for _, g := range doc.Groups {
		if g.Class != "hover" {
			continue
		}
		groups++
		for _, c := range g.Circles {
			cx, cy, titles = append(cx, c.CX), append(cy, c.CY), append(titles, c.Title)
		}
	}
	if groups != 1 {
		t.Fatalf("%d hover groups, want 1", groups)
	}
	return cx, cy, titles
}

func TestMapHoverSVG(t *testing.T) {
	run := loadFixture(t)
	run.Items.LabelNames = []string{"zero", "one & only", "two"}
	rep, err := NewReport(run, Options{})
	if err != nil {
		t.Fatal(err)
	}
	md := rep.Map
	if md == nil {
		t.Fatal("no map")
	}
	var f *Figure
	for _, g := range rep.Figures {
		if g.Name == "fig-map" {
			f = g
		}
	}
	var b bytes.Buffer
	if err := f.HoverSVG(&b); err != nil {
		t.Fatal(err)
	}
	cx, cy, titles := hoverTitles(t, b.Bytes())
	if len(titles) != len(md.X) {
		t.Fatalf("%d titles for %d points", len(titles), len(md.X))
	}
	// Training items of split 0 are 0..5, then the held-out 6 and 7
	// (testdata/run/items.json); XML escaping round-trips "&".
	want := []string{"alpha (one & only)", "beta_2 (one & only)", "gamma & co (one & only)", "delta (two)", "epsilon (two)", "zeta (two)"}
	if md.Held[len(md.X)-1] {
		want = append(want, "eta (one & only, held out)", "theta (two, held out)")
	}
	if strings.Join(titles, "|") != strings.Join(want, "|") {
		t.Errorf("titles %q, want %q", titles, want)
	}
	// The circles sit where the points are: the map's x order is the
	// SVG's, and its y order reversed (SVG y points down).
	for i := range md.X {
		for j := range md.X {
			if md.X[i] < md.X[j] && !(cx[i] < cx[j]) || md.Y[i] < md.Y[j] && !(cy[i] > cy[j]) {
				t.Fatalf("points %d and %d: map (%g,%g) (%g,%g), SVG (%g,%g) (%g,%g)", i, j, md.X[i], md.Y[i], md.X[j], md.Y[j], cx[i], cy[i], cx[j], cy[j])
			}
		}
	}
	// Each circle is centred on a glyph gonum drew: circle glyphs are paths
	// "M x+r,y A r,r 0 1 1 …" in the flipped (y up) coordinates.
	glyph := regexp.MustCompile(`<path d="M([-0-9.]+),([-0-9.]+)A([0-9.]+),`)
	var gx, gy []float64
	for _, m := range glyph.FindAllSubmatch(b.Bytes(), -1) {
		x, _ := strconv.ParseFloat(string(m[1]), 64)
		y, _ := strconv.ParseFloat(string(m[2]), 64)
		r, _ := strconv.ParseFloat(string(m[3]), 64)
		gx, gy = append(gx, x-r), append(gy, f.Height.Points()-y)
	}
	for i := range cx {
		best := math.Inf(1)
		for j := range gx {
			best = math.Min(best, math.Hypot(cx[i]-gx[j], cy[i]-gy[j]))
		}
		if best > 0.02 {
			t.Errorf("hover circle %d at (%g,%g) is %g pt from the nearest drawn point", i, cx[i], cy[i], best)
		}
	}
	for i := range cx {
		if cx[i] <= 0 || cx[i] >= f.Width.Points() || cy[i] <= 0 || cy[i] >= f.Height.Points() {
			t.Errorf("point %d at (%g,%g), outside the %g×%g figure", i, cx[i], cy[i], f.Width.Points(), f.Height.Points())
		}
	}
	// The legend names the classes.
	if !bytes.Contains(b.Bytes(), []byte(">one &amp; only<")) || !bytes.Contains(b.Bytes(), []byte(">two<")) {
		t.Error("the SVG's legend does not name the classes")
	}
	// Other figures have no hover group.
	var v bytes.Buffer
	if err := rep.Figures[0].HoverSVG(&v); err != nil || bytes.Contains(v.Bytes(), []byte(`class="hover"`)) {
		t.Errorf("%s: %v, or a hover group", rep.Figures[0].Name, err)
	}
}

func TestMapPointTitle(t *testing.T) {
	md := &MapData{X: make([]float64, 3), Names: []string{"Madonna", "", " "}, Items: []int{7, 8, 9},
		Labels: []int{0, 1, 5}, LabelNames: []string{"pop", "r&b"}, Held: []bool{false, true, false}}
	want := []string{"Madonna (pop)", "item 8 (r&b, held out)", "item 9 (class 5)"}
	for i, w := range want {
		if got := md.pointTitle(i); got != w {
			t.Errorf("point %d: %q, want %q", i, got, w)
		}
	}
	bare := &MapData{X: make([]float64, 1), Names: []string{""}}
	if got := bare.pointTitle(0); got != "point 0" {
		t.Errorf("no names, items or labels: %q, want \"point 0\"", got)
	}
}

// TestMapSeriesSubset: above MaxMapPoints items the map shows an evenly
// spaced subset of them, training and held-out in proportion, each point
// with its own item, name and held-out flag, and the caption says so; up
// to MaxMapPoints it shows every item.
func TestMapSeriesSubset(t *testing.T) {
	for _, tc := range []struct {
		n, held, want, wantHeld int
	}{
		{n: 40, held: 10, want: 50, wantHeld: 10},
		{n: 4000, held: 1000, want: MaxMapPoints, wantHeld: 400},
	} {
		t.Run(fmt.Sprintf("n%d_held%d", tc.n, tc.held), func(t *testing.T) {
			train := mat.NewDense(tc.n, 2, nil)
			for i := 0; i < tc.n; i++ {
				train.Set(i, 0, float64(i))
				train.Set(i, 1, math.Sin(float64(i)))
			}
			held := mat.NewDense(tc.held, 2, nil)
			for i := 0; i < tc.held; i++ {
				held.Set(i, 0, -float64(i))
			}
			items := &results.Items{Splits: []results.Split{{}}}
			for i := 0; i < tc.n+tc.held; i++ {
				items.Names = append(items.Names, fmt.Sprintf("p%d", i))
			}
			for i := 0; i < tc.n; i++ {
				items.Splits[0].Train = append(items.Splits[0].Train, i)
			}
			for i := tc.n; i < tc.n+tc.held; i++ {
				items.Splits[0].Test = append(items.Splits[0].Test, i)
			}
			md, err := MapSeries(&mkpoe.Model{N: tc.n, Train: train}, held, items, 0, &TSNESettings{Seed: 1, Iterations: 3})
			if err != nil {
				t.Fatal(err)
			}
			heldCount := 0
			for k := range md.X {
				g := md.Items[k]
				if md.Names[k] != fmt.Sprintf("p%d", g) || md.Held[k] != (g >= tc.n) || (k > 0 && g <= md.Items[k-1]) {
					t.Fatalf("point %d: item %d %q held %v", k, g, md.Names[k], md.Held[k])
				}
				if md.Held[k] {
					heldCount++
				}
			}
			if len(md.X) != tc.want || heldCount != tc.wantHeld || md.Of != tc.n+tc.held || md.Items[0] != 0 {
				t.Errorf("%d points (%d held out) of %d, first item %d; want %d (%d) of %d", len(md.X), heldCount, md.Of, md.Items[0], tc.want, tc.wantHeld, tc.n+tc.held)
			}
			f, err := MapFigure(&results.Row{Label: "GNMDS"}, 0, md, DefaultTheme())
			if err != nil {
				t.Fatal(err)
			}
			if sub := strings.Contains(f.Caption, "evenly spaced subset"); sub != (tc.want < tc.n+tc.held) {
				t.Errorf("caption %q: mentions a subset %v", f.Caption, sub)
			}
		})
	}
}

// TestLogAxisAtOneValue: a grid of one β at 1 (which a config may give)
// draws its validation figures, alone and compared, without gonum's ±1
// widening of a flat range reaching 0 on the log axis (a panic before
// padLogX), and results.Summary.Validate refuses a grid that does not
// increase, which no run writes.
func TestLogAxisAtOneValue(t *testing.T) {
	s := loadFixture(t).Summary
	s.BetaGrid = []float64{1}
	first := func(v [][]float64) [][]float64 {
		for i := range v {
			v[i] = v[i][:1]
		}
		return v
	}
	for i := range s.Rows {
		r := &s.Rows[i]
		r.ValCurve, r.ValFoldMin, r.ValFoldMax = first(r.ValCurve), first(r.ValFoldMin), first(r.ValFoldMax)
		for j := range r.ValZeroFolds {
			r.ValZeroFolds[j] = r.ValZeroFolds[j][:1]
		}
	}
	if err := s.Validate(); err != nil {
		t.Fatalf("a one-β grid: %v", err)
	}
	f, err := ValidationFigure(s, DefaultTheme())
	if err != nil || f == nil {
		t.Fatalf("ValidationFigure: %v, %v", f, err)
	}
	if err := f.Render(&bytes.Buffer{}, "png", 72); err != nil {
		t.Fatal(err)
	}
	a, b := loadFixture(t), loadFixture(t)
	a.Summary, b.Summary = s, s
	c, err := NewComparison([]CompareRun{{Name: "a", Run: a}, {Name: "b", Run: b}}, nil)
	if err != nil || len(c.PNG) == 0 {
		t.Fatalf("NewComparison: %v (PNG %d bytes)", err, len(c.PNG))
	}
	for _, grid := range [][]float64{{1, 1, 1}, {10, 1, 100}} {
		s.BetaGrid = grid
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "must be above beta_grid") {
			t.Errorf("Validate(beta_grid %v) = %v, want a grid that must increase", grid, err)
		}
	}
}
