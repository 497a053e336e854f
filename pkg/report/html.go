package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"html/template"
	"io"
	"strings"
)

var htmlPage = template.Must(template.New("report").Funcs(template.FuncMap{"secs": seconds}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Name}}: mkpoe report</title>
<style>
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 1.8em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.92em; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #e3e3e3; text-align: right; }
th:first-child, td:first-child { text-align: left; }
thead th { border-bottom: 2px solid #888; }
table.kv td { text-align: left; }
table.details th:nth-child(-n+3), table.details td:nth-child(-n+3) { text-align: left; }
.paper { color: #777; font-style: italic; }
.unconverged { color: #b00000; }
.warnings { border-left: 4px solid #b00000; background: #fff4f4; padding: 0.4em 1em; }
.data { border-left: 4px solid #606060; background: #f6f6f6; padding: 0.4em 1em; }
.caption { font-size: 0.9em; color: #444; max-width: 900px; }
figure { margin: 1.2em 0; } figure img, figure svg { max-width: 100%; height: auto; border: 1px solid #eee; }
pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
</style>
</head>
<body>
<h1>{{.Name}}</h1>
<p>Report of the run in <code>{{.Source}}</code>{{if .Hash}} (config hash <code>{{.Hash}}</code>){{end}}, rebuilt from its result files by <code>mkpoe report</code>.
Reproduces the protocol of McFee &amp; Lanckriet, “Learning Multi-modal Similarity”, JMLR 12 (2011).</p>
{{if .Warnings}}
<div class="warnings"><b>Warnings</b><ul>
{{range .Warnings}}<li>{{.}}</li>
{{end}}</ul></div>{{end}}
{{if .DataNotes}}
<div class="data"><b>Data</b><ul>
{{range .DataNotes}}<li>{{.}}</li>
{{end}}</ul></div>{{end}}

<h2>Results</h2>
{{.Table}}

{{if .Claims}}<h2>Claims</h2>
<p class="caption">{{.ClaimsCaption}}</p>
<table class="details">
<thead><tr>{{range .ClaimHeader}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Claims}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}
<h2>Rows</h2>
<table class="details">
<thead><tr>{{range .DetailHeader}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Details}}<tr><td>{{.Label}}</td><td>{{.Method}}</td><td>{{.Kernels}}</td><td>{{.Accuracy}}</td><td>{{.HalfTies}}</td><td>{{.TieRate}}</td><td>{{.Beta}}</td><td>{{.Train}}</td><td>{{.Test}}</td><td>{{.Paper}}</td><td{{if .NotConverged}} class="unconverged"{{end}}>{{.Convergence}}</td></tr>
{{end}}</tbody>
</table>

<h2>Figures</h2>
{{range .Figures}}<figure id="{{.Name}}">
{{if .SVG}}{{.SVG}}{{else}}<img src="{{.Src}}" alt="{{.Title}}" width="{{.Width}}">{{end}}
<figcaption class="caption"><b>{{.Title}}.</b> {{.Caption}}</figcaption>
</figure>
{{end}}
<h2>Timings</h2>
<p>Total task time {{.Timings.Total | secs}} (sum over tasks; wall time is lower with parallel workers).</p>
<table>
<thead><tr><th>Task kind</th><th>Tasks</th><th>Time</th></tr></thead>
<tbody>
{{range .Timings.ByKind}}<tr><td>{{.Kind}}</td><td>{{.Tasks}}</td><td>{{.Seconds | secs}}</td></tr>
{{end}}</tbody>
</table>
{{if .Timings.Slowest}}<table>
<thead><tr><th>Slowest tasks</th><th>Time</th></tr></thead>
<tbody>
{{range .Timings.Slowest}}<tr><td>{{.ID}}</td><td>{{.Seconds | secs}}</td></tr>
{{end}}</tbody>
</table>{{end}}

<h2>Versions</h2>
<table class="kv">
<tbody>
{{range .Env}}<tr><td>{{.Key}}</td><td><code>{{.Value}}</code></td></tr>
{{end}}</tbody>
</table>

<h2>Configuration</h2>
{{if .Config}}<pre>{{.Config}}</pre>{{else}}<p>config.resolved.yaml was not found in the run directory.</p>{{end}}
</body>
</html>
`))

type htmlFigure struct {
	Name, Title, Caption string
	Src                  template.URL
	// SVG, if set, is the figure inline (the map: its points name
	// themselves on hover), shown instead of the PNG of Src.
	SVG   template.HTML
	Width int // CSS pixels (the PNG is rendered at Theme.DPI; shown at 96 dpi)
}

type kv struct{ Key, Value string }

// HTML writes one self-contained HTML page: the table, per-row details,
// every figure as an embedded PNG (data URI) but the map, which is inline
// SVG with a <title> per point (its name on hover; [Figure.HoverSVG]),
// timings, versions and the resolved config.
func (rep *Report) HTML(w io.Writer) error {
	var tb strings.Builder
	if err := rep.Table.HTML(&tb); err != nil {
		return err
	}
	data := struct {
		Name, Source, Hash string
		Table              template.HTML
		DetailHeader       []string
		Details            []detail
		ClaimHeader        []string
		Claims             [][]string
		ClaimsCaption      string
		Figures            []htmlFigure
		Timings            timingSummary
		Env                []kv
		Config             string
		Warnings           []string
		DataNotes          []string
	}{
		Name: rep.Run.Summary.Name, Source: rep.Source, Hash: rep.Run.Summary.ConfigHash,
		Table:        template.HTML(tb.String()), // built with html.EscapeString
		DetailHeader: detailHeader, Details: rep.details(),
		ClaimHeader: claimHeader, Claims: rep.claims(), ClaimsCaption: claimsCaption,
		Timings:   summariseTimings(rep.Run.Timings, 10),
		Config:    rep.Run.Config,
		Warnings:  rep.Warnings,
		DataNotes: rep.dataNotes(),
	}
	for _, f := range rep.Figures {
		hf := htmlFigure{Name: f.Name, Title: f.Title, Caption: f.Caption, Width: int(f.Width.Points() * 96 / 72)}
		if f.hover != nil {
			svg, err := inlineSVG(f)
			if err != nil {
				return err
			}
			hf.SVG = svg
		} else {
			hf.Src = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(rep.PNG[f.Name]))
		}
		data.Figures = append(data.Figures, hf)
	}
	for _, k := range sortedKeys(rep.Run.Env) {
		data.Env = append(data.Env, kv{k, rep.Run.Env[k]})
	}
	return htmlPage.Execute(w, data)
}

// inlineSVG is f's [Figure.HoverSVG] for inlining in HTML: from <svg> on
// (no XML declaration), labelled with the figure's title and shown
// Width CSS pixels wide at most.
func inlineSVG(f *Figure) (template.HTML, error) {
	var b bytes.Buffer
	if err := f.HoverSVG(&b); err != nil {
		return "", err
	}
	svg := b.String()
	start := strings.Index(svg, "<svg ")
	if start < 0 {
		return "", fmt.Errorf("report: %s: no <svg> element in the SVG", f.Name)
	}
	attrs := fmt.Sprintf(`<svg role="img" aria-label="%s" style="width: %dpx" `, html.EscapeString(f.Title), int(f.Width.Points()*96/72))
	// The SVG is our own backend's output with escaped text: safe to inline.
	return template.HTML(attrs + svg[start+len("<svg "):]), nil
}
