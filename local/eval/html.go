package eval

import (
	"fmt"
	"html"
	"html/template"
	"io"
	"math"
	"strings"
)

// WriteHTML writes a self-contained report: no script, no stylesheet, no
// font or image from elsewhere; the charts are inline SVG.
func WriteHTML(w io.Writer, r Report, verdicts []Verdict) error {
	var scenes []Row
	for _, x := range r.Rows {
		if !strings.Contains(x.Name, ":") && x.Name != "all" {
			scenes = append(scenes, x)
		}
	}
	data := map[string]any{
		"R": r, "Verdicts": verdicts, "Failed": len(Failed(verdicts)),
		"Success": template.HTML(barChart(scenes, "success rate per scene", func(x Row) float64 { return x.SuccessRate }, "#2e7d32")),
		"Rates":   template.HTML(ratesChart(scenes)),
		"Latency": template.HTML(latencyChart(scenes)),
	}
	t, err := template.New("report").Funcs(template.FuncMap{"pct": pct, "ms": msStr, "tok": tokStr, "cost": costStr,
		"num": num, "fail": firstFailure, "join": strings.Join}).Parse(reportHTML)
	if err != nil {
		return err
	}
	return t.Execute(w, data)
}

const (
	chartW   = 720
	labelW   = 110
	barH     = 18
	barGap   = 6
	chartPad = 30
)

func barChart(rows []Row, title string, val func(Row) float64, colour string) string {
	h := chartPad + len(rows)*(barH+barGap) + 10
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="%s">`, chartW, h, html.EscapeString(title))
	fmt.Fprintf(&b, `<text x="0" y="16" font-size="14" font-weight="bold">%s</text>`, html.EscapeString(title))
	span := float64(chartW - labelW - 60)
	for i, x := range rows {
		y := chartPad + i*(barH+barGap)
		v := val(x)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="end">%s</text>`, labelW-6, y+13, html.EscapeString(x.Name))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="#eee"/>`, labelW, y, span, barH)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %s</title></rect>`, labelW, y, span*v, barH, colour, html.EscapeString(x.Name), pct(v))
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="12">%s</text>`, float64(labelW)+span+6, y+13, pct(v))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// ratesChart shows, per scene, the false-promise, validate-retry and
// tool-error rates side by side.
func ratesChart(rows []Row) string {
	series := []struct {
		name, colour string
		val          func(Row) float64
	}{
		{"false promise", "#c62828", func(x Row) float64 { return x.FalsePromiseRate }},
		{"validate retry", "#ef6c00", func(x Row) float64 { return x.ValidateRetryRate }},
		{"tool error", "#6a1b9a", func(x Row) float64 { return 1 - x.ToolSuccessRate }},
	}
	group := len(series)*8 + barGap
	h := chartPad + 20 + len(rows)*group + 10
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="rates per scene">`, chartW, h)
	b.WriteString(`<text x="0" y="16" font-size="14" font-weight="bold">rates per scene (per turn; tool error per call)</text>`)
	for i, s := range series {
		fmt.Fprintf(&b, `<rect x="%d" y="24" width="10" height="10" fill="%s"/><text x="%d" y="33" font-size="12">%s</text>`, labelW+i*130, s.colour, labelW+i*130+14, s.name)
	}
	span := float64(chartW - labelW - 180)
	for i, x := range rows {
		y := chartPad + 20 + i*group
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="end">%s</text>`, labelW-6, y+14, html.EscapeString(x.Name))
		for j, s := range series {
			v := s.val(x)
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="7" fill="%s"><title>%s %s: %s</title></rect>`, labelW, y+j*8, math.Max(span*v, 0.5), s.colour, html.EscapeString(x.Name), s.name, pct(v))
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11" fill="#555">%s / %s / %s</text>`, float64(labelW)+span+4, y+14,
			pct(x.FalsePromiseRate), pct(x.ValidateRetryRate), pct(1-x.ToolSuccessRate))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// latencyChart draws every turn's total time per scene as a tick on a
// shared logarithmic axis, with the P50 and P90 marked.
func latencyChart(rows []Row) string {
	lo, hi := math.Inf(1), 0.0
	for _, x := range rows {
		for _, v := range x.TotalMS {
			lo, hi = math.Min(lo, math.Max(v, 1)), math.Max(hi, v)
		}
	}
	if hi == 0 {
		return ""
	}
	lo = math.Pow(10, math.Floor(math.Log10(lo)))
	hi = math.Pow(10, math.Ceil(math.Log10(math.Max(hi, lo*10))))
	span := float64(chartW - labelW - 20)
	xOf := func(v float64) float64 {
		return float64(labelW) + span*(math.Log10(math.Max(v, lo))-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))
	}
	h := chartPad + len(rows)*(barH+barGap) + 30
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="latency per scene">`, chartW, h)
	b.WriteString(`<text x="0" y="16" font-size="14" font-weight="bold">total time per turn (log scale; ● P50, ▲ P90)</text>`)
	for d := lo; d <= hi*1.0001; d *= 10 {
		x := xOf(d)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/><text x="%.1f" y="%d" font-size="11" text-anchor="middle">%s</text>`,
			x, chartPad-4, x, h-24, x, h-10, msStr(d))
	}
	for i, x := range rows {
		y := chartPad + i*(barH+barGap)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="end">%s</text>`, labelW-6, y+13, html.EscapeString(x.Name))
		for _, v := range x.TotalMS {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#1565c0" stroke-opacity="0.45"/>`, xOf(v), y+2, xOf(v), y+barH-2)
		}
		if len(x.TotalMS) > 0 {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%d" r="4" fill="#0d47a1"><title>P50 %s</title></circle>`, xOf(x.TotalP50), y+barH/2, msStr(x.TotalP50))
			p90 := xOf(x.TotalP90)
			fmt.Fprintf(&b, `<path d="M%.1f %d l4 7 h-8 z" fill="#b71c1c"><title>P90 %s</title></path>`, p90, y+barH/2-4, msStr(x.TotalP90))
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
}

const reportHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Insight Edge eval</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}
table{border-collapse:collapse;margin:8px 0 20px}th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}
th:first-child,td:first-child{text-align:left}.fail{color:#b71c1c;font-weight:bold}.pass{color:#2e7d32}
.note{color:#555}details{margin:2px 0}code{font-size:12px}
</style></head><body>
<h1>Insight Edge eval</h1>
<p>{{.R.Started.Format "2006-01-02 15:04 UTC"}} · {{.R.Target}} · {{.R.Models}} · {{len .R.Cases}} cases in {{printf "%.1f" .R.Seconds}} s · protocol check: {{.R.Protocol}}
{{if .R.Tokens.Calls}} · {{.R.Tokens.Calls}} model calls, {{.R.Tokens.Prompt}} prompt + {{.R.Tokens.Completion}} completion tokens{{end}}</p>
{{if .Verdicts}}<h2>Acceptance rules (seed 000 §6) against the baseline: {{if .Failed}}<span class="fail">{{.Failed}} failing</span>{{else}}<span class="pass">all pass</span>{{end}}</h2>
<table><tr><th>rule</th><th>row</th><th>baseline</th><th>now</th><th></th></tr>
{{range .Verdicts}}<tr><td>{{.Rule}}</td><td>{{.Row}}</td><td>{{num .Baseline}}</td><td>{{num .Current}}</td>
<td>{{if .Watched}}<span class="note">watched</span>{{else if .Pass}}<span class="pass">pass</span>{{else}}<span class="fail">FAIL</span>{{end}} {{.Note}}</td></tr>{{end}}
</table>{{end}}
<h2>Per scene</h2>
<table><tr><th>scene</th><th>cases</th><th>success</th><th>false promise</th><th>tool success</th><th>validate retry</th><th>clarify/case</th><th>P50 total</th><th>P90 total</th><th>P50 first text</th><th>P90 first text</th><th>tokens/turn</th><th>cost/turn</th></tr>
{{range .R.Rows}}<tr><td>{{.Name}}</td><td>{{.Cases}}</td><td>{{pct .SuccessRate}}</td><td>{{pct .FalsePromiseRate}}</td><td>{{pct .ToolSuccessRate}}</td><td>{{pct .ValidateRetryRate}}</td><td>{{printf "%.2f" .ClarifyPerCase}}</td><td>{{ms .TotalP50}}</td><td>{{ms .TotalP90}}</td><td>{{ms .FirstTextP50}}</td><td>{{ms .FirstTextP90}}</td><td>{{tok .TokensPerTurn}}</td><td>{{cost .CostPerTurn}}</td></tr>{{end}}
</table>
<p>{{.Success}}</p><p>{{.Rates}}</p><p>{{.Latency}}</p>
<h2>Cases</h2>
{{range .R.Cases}}<details><summary>{{if .Pass}}<span class="pass">pass</span>{{else}}<span class="fail">FAIL</span>{{end}} <b>{{.ID}}</b> · {{.Scene}} · {{.Language}}{{if .Mode}} · {{.Mode}}{{end}}{{if not .Pass}} — {{fail .}}{{end}}</summary>
<ol>{{range .Turns}}<li><p><b>{{.Message}}</b></p><p>path {{.Path}} · {{ms .TotalMS}}{{if ge .FirstTextMS 0.0}} (first text {{ms .FirstTextMS}}){{end}} · parts {{join .Parts ", "}}{{if .ValidateRetry}} · validate retry{{end}}{{if .FalsePromise}} · <span class="fail">false promise</span>{{end}}</p>
<p>{{.Text}}</p>{{range .Files}}<p>file {{.Type}}, {{.Size}} bytes: {{if .Opens}}opens{{else}}<span class="fail">does not open</span>{{end}}{{if .Note}} ({{.Note}}){{end}}</p>{{end}}
{{range .Failures}}<p class="fail">{{.}}</p>{{end}}</li>{{end}}</ol></details>
{{end}}
</body></html>
`
