package edge

// issue 28: the operator's capability switches at the routes that start a
// capability's work. A paused capability is not a failure: the request is
// answered 200 with the data-notice part that says so (the body is the
// part, {"type":"data-notice","id":"notice-CAPABILITY_PAUSED","data":
// {"code","message"}}), and X-Capability-Paused names the capability.
// Conversation turns read the switches in their Route step (shared/agent).

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/insightedge/insightedge/shared/flags"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/protocol"
)

// HeaderPaused names the paused capability on a paused route's answer.
const HeaderPaused = "X-Capability-Paused"

// Metrics receives the edge's counts (obs.EMF).
type Metrics interface {
	Count(name string, value float64, dims map[string]string)
}

// pausedRoutes are the routes PauseStarts checks, with their capability.
var pausedRoutes = map[string]flags.Capability{
	"POST /api/page/generate":     flags.PageBuilds,
	"POST /api/page/patch":        flags.PageBuilds,
	"POST /api/workflow/generate": flags.PageBuilds,
	"POST /api/research":          flags.Research,
	"POST /api/template/sessions": flags.TemplateReports,
	"POST /api/quiz/export":       flags.FileGeneration,
}

// PauseStarts answers a request to a paused capability's start route with
// its notice, before next (and before the fair-use limits: a paused
// capability spends none). With no source it is next.
func PauseStarts(next http.Handler, src flags.Source, log *slog.Logger, m Metrics) http.Handler {
	if src == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := pausedRoutes[r.Method+" "+r.URL.Path]
		if !ok || src.Switches(r.Context()).On(c) {
			next.ServeHTTP(w, r)
			return
		}
		log.InfoContext(r.Context(), "capability paused", "capability", c, "route", r.URL.Path, "trace", TraceID(r.Context()))
		if m != nil {
			m.Count("CapabilityPaused", 1, map[string]string{"capability": string(c)})
		}
		n := flags.Notice(c, i18n.Of(firstTag(r.Header.Get("Accept-Language"))))
		body, err := protocol.MarshalChunk(n.Chunk())
		if err != nil {
			Handle(log, func(http.ResponseWriter, *http.Request) error { return err }).ServeHTTP(w, r)
			return
		}
		w.Header().Set(HeaderPaused, string(c))
		writeJSON(w, http.StatusOK, json.RawMessage(body))
	})
}
