package offlinemodel

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/insightedge/insightedge/shared/office/htmlpage"
)

// TestSimulationPages runs each physics page as a teacher would, in node
// with a minimal DOM and a fake clock: press Start, let the animation run,
// drag the time slider, change the settings; the read-out must follow the
// motion's equations (free fall d = ½gt², projectile x = v₀cosθ·t,
// y = v₀sinθ·t − ½gt², pendulum θ = θ₀cos(√(g/L)·t)), the canvas must be
// drawn, and the product's sanitiser must keep the page whole.
func TestSimulationPages(t *testing.T) {
	node := nodePath(t)
	type check func(t *testing.T, name string, v map[string]float64)
	freeFall := func(h, g float64) check {
		return func(t *testing.T, name string, v map[string]float64) {
			tt := v["t"]
			near(t, name+" fallen", v["fallen"], math.Min(h, 0.5*g*tt*tt))
			near(t, name+" above", v["above"], h-math.Min(h, 0.5*g*tt*tt))
			near(t, name+" speed", v["speed"], g*tt)
			near(t, name+" landing", v["landing"], math.Sqrt(2*h/g))
		}
	}
	projectile := func(v0, deg, g float64) check {
		a := deg * math.Pi / 180
		return func(t *testing.T, name string, v map[string]float64) {
			tt := v["t"]
			near(t, name+" x", v["x"], v0*math.Cos(a)*tt)
			near(t, name+" y", v["y"], math.Max(0, v0*math.Sin(a)*tt-0.5*g*tt*tt))
			near(t, name+" range", v["range"], v0*v0*math.Sin(2*a)/g)
			near(t, name+" flight", v["flight"], 2*v0*math.Sin(a)/g)
			near(t, name+" peak", v["peak"], math.Pow(v0*math.Sin(a), 2)/(2*g))
		}
	}
	pendulum := func(l, deg, g float64) check {
		return func(t *testing.T, name string, v map[string]float64) {
			near(t, name+" theta", v["theta"], deg*math.Cos(math.Sqrt(g/l)*v["t"]))
			near(t, name+" period", v["period"], 2*math.Pi*math.Sqrt(l/g))
		}
	}
	tests := []struct {
		topic  string
		l      lang
		steps  string
		checks map[string]check
		times  map[string]float64 // the expected time of a snapshot
	}{
		{"自由落体", zh,
			`[{"snap":"start"},{"click":"start"},{"frames":[0,500,1000]},{"snap":"one second"},{"frames":[5000]},{"snap":"landed"},
			  {"set":{"height":"45","gravity":"1.62"},"fire":"gravity","event":"change"},{"set":{"time":"2"},"fire":"time"},{"snap":"moon"}]`,
			map[string]check{"start": freeFall(20, 9.8), "one second": freeFall(20, 9.8), "landed": freeFall(20, 9.8), "moon": freeFall(45, 1.62)},
			map[string]float64{"start": 0, "one second": 1, "landed": math.Sqrt(40 / 9.8), "moon": 2}},
		{"free fall", en,
			`[{"click":"start"},{"frames":[100,1600]},{"snap":"1.5 s"}]`,
			map[string]check{"1.5 s": freeFall(20, 9.8)}, map[string]float64{"1.5 s": 1.5}},
		{"平抛运动", zh,
			`[{"click":"start"},{"frames":[0,1000]},{"snap":"one second"},{"set":{"angle":"30","speed0":"10"},"fire":"angle"},{"set":{"time":"0.5"},"fire":"time"},{"snap":"30 degrees"}]`,
			map[string]check{"one second": projectile(20, 45, 9.8), "30 degrees": projectile(10, 30, 9.8)},
			map[string]float64{"one second": 1, "30 degrees": 0.5}},
		{"pendulum", en,
			`[{"click":"start"},{"frames":[0,700]},{"snap":"0.7 s"},{"set":{"length":"2"},"fire":"length"},{"set":{"time":"1.3"},"fire":"time"},{"snap":"2 m"},
			  {"set":{"amplitude":"40"},"fire":"amplitude"},{"set":{"time":"0.4"},"fire":"time"},{"snap":"40 degrees asked"}]`,
			map[string]check{"0.7 s": pendulum(1, 10, 9.8), "2 m": pendulum(2, 10, 9.8), "40 degrees asked": pendulum(2, 15, 9.8)},
			map[string]float64{"0.7 s": 0.7, "2 m": 1.3, "40 degrees asked": 0.4}},
	}
	for _, tt := range tests {
		t.Run(tt.topic, func(t *testing.T) {
			sim, ok := simulationFor(tt.topic)
			if !ok {
				t.Fatalf("no simulation for %q", tt.topic)
			}
			page := simulationPage(tt.l, tt.topic, sim)
			if !strings.HasPrefix(page.Title, headline(tt.topic)) {
				t.Errorf("title %q is not titled by the topic %q", page.Title, tt.topic)
			}
			if _, removed, err := htmlpage.Custom(page.Title, tt.l.code(), page.HTML); err != nil || removed != 0 {
				t.Fatalf("the product's sanitiser changed the page: removed %d, err %v", removed, err)
			}
			script, initial := pageParts(t, page.HTML)
			for _, id := range []string{"view", "start", "time", "gravity"} {
				if _, ok := initial[id]; !ok {
					t.Errorf("the page has no #%s", id)
				}
			}
			res := runSim(t, node, script, initial, tt.steps)
			if res.Draws == 0 {
				t.Error("the canvas was never drawn")
			}
			for name, c := range tt.checks {
				snap, ok := res.Snaps[name]
				if !ok {
					t.Fatalf("no snapshot %q", name)
				}
				v := map[string]float64{}
				for id, s := range snap {
					if f, err := strconv.ParseFloat(s, 64); err == nil {
						v[id] = f
					}
				}
				near(t, name+" t", v["t"], tt.times[name])
				c(t, name, v)
				// A value the page limits is said: 40° asked, 15° used.
				if limits := snap["limits"]; strings.Contains(name, "asked") != (strings.Contains(limits, "15") && strings.Contains(limits, "1–15")) {
					t.Errorf("%s: the page says %q about its limits", name, limits)
				}
			}
		})
	}
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 0.011 {
		t.Errorf("%s = %.3f, want %.3f", what, got, want)
	}
}

// pageParts returns the page's script and its elements' initial values by
// id (an input's value, a select's selected option).
func pageParts(t *testing.T, page string) (string, map[string]string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var script string
	initial := map[string]string{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			attr := map[string]string{}
			for _, a := range n.Attr {
				attr[a.Key] = a.Val
			}
			switch {
			case n.Data == "script" && n.FirstChild != nil:
				script += n.FirstChild.Data
			case n.Data == "option":
				if _, sel := attr["selected"]; sel && n.Parent != nil {
					for _, a := range n.Parent.Attr {
						if a.Key == "id" {
							initial[a.Val] = attr["value"]
						}
					}
				}
			}
			if id, ok := attr["id"]; ok {
				if _, seen := initial[id]; !seen {
					initial[id] = attr["value"]
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if script == "" {
		t.Fatal("the page has no script")
	}
	return script, initial
}

type simResult struct {
	Snaps map[string]map[string]string `json:"snaps"`
	Draws int                          `json:"draws"`
}

func runSim(t *testing.T, node, script string, initial map[string]string, steps string) simResult {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "page.js")
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	init, _ := json.Marshal(initial)
	harness, _ := filepath.Abs("testdata/simcheck.cjs")
	cmd := exec.Command(node, harness, file, string(init), steps)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the page's script failed: %v\n%s", err, stderr.String())
	}
	var res simResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("harness output %q: %v", out, err)
	}
	return res
}

// nodePath is node, required in CI.
func nodePath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is required in CI but not on PATH")
		}
		t.Skip("node not on PATH")
	}
	return p
}
