package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/javaapi/javaapitest/seedjava"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
)

// logLine is a line of obs.NewLogger (seed 004 §4.3): the ids under
// "context", or at the top of a line that carries an EMF metric.
type logLine struct {
	Level, Message string
	Context        map[string]any
	Top            map[string]any
}

func (l logLine) get(key string) string {
	if v, ok := l.Context[key]; ok {
		return fmt.Sprint(v)
	}
	if v, ok := l.Top[key]; ok {
		return fmt.Sprint(v)
	}
	return ""
}

func readLogLines(t *testing.T, s Local) []logLine {
	t.Helper()
	var out []logLine
	sc := bufio.NewScanner(strings.NewReader(s.Logs.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l logLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("log line is not JSON: %s", sc.Bytes())
		}
		_ = json.Unmarshal(sc.Bytes(), &l.Top)
		if l.Message == "" || l.Top["timestamp"] == nil || l.Top["level"] == nil {
			t.Errorf("log line without the seed's timestamp, level and message: %s", sc.Bytes())
		}
		out = append(out, l)
	}
	return out
}

// TestTurnTraceIDInLogs (issue 28, seed 004 §4.3): one turn over a data
// service reached over HTTP (the seed stand-in). Every log line of the turn
// carries its trace id, from the edge ("turn started") through the model
// calls ("model call") to the data service calls ("JavaClient GET"); the
// model received it as X-Trace-Id on every request, the data service as
// X-Trace-ID.
func TestTurnTraceIDInLogs(t *testing.T) {
	const trace = "trace-issue28-e2e"
	s, srv := newSeedLocal(t, seedjava.Defects{}, nil)
	st := postStream(t, s.URL, `{"message":"3B 班最近一次作业的成绩怎么样？"}`, "X-Teacher-Id", seedTeacher, "X-Trace-ID", trace)
	if slices.Contains(st.types(t), "error") {
		t.Fatalf("turn failed: %v", st.types(t))
	}
	meta, _ := st.Events[0].chunk(t)["messageMetadata"].(map[string]any)
	turnID, _ := meta["turnId"].(string)
	if turnID == "" {
		t.Fatalf("no turn id in the start chunk")
	}
	seen := map[string]int{}
	for _, l := range readLogLines(t, s) {
		if !strings.HasPrefix(l.get("turnId"), turnID) && l.get("traceId") != trace {
			continue
		}
		seen[l.Message]++
		if got := l.get("traceId"); got != trace {
			t.Errorf("a line of the turn without its trace id (traceId %q): %+v", got, l)
		}
	}
	t.Logf("the turn's lines: %v", seen)
	for _, msg := range []string{"turn started", "model call", "JavaClient GET"} {
		if seen[msg] == 0 {
			t.Errorf("no %q line with the turn's trace id; the turn's lines: %v", msg, seen)
		}
	}
	reqs := s.Offline.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model was not called")
	}
	for i, r := range reqs {
		if r.TraceID != trace {
			t.Errorf("model request %d (%s) carried trace id %q, want %q", i, r.Kind, r.TraceID, trace)
		}
	}
	for _, r := range srv.Requests() {
		if r.TraceID != trace {
			t.Errorf("data service request %s carried trace id %q", r.Path, r.TraceID)
		}
	}
}

// TestForbiddenDataSaysSo (issue 28): when the data service answers 403
// (the teacher may not see that data), the teacher is told so, in their
// language: neither the outage wording nor "nothing found".
func TestForbiddenDataSaysSo(t *testing.T) {
	for _, lang := range []string{"zh", "en"} {
		t.Run(lang, func(t *testing.T) {
			s := NewLocal(t, map[string]string{"JAVA_API_RETRY_BASE": "10ms"})
			s.Java.SetFault(mockserver.Fault{Status: 403, Message: "Forbidden: not your class", Path: "/submissions/"})
			st := postStream(t, s.URL, fmt.Sprintf(`{"message":"1A 班最近一次作业的成绩怎么样？","language":%q}`, lang), "X-Teacher-Id", "t-001")
			l := i18n.Of(lang, "")
			want := l.Text(i18n.ToolDataForbidden)
			var errs []string
			for _, p := range st.data(t, "data-tool-progress") {
				if p["status"] == "error" {
					errs = append(errs, fmt.Sprint(p["message"]))
				}
			}
			if len(errs) == 0 || !slices.Contains(errs, want) {
				t.Fatalf("tool errors %q, want the permission wording %q", errs, want)
			}
			for _, other := range []i18n.Msg{i18n.ToolDataUnavailable, i18n.ToolNothingFound, i18n.ToolDataFailed} {
				if slices.Contains(errs, l.Text(other)) {
					t.Errorf("a 403 was told as %q", l.Text(other))
				}
			}
			for _, r := range s.Java.Requests() {
				if strings.Contains(r.Path, "/teacher/") && !strings.Contains(r.Path, "/teacher/t-001/") {
					t.Errorf("a request as another teacher: %s", r.Path)
				}
			}
		})
	}
}
