package control

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/flags"
	"github.com/insightedge/insightedge/shared/report"
)

// TestTemplateReportsPaused: issue 28. With template reports paused, a
// new session and a new run are refused with the paused words (the
// socket's agent.error), no run starts, and a cancel still works; on
// again, the same session runs.
func TestTemplateReportsPaused(t *testing.T) {
	f := newFixture(t)
	s := f.session(t, nil)
	paused := flags.Default()
	paused.Paused = map[flags.Capability]bool{flags.TemplateReports: true}
	f.svc.o.Switches = flags.Static(paused)

	_, err := f.svc.Handle(context.Background(), teacher, report.Envelope{}, report.CreateSession{})
	wantCode(t, err, apperr.ServiceUnavailable, http.StatusServiceUnavailable)
	_, err = f.handle(s.ID, report.Message{Question: "写报告", TemplateName: "学期总结", Language: "en"})
	wantCode(t, err, apperr.ServiceUnavailable, http.StatusServiceUnavailable)
	if !strings.Contains(err.Error(), "paused") {
		t.Errorf("the refusal does not say the reports are paused: %v", err)
	}
	if n := len(f.runs.Started()); n != 0 {
		t.Fatalf("%d runs started while paused", n)
	}
	if _, err := f.handle(s.ID, report.RequestState{}); err != nil {
		t.Errorf("request_state while paused: %v", err)
	}

	f.svc.o.Switches = flags.Static(flags.Default())
	if _, err := f.handle(s.ID, report.Message{Question: "写报告", TemplateName: "学期总结"}); err != nil {
		t.Fatal(err)
	}
	if n := len(f.runs.Started()); n != 1 {
		t.Fatalf("%d runs started once on again, want 1", n)
	}
}
