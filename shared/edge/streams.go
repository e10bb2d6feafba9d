package edge

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/insightedge/insightedge/shared/obs"
)

// MetricActiveStreams is the gauge of the relay connections open in this
// process (seed 004 §4.2, "活跃 SSE 连接数"), written on each open and
// close: exact for `go run ./local`; in Lambda an instance serves one
// stream at a time, so the fleet's figure is StreamFunction's
// ConcurrentExecutions, which the dashboard shows beside it.
const MetricActiveStreams = "ActiveStreams"

var activeStreams atomic.Int64

// streamOpened counts a relay connection until the returned func runs.
func (r *Relay) streamOpened(ctx context.Context) (closed func()) {
	r.logStreams(ctx, "stream opened", activeStreams.Add(1))
	return func() { r.logStreams(ctx, "stream closed", activeStreams.Add(-1)) }
}

func (r *Relay) logStreams(ctx context.Context, msg string, n int64) {
	r.Logger.LogAttrs(ctx, slog.LevelInfo, msg,
		obs.Metric(time.Now(), nil, obs.Point{Name: MetricActiveStreams, Unit: obs.UnitCount, Value: float64(n)})...)
}
