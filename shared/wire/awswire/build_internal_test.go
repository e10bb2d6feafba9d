package awswire

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/apps"
	"github.com/insightedge/insightedge/shared/errtest"
	"github.com/insightedge/insightedge/shared/wire"
	"github.com/insightedge/insightedge/shared/workflow"
)

func TestConfigSchedules(t *testing.T) {
	all := map[string]string{EnvTable: "t", EnvScheduleGroup: "g",
		EnvReplayFunction:     "arn:aws:lambda:us-east-1:123456789012:function:replay",
		EnvScheduleRole:       "arn:aws:iam::123456789012:role/scheduler",
		EnvScheduleDeadLetter: "arn:aws:sqs:us-east-1:123456789012:dead-letters"}
	tests := []struct {
		name    string
		drop    []string
		wantErr bool
	}{
		{"all four", nil, false},
		{"none", []string{EnvScheduleGroup, EnvReplayFunction, EnvScheduleRole, EnvScheduleDeadLetter}, false},
		{"no role", []string{EnvScheduleRole}, true},
		{"no dead-letter queue", []string{EnvScheduleDeadLetter}, true},
		{"only the group", []string{EnvReplayFunction, EnvScheduleRole}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range all {
				env[k] = v
			}
			for _, k := range tt.drop {
				delete(env, k)
			}
			c, err := ConfigFromEnv(func(k string) string { return env[k] })
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), EnvScheduleGroup) {
					t.Fatalf("err = %v, want one naming the schedule variables", err)
				}
				return
			}
			if err != nil || c.ScheduleGroup != env[EnvScheduleGroup] || c.ScheduleRole != env[EnvScheduleRole] ||
				c.ScheduleDeadLetter != env[EnvScheduleDeadLetter] {
				t.Fatalf("ConfigFromEnv = %+v, %v", c, err)
			}
		})
	}
}

type nopBuildStarter struct{}

func (nopBuildStarter) Start(context.Context, string, workflow.BuildState) error { return nil }

type nopSchedules struct{}

func (nopSchedules) Sync(context.Context, apps.App) error { return nil }
func (nopSchedules) Remove(context.Context, string) error { return nil }

// TestEdgeHandlerBuildRoutes checks that the Build runtime's routes are
// served with a Build machine, and only with the schedules' client too.
func TestEdgeHandlerBuildRoutes(t *testing.T) {
	vars := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MODEL_STANDARD": "m", "AUTH_JWT_SECRET": "s-0123456789abcdef0123456789abcdef"}
	cfg, err := wire.ConfigFromEnv(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	app, err := wire.New(cfg, wire.Backends{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		c       App
		wantErr string
		// wantStatus is the status of an unauthenticated request to each
		// route: 401 where it is served, 404 (the catch-all) where not.
		wantStatus int
	}{
		{"conversation only", App{App: app, Starter: nopStarter{}}, "", http.StatusNotFound},
		{"build without schedules", App{App: app, Starter: nopStarter{}, BuildStarter: nopBuildStarter{}}, EnvScheduleGroup, 0},
		{"build", App{App: app, Starter: nopStarter{}, BuildStarter: nopBuildStarter{}, Schedules: nopSchedules{}}, "", http.StatusUnauthorized},
	}
	routes := []struct{ method, path string }{
		{http.MethodPost, "/api/page/generate"}, {http.MethodPost, "/api/page/patch"},
		{http.MethodGet, "/api/page/build-1/stream"}, {http.MethodPost, "/api/workflow/generate"},
		{http.MethodPost, "/api/apps"}, {http.MethodGet, "/api/apps"}, {http.MethodDelete, "/api/apps/app-1"},
		{http.MethodPost, "/api/apps/app-1/run"}, {http.MethodGet, "/api/apps/app-1/snapshots/run-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := tt.c.EdgeHandler()
			if errtest.Expect(t, err, tt.wantErr) {
				return
			}
			for _, r := range routes {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(r.method, r.path, strings.NewReader(`{"message":"x","blueprint":{}}`)))
				if rec.Code != tt.wantStatus {
					t.Errorf("%s %s: status %d, want %d: %s", r.method, r.path, rec.Code, tt.wantStatus, rec.Body)
				}
			}
		})
	}
}

func TestReplayHandlerRequiresBuildMachine(t *testing.T) {
	if _, err := (&App{App: &wire.App{}}).ReplayHandler(); err == nil || !strings.Contains(err.Error(), EnvBuildMachine) {
		t.Fatalf("err = %v, want one naming %s", err, EnvBuildMachine)
	}
}
