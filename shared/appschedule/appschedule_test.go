package appschedule_test

import (
	"context"
	"encoding/json"
	"flag"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/apps"
	"github.com/insightedge/insightedge/shared/appschedule"
	"github.com/insightedge/insightedge/shared/appschedule/schedtest"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/golden"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json")

// Schedules is the edge's ScheduleSync.
var _ edge.ScheduleSync = (*appschedule.Schedules)(nil)

const (
	group  = "insightedge-dev-AppSchedules-1A2B3C"
	target = "arn:aws:lambda:us-east-1:123456789012:function:insightedge-dev-ReplayFunction-AbC123"
	role   = "arn:aws:iam::123456789012:role/insightedge-dev-AppScheduleRole-XyZ789"
	dlq    = "arn:aws:sqs:us-east-1:123456789012:insightedge-dev-AppScheduleDeadLetters-Q1w2E3"
)

var now = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

func newSchedules(t *testing.T, fake *schedtest.Server) *appschedule.Schedules {
	t.Helper()
	s, err := appschedule.New(fake.Client(), appschedule.Options{Group: group, Target: target, Role: role, DeadLetter: dlq,
		Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func app(every string, next time.Time) apps.App {
	a := apps.App{ID: "app-0195f3c2-7d1e-7a4b-9c3d-2e1f0a9b8c7d", TeacherID: "t-001", Name: "1A 班英语成绩分析",
		CreatedAt: now, UpdatedAt: now, NextRunAt: next}
	if every != "" {
		a.Schedule = &apps.Schedule{Every: every}
	}
	return a
}

// wire is a request as the golden file keeps it: without the idempotency
// token the SDK makes up for each call.
func wire(r schedtest.Request) map[string]any {
	body := map[string]any{}
	for k, v := range r.Body {
		if k != "ClientToken" {
			body[k] = v
		}
	}
	q := map[string]string{}
	for k := range r.Query {
		if k != "clientToken" {
			q[k] = r.Query.Get(k)
		}
	}
	return map[string]any{"op": r.Op, "method": r.Method, "path": "/schedules/" + r.Name, "query": q, "body": body}
}

// TestCreateGolden pins the exact CreateSchedule request of a daily app.
func TestCreateGolden(t *testing.T) {
	fake := schedtest.Start(t)
	if err := newSchedules(t, fake).Sync(context.Background(), app("24h", now.Add(24*time.Hour))); err != nil {
		t.Fatal(err)
	}
	reqs := fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want one CreateSchedule", len(reqs))
	}
	if reqs[0].Body["ClientToken"] == nil {
		t.Error("no ClientToken: a retried create would not be idempotent")
	}
	got, err := json.MarshalIndent(wire(reqs[0]), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "create.golden.json"), append(got, '\n'), *update)
}

func TestSync(t *testing.T) {
	a := app("1h", now.Add(time.Hour))
	tests := []struct {
		name string
		// before runs first, on the same fake (nil: nothing).
		before  func(t *testing.T, s *appschedule.Schedules, fake *schedtest.Server)
		app     apps.App
		wantOps []string
		wantErr bool
		// want is the schedule left, nil for none.
		want map[string]any
	}{
		{name: "new app", app: a, wantOps: []string{"CreateSchedule"},
			want: map[string]any{"ScheduleExpression": "rate(1 hour)", "StartDate": float64(now.Add(time.Hour).Unix())}},
		{name: "existing schedule is replaced",
			before: func(t *testing.T, s *appschedule.Schedules, _ *schedtest.Server) {
				if err := s.Sync(context.Background(), app("24h", now.Add(24*time.Hour))); err != nil {
					t.Fatal(err)
				}
			},
			app: app("30m", now.Add(30*time.Minute)), wantOps: []string{"CreateSchedule", "CreateSchedule", "UpdateSchedule"},
			want: map[string]any{"ScheduleExpression": "rate(30 minutes)", "StartDate": float64(now.Add(30 * time.Minute).Unix())}},
		{name: "a next run gone by starts at the next one to come", app: app("1h", now.Add(-90*time.Minute)),
			wantOps: []string{"CreateSchedule"},
			want:    map[string]any{"StartDate": float64(now.Add(30 * time.Minute).Unix())}},
		{name: "no next run starts one interval from now", app: app("2h", time.Time{}), wantOps: []string{"CreateSchedule"},
			want: map[string]any{"ScheduleExpression": "rate(2 hours)", "StartDate": float64(now.Add(2 * time.Hour).Unix())}},
		{name: "no schedule removes it",
			before: func(t *testing.T, s *appschedule.Schedules, _ *schedtest.Server) {
				if err := s.Sync(context.Background(), a); err != nil {
					t.Fatal(err)
				}
			},
			app: app("", time.Time{}), wantOps: []string{"CreateSchedule", "DeleteSchedule"}},
		{name: "no schedule and none there", app: app("", time.Time{}), wantOps: []string{"DeleteSchedule"}},
		{name: "throttled", app: a, wantOps: []string{"CreateSchedule"}, wantErr: true,
			before: func(_ *testing.T, _ *appschedule.Schedules, fake *schedtest.Server) {
				fake.FailNext("CreateSchedule", "ThrottlingException")
			}},
		{name: "update refused", app: a, wantOps: []string{"CreateSchedule", "CreateSchedule", "UpdateSchedule"}, wantErr: true,
			before: func(t *testing.T, s *appschedule.Schedules, fake *schedtest.Server) {
				if err := s.Sync(context.Background(), a); err != nil {
					t.Fatal(err)
				}
				fake.FailNext("UpdateSchedule", "ValidationException")
			},
			want: map[string]any{"ScheduleExpression": "rate(1 hour)"}},
		{name: "a bad interval sends nothing", app: app("90s", now.Add(time.Hour)), wantErr: true},
		{name: "an id that cannot name a schedule sends nothing", app: func() apps.App {
			x := a
			x.ID = "app/with/slashes"
			return x
		}(), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := schedtest.Start(t)
			s := newSchedules(t, fake)
			if tt.before != nil {
				tt.before(t, s, fake)
			}
			err := s.Sync(context.Background(), tt.app)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Sync: %v, want error %v", err, tt.wantErr)
			}
			var ops []string
			for _, r := range fake.Requests() {
				ops = append(ops, r.Op)
				if got := r.Query.Get("groupName") + stringOf(r.Body["GroupName"]); got != group {
					t.Errorf("%s in group %q, want %q", r.Op, got, group)
				}
			}
			if !slices.Equal(ops, tt.wantOps) {
				t.Errorf("requests %v, want %v", ops, tt.wantOps)
			}
			got, ok := fake.Schedule(group, a.ID)
			if ok != (tt.want != nil) {
				t.Fatalf("schedule left: %v, want %v", ok, tt.want != nil)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
			if ok {
				tgt, _ := got["Target"].(map[string]any)
				if tgt["Arn"] != target || tgt["RoleArn"] != role || tgt["Input"] != `{"appId":"`+a.ID+`","trigger":"schedule"}` {
					t.Errorf("target = %v", tgt)
				}
			}
		})
	}
}

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}

func TestRemove(t *testing.T) {
	tests := []struct {
		name    string
		fail    string
		wantErr bool
	}{
		{"missing is not an error", "", false},
		{"access denied", "AccessDeniedException", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := schedtest.Start(t)
			if tt.fail != "" {
				fake.FailNext("DeleteSchedule", tt.fail)
			}
			err := newSchedules(t, fake).Remove(context.Background(), "app-1")
			if (err != nil) != tt.wantErr {
				t.Fatalf("Remove: %v, want error %v", err, tt.wantErr)
			}
			reqs := fake.Requests()
			if len(reqs) != 1 || reqs[0].Op != "DeleteSchedule" || reqs[0].Name != "app-1" || reqs[0].Query.Get("groupName") != group {
				t.Fatalf("requests = %+v, want one DeleteSchedule of app-1 in the group", reqs)
			}
		})
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	ok := appschedule.Options{Group: group, Target: target, Role: role, DeadLetter: dlq}
	for name, o := range map[string]appschedule.Options{
		"no group":             {Target: target, Role: role, DeadLetter: dlq},
		"group with a slash":   {Group: "a/b", Target: target, Role: role, DeadLetter: dlq},
		"target not a lambda":  {Group: group, Target: "arn:aws:states:us-east-1:123456789012:stateMachine:x", Role: role, DeadLetter: dlq},
		"no role":              {Group: group, Target: target, DeadLetter: dlq},
		"role not a role":      {Group: group, Target: target, Role: target, DeadLetter: dlq},
		"no dead letters":      {Group: group, Target: target, Role: role},
		"dead letters not sqs": {Group: group, Target: target, Role: role, DeadLetter: target},
	} {
		if _, err := appschedule.New(nil, o); err == nil {
			t.Errorf("%s: New succeeded, want an error", name)
		}
	}
	if _, err := appschedule.New(nil, ok); err != nil {
		t.Errorf("valid options: %v", err)
	}
}
