// Package obs is the observability kit: JSON logs with the request's trace,
// session and turn ids on every line, and CloudWatch Embedded Metric Format
// lines for the acceptance figures.
package obs

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/insightedge/insightedge/shared/protocol"
)

type attrsKey struct{}

// With returns ctx carrying attrs that every log line written with it shows.
func With(ctx context.Context, attrs ...slog.Attr) context.Context {
	prev, _ := ctx.Value(attrsKey{}).([]slog.Attr)
	return context.WithValue(ctx, attrsKey{}, append(slices.Clip(prev), attrs...))
}

// TraceKey is the key of the trace id among a line's context attributes.
const TraceKey = "traceId"

// TraceID returns the trace id that ctx's log attributes carry (With and
// TraceKey), or "": the one trace id of a turn's log lines, model calls
// and data-service calls.
func TraceID(ctx context.Context) string {
	attrs, _ := ctx.Value(attrsKey{}).([]slog.Attr)
	for i := len(attrs) - 1; i >= 0; i-- {
		if attrs[i].Key == TraceKey {
			return attrs[i].Value.String()
		}
	}
	return ""
}

// NewLogger returns the JSON logger of every function and of `go run
// ./local`, in the shape of seed 004 §4.3: "timestamp", "level",
// "message" and "service" at the top, every other attribute (the
// context's ids included) under "context". A line that carries an EMF
// directive (an "_aws" attribute, see Metric) stays flat: CloudWatch reads
// a metric and its dimensions only at the top of the line.
func NewLogger(w io.Writer, level slog.Level, service string) *slog.Logger {
	flat := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: seedKeys}).
		WithAttrs([]slog.Attr{slog.String("service", service)})
	return slog.New(ctxHandler{flat: flat, nested: flat.WithGroup("context")})
}

// seedKeys renames slog's built-in keys to the seed's.
func seedKeys(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.TimeKey:
		if a.Value.Kind() == slog.KindTime {
			return slog.String("timestamp", a.Value.Time().UTC().Format("2006-01-02T15:04:05.000Z07:00"))
		}
	case slog.MessageKey:
		a.Key = "message"
	}
	return a
}

// ctxHandler adds the context's attributes to each record and writes it
// through nested (attributes under "context") or, for an EMF line, flat.
type ctxHandler struct{ flat, nested slog.Handler }

func (h ctxHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.flat.Enabled(ctx, l) }

func (h ctxHandler) Handle(ctx context.Context, r slog.Record) error {
	if attrs, ok := ctx.Value(attrsKey{}).([]slog.Attr); ok {
		r.AddAttrs(attrs...)
	}
	if isEMF(r) {
		return h.flat.Handle(ctx, r)
	}
	return h.nested.Handle(ctx, r)
}

func (h ctxHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return ctxHandler{h.flat.WithAttrs(as), h.nested.WithAttrs(as)}
}

func (h ctxHandler) WithGroup(name string) slog.Handler {
	return ctxHandler{h.flat.WithGroup(name), h.nested.WithGroup(name)}
}

func isEMF(r slog.Record) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		found = a.Key == emfKey
		return !found
	})
	return found
}

// EMF writes one CloudWatch Embedded Metric Format line per data point; in
// Lambda, CloudWatch turns them into metrics with no agent and no API call.
type EMF struct {
	mu        sync.Mutex
	w         io.Writer
	namespace string
	now       func() time.Time
}

// NewEMF returns an EMF writer for namespace.
func NewEMF(w io.Writer, namespace string) *EMF {
	return &EMF{w: w, namespace: namespace, now: time.Now}
}

// Count records value for the metric name with dims.
func (e *EMF) Count(name string, value float64, dims map[string]string) {
	e.put(name, value, UnitCount, dims)
}

// Duration records d, in milliseconds, for the metric name with dims.
// CloudWatch keeps the values, so dashboards and alarms read any
// percentile of them (p50, p90, p99).
func (e *EMF) Duration(name string, d time.Duration, dims map[string]string) {
	e.put(name, Millis(d), UnitMilliseconds, dims)
}

// put writes one data point.
func (e *EMF) put(name string, value float64, unit string, dims map[string]string) {
	doc := map[string]any{emfKey: directive(e.now(), e.namespace, dims, Point{name, unit, value}), name: value}
	for k, v := range dims {
		doc[k] = v
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	_, _ = e.w.Write(append(b, '\n'))
}

// emfKey is the member of an EMF line that holds its directive.
const emfKey = "_aws"

// Namespace is the CloudWatch namespace of the product's metrics.
const Namespace = "InsightEdge"

// The units of Metric.
const (
	UnitCount        = "Count"
	UnitMilliseconds = "Milliseconds"
	UnitNone         = "None"
)

// directive is the "_aws" member of an EMF line for one metric. The data
// point is published under every dimension key together, under each key
// alone, and under none: so that a dashboard or an alarm can read "all
// turns" or "failed turns" without a SEARCH expression (which alarms do
// not allow).
//
// It is written as JSON here, with the bytes encoding/json gave for the
// maps it once was (members in key order): a model call's line carries
// it, and reflecting over those maps at every line cost a model call more
// than the rest of its line (issue 29 item 3).
func directive(now time.Time, namespace string, dims map[string]string, points ...Point) json.RawMessage {
	keys := slices.Sorted(maps.Keys(dims))
	b := append(make([]byte, 0, 256), `{"CloudWatchMetrics":[{"Dimensions":[`...)
	b = appendStrings(b, keys...) // [] not null: EMF needs an array
	if len(keys) > 1 {
		for _, k := range keys {
			b = appendStrings(append(b, ','), k)
		}
	}
	if len(keys) > 0 {
		b = append(b, ",[]"...)
	}
	b = append(b, `],"Metrics":[`...)
	for i, p := range points {
		if i > 0 {
			b = append(b, ',')
		}
		b = protocol.AppendJSONString(append(b, `{"Name":`...), p.Name)
		b = append(protocol.AppendJSONString(append(b, `,"Unit":`...), p.Unit), '}')
	}
	b = protocol.AppendJSONString(append(b, `],"Namespace":`...), namespace)
	b = strconv.AppendInt(append(b, `}],"Timestamp":`...), now.UnixMilli(), 10)
	return append(b, '}')
}

// appendStrings appends ss as a JSON array.
func appendStrings(b []byte, ss ...string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = protocol.AppendJSONString(b, s)
	}
	return append(b, ']')
}

// Point is one data point of a metric.
type Point struct {
	Name, Unit string
	Value      float64
}

// Metric returns the attributes that make a log line (of NewLogger's
// logger) an EMF line too: its points, published in Namespace under dims
// as EMF.Count and EMF.Duration publish theirs. The line stays flat, so
// its other attributes show at its top.
func Metric(now time.Time, dims map[string]string, points ...Point) []slog.Attr {
	out := []slog.Attr{slog.Any(emfKey, directive(now, Namespace, dims, points...))}
	for _, p := range points {
		out = append(out, slog.Float64(p.Name, p.Value))
	}
	for _, k := range slices.Sorted(maps.Keys(dims)) {
		out = append(out, slog.String(k, dims[k]))
	}
	return out
}

// Millis is d in milliseconds, the unit of every latency metric.
func Millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
