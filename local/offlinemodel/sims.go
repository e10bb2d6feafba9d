package offlinemodel

import (
	"fmt"
	"html"
	"strings"
)

// Physics demonstrations: "做一个演示自由落体的互动网页" gets a real simulation
// (generate_interactive_html), not a template: a canvas animation driven by
// the motion's equations, controls for its quantities, a time slider, and a
// read-out of the computed values. The stand-in knows three motions; other
// page requests use the templates.

// simulation is one motion the stand-in can demonstrate.
type simulation struct {
	key   string
	title [2]string // zh, en: the topic as a heading
	intro [2]string
	// inputs are the controls: id, label (zh, en), value, min, max, step.
	inputs []simInput
	// readouts are the computed values shown: id, label (zh, en).
	readouts [][3]string
	// script defines params(), end(p), at(t, p) → values by readout id,
	// and draw(ctx, w, h, p, s).
	script string
}

type simInput struct {
	id     string
	label  [2]string
	value  string
	min    string
	max    string
	step   string
	choice [][3]string // a select: value, label zh, label en
}

// gravityInput is g, chosen among bodies of the solar system.
func gravityInput() simInput {
	return simInput{id: "gravity", label: [2]string{"重力加速度 g (m/s²)", "gravity g (m/s²)"}, value: "9.8",
		choice: [][3]string{{"9.8", "地球 9.8", "Earth 9.8"}, {"1.62", "月球 1.62", "Moon 1.62"}, {"3.71", "火星 3.71", "Mars 3.71"}, {"24.79", "木星 24.79", "Jupiter 24.79"}}}
}

// simulationFor names the motion a topic asks to demonstrate.
func simulationFor(topic string) (simulation, bool) {
	low := strings.ToLower(topic)
	switch {
	case containsAny(low, "自由落体", "free fall", "free-fall", "falling object", "falling body"):
		return freeFall(), true
	case containsAny(low, "平抛", "斜抛", "抛体", "抛物运动", "projectile"):
		return projectile(), true
	case containsAny(low, "单摆", "摆动", "pendulum"):
		return pendulum(), true
	}
	return simulation{}, false
}

func freeFall() simulation {
	return simulation{
		key: "free-fall", title: [2]string{"自由落体", "Free fall"},
		intro: [2]string{"小球从高度 h 处由静止释放，忽略空气阻力：下落距离 d = ½gt²，速度 v = gt，落地时间 T = √(2h/g)。改变高度和 g，点「开始」观察，或拖动时间滑块逐时刻查看。",
			"A ball is released from rest at height h, with no air resistance: it falls d = ½gt², its speed is v = gt, and it lands after T = √(2h/g). Change the height and g, press Start, or drag the time slider to any moment."},
		inputs: []simInput{
			{id: "height", label: [2]string{"高度 h (m)", "height h (m)"}, value: "20", min: "1", max: "100", step: "1"},
			gravityInput(),
		},
		readouts: [][3]string{{"t", "时间 t (s)", "time t (s)"}, {"fallen", "下落距离 d = ½gt² (m)", "distance fallen d = ½gt² (m)"},
			{"above", "离地高度 (m)", "height above ground (m)"}, {"speed", "速度 v = gt (m/s)", "speed v = gt (m/s)"},
			{"landing", "落地时间 T = √(2h/g) (s)", "landing time T = √(2h/g) (s)"}},
		script: `
  function params() {
    var h = Math.min(100, Math.max(1, num('height', 20)));
    return { h: h, g: num('gravity', 9.8) };
  }
  function end(p) { return Math.sqrt(2 * p.h / p.g); }
  function at(t, p) {
    var d = Math.min(p.h, 0.5 * p.g * t * t);
    return { t: t, fallen: d, above: p.h - d, speed: p.g * t, landing: end(p) };
  }
  function draw(c, w, hgt, p, s) {
    var top = 30, bottom = hgt - 30, y = top + (bottom - top) * s.fallen / p.h;
    c.fillStyle = '#eef4fb'; c.fillRect(0, 0, w, hgt);
    c.fillStyle = '#8a6d3b'; c.fillRect(0, bottom + 10, w, 20);
    c.strokeStyle = '#999'; c.beginPath(); c.moveTo(60, top); c.lineTo(60, bottom + 10); c.stroke();
    c.fillStyle = '#333'; c.font = '12px sans-serif';
    for (var i = 0; i <= 4; i++) {
      var yy = top + (bottom - top) * i / 4;
      c.fillText((p.h * (1 - i / 4)).toFixed(0) + ' m', 8, yy + 4);
    }
    c.fillStyle = '#d9534f'; c.beginPath(); c.arc(w / 2, y, 12, 0, 2 * Math.PI); c.fill();
  }`,
	}
}

func projectile() simulation {
	return simulation{
		key: "projectile", title: [2]string{"抛体运动", "Projectile motion"},
		intro: [2]string{"小球以初速度 v₀、与水平方向成 θ 角从地面抛出，忽略空气阻力：x = v₀cosθ·t，y = v₀sinθ·t − ½gt²；飞行时间 T = 2v₀sinθ/g，射程 R = v₀²sin2θ/g，最大高度 H = v₀²sin²θ/(2g)。θ = 0 时从高处平抛见「平抛高度」。",
			"A ball is launched from the ground at speed v₀ and angle θ, with no air resistance: x = v₀cosθ·t, y = v₀sinθ·t − ½gt²; time of flight T = 2v₀sinθ/g, range R = v₀²sin2θ/g, maximum height H = v₀²sin²θ/(2g)."},
		inputs: []simInput{
			{id: "speed0", label: [2]string{"初速度 v₀ (m/s)", "launch speed v₀ (m/s)"}, value: "20", min: "1", max: "50", step: "1"},
			{id: "angle", label: [2]string{"抛射角 θ (°)", "launch angle θ (°)"}, value: "45", min: "5", max: "85", step: "1"},
			gravityInput(),
		},
		readouts: [][3]string{{"t", "时间 t (s)", "time t (s)"}, {"x", "水平位移 x (m)", "horizontal distance x (m)"}, {"y", "高度 y (m)", "height y (m)"},
			{"vy", "竖直速度 vᵧ (m/s)", "vertical velocity vᵧ (m/s)"}, {"flight", "飞行时间 T (s)", "time of flight T (s)"},
			{"range", "射程 R (m)", "range R (m)"}, {"peak", "最大高度 H (m)", "maximum height H (m)"}},
		script: `
  function params() {
    var v = Math.min(50, Math.max(1, num('speed0', 20)));
    var a = Math.min(85, Math.max(5, num('angle', 45))) * Math.PI / 180;
    return { v: v, a: a, g: num('gravity', 9.8) };
  }
  function end(p) { return 2 * p.v * Math.sin(p.a) / p.g; }
  function at(t, p) {
    var vx = p.v * Math.cos(p.a), vy0 = p.v * Math.sin(p.a);
    return { t: t, x: vx * t, y: Math.max(0, vy0 * t - 0.5 * p.g * t * t), vy: vy0 - p.g * t,
      flight: end(p), range: p.v * p.v * Math.sin(2 * p.a) / p.g, peak: vy0 * vy0 / (2 * p.g) };
  }
  function draw(c, w, hgt, p, s) {
    var R = p.v * p.v * Math.sin(2 * p.a) / p.g, H = Math.pow(p.v * Math.sin(p.a), 2) / (2 * p.g);
    var scale = Math.min((w - 40) / Math.max(R, 1), (hgt - 60) / Math.max(H, 1));
    var ox = 20, oy = hgt - 30;
    c.fillStyle = '#eef4fb'; c.fillRect(0, 0, w, hgt);
    c.fillStyle = '#6b8e23'; c.fillRect(0, oy, w, 30);
    c.strokeStyle = '#9bb'; c.setLineDash([4, 4]); c.beginPath();
    for (var i = 0; i <= 40; i++) {
      var q = at(end(p) * i / 40, p);
      if (i === 0) { c.moveTo(ox + q.x * scale, oy - q.y * scale); } else { c.lineTo(ox + q.x * scale, oy - q.y * scale); }
    }
    c.stroke(); c.setLineDash([]);
    c.fillStyle = '#d9534f'; c.beginPath(); c.arc(ox + s.x * scale, oy - s.y * scale, 8, 0, 2 * Math.PI); c.fill();
  }`,
	}
}

func pendulum() simulation {
	return simulation{
		key: "pendulum", title: [2]string{"单摆", "Simple pendulum"},
		intro: [2]string{"摆长 L 的单摆从偏角 θ₀ 处由静止释放（小角度近似）：θ(t) = θ₀cos(√(g/L)·t)，周期 T = 2π√(L/g)，与摆球质量和（小）振幅无关。改变摆长和 g，看周期怎样变化。",
			"A pendulum of length L is released from rest at angle θ₀ (small-angle approximation): θ(t) = θ₀cos(√(g/L)·t), period T = 2π√(L/g), independent of the mass and of a small amplitude. Change L and g and watch the period."},
		inputs: []simInput{
			{id: "length", label: [2]string{"摆长 L (m)", "length L (m)"}, value: "1", min: "0.1", max: "5", step: "0.1"},
			{id: "amplitude", label: [2]string{"初始偏角 θ₀ (°)", "starting angle θ₀ (°)"}, value: "10", min: "1", max: "15", step: "1"},
			gravityInput(),
		},
		readouts: [][3]string{{"t", "时间 t (s)", "time t (s)"}, {"theta", "偏角 θ (°)", "angle θ (°)"},
			{"period", "周期 T = 2π√(L/g) (s)", "period T = 2π√(L/g) (s)"}, {"swings", "已完成的全振动次数", "complete swings so far"}},
		script: `
  function params() {
    return { L: Math.min(5, Math.max(0.1, num('length', 1))), a: Math.min(15, Math.max(1, num('amplitude', 10))), g: num('gravity', 9.8) };
  }
  function period(p) { return 2 * Math.PI * Math.sqrt(p.L / p.g); }
  function end(p) { return 5 * period(p); }
  function at(t, p) {
    return { t: t, theta: p.a * Math.cos(Math.sqrt(p.g / p.L) * t), period: period(p), swings: Math.floor(t / period(p) + 1e-9) };
  }
  function draw(c, w, hgt, p, s) {
    var px = w / 2, py = 30, len = (hgt - 80) * p.L / 5 + 40, th = s.theta * Math.PI / 180;
    var bx = px + len * Math.sin(th), by = py + len * Math.cos(th);
    c.fillStyle = '#eef4fb'; c.fillRect(0, 0, w, hgt);
    c.fillStyle = '#555'; c.fillRect(px - 40, py - 6, 80, 6);
    c.strokeStyle = '#333'; c.beginPath(); c.moveTo(px, py); c.lineTo(bx, by); c.stroke();
    c.fillStyle = '#d9534f'; c.beginPath(); c.arc(bx, by, 12, 0, 2 * Math.PI); c.fill();
  }`,
	}
}

// simulationPage is generate_interactive_html's arguments for s: the page
// is titled by the topic. Its script never uses a double slash (the
// product's sanitiser reads that as a URL) or reaches outside the page.
func simulationPage(l lang, topic string, s simulation) htmlArgs {
	pick := func(p [2]string) string { return l.pick(p[0], p[1]) }
	var b strings.Builder
	b.WriteString(`<style>
.sim{max-width:44rem;margin:1rem auto;padding:1rem 1.25rem;border-radius:12px;background:#f7f9fc;font-family:system-ui,sans-serif;line-height:1.5}
.sim h2{margin:.2rem 0 .5rem;color:#1f4e79}
.controls{display:flex;flex-wrap:wrap;gap:.6rem 1rem;align-items:end;margin:.6rem 0}
.controls label{display:flex;flex-direction:column;font-size:.9rem}
.controls input[type=number]{width:6rem}
.controls input[type=range]{width:14rem}
.sim button{padding:.4rem 1rem;border:0;border-radius:8px;background:#1f77b4;color:#fff;cursor:pointer}
.sim canvas{display:block;width:100%;max-width:420px;border:1px solid #ccd;border-radius:8px;background:#fff}
.stage{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start}
.readout{border-collapse:collapse;font-variant-numeric:tabular-nums}
.readout th{text-align:left;font-weight:normal;padding:.2rem .6rem .2rem 0;color:#444}
.readout td{text-align:right;padding:.2rem 0;min-width:5rem;font-weight:bold}
.limits{color:#b35c00;font-size:.9rem;min-height:1.2em}
</style>
`)
	fmt.Fprintf(&b, "<div class=\"sim\" data-simulation=\"%s\">\n<h2>%s</h2>\n<p>%s</p>\n<div class=\"controls\">\n", s.key,
		html.EscapeString(pick(s.title)), html.EscapeString(pick(s.intro)))
	for _, in := range s.inputs {
		if len(in.choice) > 0 {
			fmt.Fprintf(&b, "<label>%s <select id=\"%s\">", html.EscapeString(pick(in.label)), in.id)
			for _, c := range in.choice {
				sel := ""
				if c[0] == in.value {
					sel = " selected"
				}
				fmt.Fprintf(&b, "<option value=\"%s\"%s>%s</option>", c[0], sel, html.EscapeString(l.pick(c[1], c[2])))
			}
			b.WriteString("</select></label>\n")
			continue
		}
		fmt.Fprintf(&b, "<label>%s <input id=\"%s\" type=\"number\" value=\"%s\" min=\"%s\" max=\"%s\" step=\"%s\"></label>\n",
			html.EscapeString(pick(in.label)), in.id, in.value, in.min, in.max, in.step)
	}
	fmt.Fprintf(&b, "<label>%s <input id=\"time\" type=\"range\" min=\"0\" max=\"1\" step=\"0.01\" value=\"0\"></label>\n", l.pick("时间", "time"))
	fmt.Fprintf(&b, "<button id=\"start\" type=\"button\">%s</button> <button id=\"pause\" type=\"button\">%s</button> <button id=\"reset\" type=\"button\">%s</button>\n</div>\n",
		l.pick("开始", "Start"), l.pick("暂停", "Pause"), l.pick("重置", "Reset"))
	b.WriteString("<div class=\"stage\"><canvas id=\"view\" width=\"420\" height=\"420\"></canvas>\n<table class=\"readout\">\n")
	for _, r := range s.readouts {
		fmt.Fprintf(&b, "<tr><th>%s</th><td id=\"%s\">0.00</td></tr>\n", html.EscapeString(l.pick(r[1], r[2])), r[0])
	}
	b.WriteString("</table></div>\n<p id=\"limits\" class=\"limits\" role=\"status\"></p>\n</div>\n<script>\n(function () {\n  'use strict';\n")
	b.WriteString(limitScript(l, s.inputs))
	b.WriteString(s.script)
	ids := make([]string, len(s.readouts))
	for i, r := range s.readouts {
		ids[i] = r[0]
	}
	fmt.Fprintf(&b, `
  var readouts = %s;
  var canvas = el('view'), ctx = canvas.getContext('2d');
  var state = { t: 0, running: false, last: null };
  function show() {
    var p = params(), T = end(p);
    state.t = Math.min(Math.max(state.t, 0), T);
    var s = at(state.t, p);
    for (var i = 0; i < readouts.length; i++) {
      var v = s[readouts[i]];
      el(readouts[i]).textContent = readouts[i] === 'swings' ? String(v) : v.toFixed(2);
    }
    el('time').max = T.toFixed(2);
    el('time').value = state.t.toFixed(2);
    draw(ctx, canvas.width, canvas.height, p, s);
  }
  function frame(now) {
    if (!state.running) { return; }
    if (state.last !== null) { state.t += (now - state.last) / 1000; }
    state.last = now;
    if (state.t >= end(params())) { state.running = false; }
    show();
    if (state.running) { requestAnimationFrame(frame); }
  }
  el('start').addEventListener('click', function () {
    if (state.t >= end(params())) { state.t = 0; }
    state.running = true; state.last = null;
    requestAnimationFrame(frame);
  });
  el('pause').addEventListener('click', function () { state.running = false; });
  el('reset').addEventListener('click', function () { state.running = false; state.t = 0; show(); });
  el('time').addEventListener('input', function () { state.running = false; state.t = parseFloat(el('time').value) || 0; show(); });
`, mustJSON(ids))
	for _, in := range s.inputs {
		fmt.Fprintf(&b, "  el('%s').addEventListener('%s', function () { state.running = false; state.t = 0; show(); });\n", in.id, map[bool]string{true: "change", false: "input"}[len(in.choice) > 0])
	}
	b.WriteString("  show();\n})();\n</script>")
	title := headline(topic)
	if title == "" {
		title = pick(s.title)
	}
	return htmlArgs{Title: title + l.pick(" · 互动模拟", " · interactive simulation"), HTML: b.String()}
}

// limitScript defines el and num: num reads a number input, keeps it within
// the input's range (a value the page cannot show, such as θ₀ = 40° for a
// small-angle pendulum or L = 0, is replaced) and says so under the
// controls (#limits), so the teacher never reads one value and sees
// another.
func limitScript(l lang, inputs []simInput) string {
	var bounds []string
	for _, in := range inputs {
		if len(in.choice) == 0 {
			bounds = append(bounds, fmt.Sprintf("%s: [%s, %s, %s]", in.id, in.min, in.max, mustJSON(l.pick(in.label[0], in.label[1]))))
		}
	}
	said := l.pick(`b[2] + '：可用范围 ' + b[0] + '–' + b[1] + '，按 ' + used + ' 计算'`,
		`b[2] + ': allowed ' + b[0] + '–' + b[1] + ', ' + used + ' is used'`)
	return fmt.Sprintf(`  function el(id) { return document.getElementById(id); }
  var bounds = {%s}, limited = {};
  function num(id, fallback) {
    var v = parseFloat(el(id).value), b = bounds[id], used = isFinite(v) && v > 0 ? v : fallback;
    if (b) { used = Math.min(b[1], Math.max(b[0], used)); }
    limited[id] = used === v || !b ? '' : %s;
    var all = [];
    for (var k in limited) { if (limited[k]) { all.push(limited[k]); } }
    el('limits').textContent = all.join(' · ');
    return used;
  }
`, strings.Join(bounds, ", "), said)
}
