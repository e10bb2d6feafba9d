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
	"sync"
	"time"
)

type attrsKey struct{}

// With returns ctx carrying attrs that every log line written with it shows.
func With(ctx context.Context, attrs ...slog.Attr) context.Context {
	prev, _ := ctx.Value(attrsKey{}).([]slog.Attr)
	return context.WithValue(ctx, attrsKey{}, append(slices.Clip(prev), attrs...))
}

// NewLogger returns a JSON logger for service that adds the context's attrs.
func NewLogger(w io.Writer, level slog.Level, service string) *slog.Logger {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})
	return slog.New(ctxHandler{h}).With("service", service)
}

type ctxHandler struct{ slog.Handler }

func (h ctxHandler) Handle(ctx context.Context, r slog.Record) error {
	if attrs, ok := ctx.Value(attrsKey{}).([]slog.Attr); ok {
		r.AddAttrs(attrs...)
	}
	return h.Handler.Handle(ctx, r)
}

func (h ctxHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return ctxHandler{h.Handler.WithAttrs(as)}
}
func (h ctxHandler) WithGroup(name string) slog.Handler { return ctxHandler{h.Handler.WithGroup(name)} }

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
	e.put(name, value, "Count", dims)
}

// Duration records d, in milliseconds, for the metric name with dims.
// CloudWatch keeps the values, so dashboards and alarms read any
// percentile of them (p50, p90, p99).
func (e *EMF) Duration(name string, d time.Duration, dims map[string]string) {
	e.put(name, float64(d.Microseconds())/1000, "Milliseconds", dims)
}

// put writes one data point. It is published under every dimension key
// together, under each key alone, and under none: so that a dashboard or
// an alarm can read "all turns" or "failed turns" without a SEARCH
// expression (which alarms do not allow).
func (e *EMF) put(name string, value float64, unit string, dims map[string]string) {
	keys := slices.AppendSeq([]string{}, maps.Keys(dims)) // [] not null: EMF needs an array
	slices.Sort(keys)
	sets := [][]string{keys}
	if len(keys) > 1 {
		for _, k := range keys {
			sets = append(sets, []string{k})
		}
	}
	if len(keys) > 0 {
		sets = append(sets, []string{})
	}
	doc := map[string]any{
		"_aws": map[string]any{
			"Timestamp": e.now().UnixMilli(),
			"CloudWatchMetrics": []any{map[string]any{
				"Namespace":  e.namespace,
				"Dimensions": sets,
				"Metrics":    []any{map[string]string{"Name": name, "Unit": unit}},
			}},
		},
		name: value,
	}
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
