package obs

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/golden"
)

var update = flag.Bool("update", false, "rewrite golden files")

// emfDoc is the part of an EMF line CloudWatch reads.
type emfDoc struct {
	AWS struct {
		Timestamp         int64 `json:"Timestamp"`
		CloudWatchMetrics []struct {
			Namespace  string     `json:"Namespace"`
			Dimensions [][]string `json:"Dimensions"`
			Metrics    []struct {
				Name string `json:"Name"`
				Unit string `json:"Unit"`
			} `json:"Metrics"`
		} `json:"CloudWatchMetrics"`
	} `json:"_aws"`
}

func fixedEMF(w *bytes.Buffer) *EMF {
	e := NewEMF(w, "InsightEdge")
	e.now = func() time.Time { return time.UnixMilli(1764111600123) }
	return e
}

func TestEMFLineGolden(t *testing.T) {
	var buf bytes.Buffer
	fixedEMF(&buf).Count("ToolCalls", 3, map[string]string{"tool": "generate_quiz_questions", "status": "success"})
	golden.Check(t, filepath.Join("testdata", "emf_count.golden"), buf.Bytes(), *update)
}

func TestEMFLine(t *testing.T) {
	var buf bytes.Buffer
	fixedEMF(&buf).Count("RouterFallback", 1.5, map[string]string{"path": "agent", "intent": "unknown"})
	line := buf.String()
	if !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
		t.Fatalf("want exactly one line, got %q", line)
	}
	var doc emfDoc
	if err := json.Unmarshal([]byte(line), &doc); err != nil {
		t.Fatalf("not JSON: %v: %s", err, line)
	}
	var flat map[string]any
	if err := json.Unmarshal([]byte(line), &flat); err != nil {
		t.Fatal(err)
	}
	if doc.AWS.Timestamp != 1764111600123 {
		t.Errorf("Timestamp = %d", doc.AWS.Timestamp)
	}
	if len(doc.AWS.CloudWatchMetrics) != 1 {
		t.Fatalf("CloudWatchMetrics = %+v", doc.AWS.CloudWatchMetrics)
	}
	m := doc.AWS.CloudWatchMetrics[0]
	if m.Namespace != "InsightEdge" {
		t.Errorf("Namespace = %q", m.Namespace)
	}
	// Every key together, each alone, and none: the roll-ups that the
	// template's alarms read (alarms allow no SEARCH).
	want := [][]string{{"intent", "path"}, {"intent"}, {"path"}, {}}
	if !slices.EqualFunc(m.Dimensions, want, slices.Equal) {
		t.Errorf("Dimensions = %v, want %v", m.Dimensions, want)
	}
	if len(m.Metrics) != 1 || m.Metrics[0].Name != "RouterFallback" || m.Metrics[0].Unit != "Count" {
		t.Errorf("Metrics = %+v", m.Metrics)
	}
	// The value and every dimension are root members, as EMF requires.
	if flat["RouterFallback"] != 1.5 || flat["path"] != "agent" || flat["intent"] != "unknown" {
		t.Errorf("root members = %v", flat)
	}
}

// TestEMFWithoutDimensions: EMF wants Dimensions to be an array of
// DimensionSets (arrays, possibly empty); [null] is not one, and CloudWatch
// drops the metric. agent.Route records RouterFallback with nil dims.
func TestEMFWithoutDimensions(t *testing.T) {
	for _, dims := range []map[string]string{nil, {}} {
		var buf bytes.Buffer
		fixedEMF(&buf).Count("RouterFallback", 1, dims)
		var raw struct {
			AWS struct {
				CloudWatchMetrics []struct {
					Dimensions json.RawMessage `json:"Dimensions"`
				} `json:"CloudWatchMetrics"`
			} `json:"_aws"`
		}
		if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		if got := string(raw.AWS.CloudWatchMetrics[0].Dimensions); got != "[[]]" {
			t.Errorf("dims %v: Dimensions = %s, want [[]]", dims, got)
		}
	}
}

func TestEMFConcurrentLinesStayWhole(t *testing.T) {
	var buf bytes.Buffer
	e := fixedEMF(&buf)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 20 {
				e.Count("Turns", float64(i), map[string]string{"worker": strings.Repeat("w", i+1)})
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 160 {
		t.Fatalf("%d lines, want 160", len(lines))
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("interleaved line %q", l)
		}
	}
}

// logLines decodes the JSON lines of buf.
func logLines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		lines = append(lines, m)
	}
	return lines
}

// TestLoggerSeedShape: seed 004 §4.3's keys at the top (timestamp, level,
// message, service), every attribute, the context's ids included, under
// "context"; a context's ids do not leak into another's lines.
func TestLoggerSeedShape(t *testing.T) {
	var buf bytes.Buffer
	log := NewLogger(&buf, slog.LevelInfo, "agentturn")

	base := With(context.Background(), slog.String("sessionId", "s-1"))
	turn := With(base, slog.String("turnId", "u-1"))
	other := With(base, slog.String("turnId", "u-2")) // must not leak into turn

	log.InfoContext(turn, "routed", "path", "chat")
	log.With("step", "route").WarnContext(other, "fallback")
	log.DebugContext(turn, "too detailed")
	log.InfoContext(context.Background(), "plain")

	lines := logLines(t, &buf)
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3 (debug filtered): %s", len(lines), buf.String())
	}
	want := []map[string]any{
		{"message": "routed", "service": "agentturn", "level": "INFO",
			"context": map[string]any{"sessionId": "s-1", "turnId": "u-1", "path": "chat"}},
		{"message": "fallback", "service": "agentturn", "level": "WARN",
			"context": map[string]any{"sessionId": "s-1", "turnId": "u-2", "step": "route"}},
		{"message": "plain", "service": "agentturn", "level": "INFO"},
	}
	for i, w := range want {
		ts, _ := lines[i]["timestamp"].(string)
		if _, err := time.Parse("2006-01-02T15:04:05.000Z", ts); err != nil {
			t.Errorf("line %d: timestamp %q, want the seed's 2026-02-04T10:00:00.123Z form", i, ts)
		}
		delete(lines[i], "timestamp")
		if !reflect.DeepEqual(lines[i], w) {
			t.Errorf("line %d = %v, want %v", i, lines[i], w)
		}
	}
}

// TestLoggerMetricLineFlat: a line with Metric's attributes is an EMF
// line: directive, value and dimensions at the top, where CloudWatch reads
// them, with the context's ids beside them.
func TestLoggerMetricLineFlat(t *testing.T) {
	var buf bytes.Buffer
	log := NewLogger(&buf, slog.LevelInfo, "tool").With("component", "javaapi")
	ctx := With(context.Background(), slog.String(TraceKey, "tr-1"))
	log.LogAttrs(ctx, slog.LevelInfo, "model call",
		Metric(time.UnixMilli(1764111600123), map[string]string{"model": "m", "status": "success"},
			Point{"ModelCall", UnitCount, 1}, Point{"ModelLatency", UnitMilliseconds, 12.5})...)
	lines := logLines(t, &buf)
	if len(lines) != 1 {
		t.Fatalf("%d lines: %s", len(lines), buf.String())
	}
	l := lines[0]
	if l["ModelCall"] != float64(1) || l["ModelLatency"] != 12.5 || l["model"] != "m" || l["status"] != "success" || l["traceId"] != "tr-1" ||
		l["component"] != "javaapi" || l["message"] != "model call" || l["context"] != nil {
		t.Errorf("metric line %v, want its members at the top", l)
	}
	var doc emfDoc
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil || len(doc.AWS.CloudWatchMetrics) != 1 {
		t.Fatalf("no directive: %v %s", err, buf.String())
	}
	m := doc.AWS.CloudWatchMetrics[0]
	if m.Namespace != Namespace || doc.AWS.Timestamp != 1764111600123 || len(m.Metrics) != 2 ||
		m.Metrics[0].Name != "ModelCall" || m.Metrics[0].Unit != "Count" || m.Metrics[1].Name != "ModelLatency" || m.Metrics[1].Unit != "Milliseconds" {
		t.Errorf("directive %+v", doc.AWS)
	}
	if want := [][]string{{"model", "status"}, {"model"}, {"status"}, {}}; !slices.EqualFunc(m.Dimensions, want, slices.Equal) {
		t.Errorf("Dimensions = %v, want %v", m.Dimensions, want)
	}
}

func TestTraceID(t *testing.T) {
	ctx := context.Background()
	if got := TraceID(ctx); got != "" {
		t.Errorf("TraceID(empty) = %q", got)
	}
	ctx = With(ctx, slog.String("sessionId", "s"), slog.String(TraceKey, "t-1"))
	ctx = With(ctx, slog.String("turnId", "u"))
	if got := TraceID(ctx); got != "t-1" {
		t.Errorf("TraceID = %q, want t-1", got)
	}
	if got := TraceID(With(ctx, slog.String(TraceKey, "t-2"))); got != "t-2" {
		t.Errorf("the latest trace id wins: got %q", got)
	}
}

// TestEMFDuration: latencies are milliseconds, so that CloudWatch's
// percentiles (p50, p90, p99) read in the unit the dashboard shows.
func TestEMFDuration(t *testing.T) {
	var buf bytes.Buffer
	fixedEMF(&buf).Duration("TurnTime", 1500*time.Millisecond+250*time.Microsecond, nil)
	var doc emfDoc
	var flat map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(buf.Bytes(), &flat)
	m := doc.AWS.CloudWatchMetrics[0]
	if len(m.Metrics) != 1 || m.Metrics[0].Name != "TurnTime" || m.Metrics[0].Unit != "Milliseconds" || flat["TurnTime"] != 1500.25 {
		t.Errorf("EMF line %s, want TurnTime 1500.25 Milliseconds", buf.Bytes())
	}
	if !slices.EqualFunc(m.Dimensions, [][]string{{}}, slices.Equal) {
		t.Errorf("Dimensions = %v, want [[]]", m.Dimensions)
	}
}

// mapDirective is the directive as the maps it was built from before issue
// 29, which encoding/json wrote: directive must write the same bytes.
func mapDirective(now time.Time, namespace string, dims map[string]string, points ...Point) map[string]any {
	keys := slices.Sorted(maps.Keys(dims))
	sets := [][]string{append([]string{}, keys...)}
	if len(keys) > 1 {
		for _, k := range keys {
			sets = append(sets, []string{k})
		}
	}
	if len(keys) > 0 {
		sets = append(sets, []string{})
	}
	metrics := make([]any, len(points))
	for i, p := range points {
		metrics[i] = map[string]string{"Name": p.Name, "Unit": p.Unit}
	}
	return map[string]any{
		"Timestamp":         now.UnixMilli(),
		"CloudWatchMetrics": []any{map[string]any{"Namespace": namespace, "Dimensions": sets, "Metrics": metrics}},
	}
}

// TestDirectiveBytes: the hand-written directive is byte for byte what
// encoding/json wrote for its maps, through slog's encoder (no HTML
// escaping) and through json.Marshal (EMF.put's), whatever the strings hold.
func TestDirectiveBytes(t *testing.T) {
	now := time.UnixMilli(1764111600123)
	count, latency := Point{"ModelCall", UnitCount, 1}, Point{"ModelLatency", UnitMilliseconds, 2}
	tests := []struct {
		name   string
		dims   map[string]string
		points []Point
	}{
		{"no dimensions", nil, []Point{count}},
		{"one dimension", map[string]string{"status": "success"}, []Point{count}},
		{"two dimensions, two points", map[string]string{"model": "gpt-4o-mini", "status": "failure"}, []Point{count, latency}},
		{"three dimensions", map[string]string{"c": "3", "a": "1", "b": "2"}, []Point{latency}},
		{"no points", map[string]string{"a": "1"}, nil},
		{"strings to escape", map[string]string{"m<&>": "q\"\\\n\t\x01", "z": "中文\u2028\xff"}, []Point{{"N<a>", "U&", 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, ns := range []string{Namespace, "a<b>&\"c\""} {
				got, want := directive(now, ns, tt.dims, tt.points...), mapDirective(now, ns, tt.dims, tt.points...)
				if g, w := encodeNoHTML(t, got), encodeNoHTML(t, want); g != w {
					t.Errorf("slog's bytes:\n got %s\nwant %s", g, w)
				}
				g, err1 := json.Marshal(got)
				w, err2 := json.Marshal(want)
				if err1 != nil || err2 != nil || !bytes.Equal(g, w) {
					t.Errorf("json.Marshal:\n got %s (%v)\nwant %s (%v)", g, err1, w, err2)
				}
			}
		})
	}
}

func encodeNoHTML(t *testing.T, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// BenchmarkMetricLine is a model call's log line (llm's recordCall): a
// message, a duration and Metric's attributes, through NewLogger's handler.
func BenchmarkMetricLine(b *testing.B) {
	log := NewLogger(io.Discard, slog.LevelInfo, "local")
	ctx := With(context.Background(), slog.String(TraceKey, "tr-1"), slog.String("sessionId", "s-1"))
	b.ReportAllocs()
	for b.Loop() {
		attrs := append([]slog.Attr{slog.Int64("durationMs", 12)}, Metric(time.Now(), map[string]string{"model": "m", "status": "success"},
			Point{"ModelCall", UnitCount, 1}, Point{"ModelLatency", UnitMilliseconds, 12.5})...)
		log.LogAttrs(ctx, slog.LevelInfo, "model call", attrs...)
	}
}
