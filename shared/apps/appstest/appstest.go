// Package appstest is the contract suite of apps.Store: every
// implementation runs it (boltstore locally; a DynamoDB one would too).
package appstest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/apps"
)

// Store is what the suite tests: a store that can also list due apps.
type Store interface {
	apps.Store
	apps.DueLister
}

// Run runs the suite; newStore returns an empty store.
func Run(t *testing.T, newStore func(t *testing.T) Store) {
	t.Run("AppLifecycle", func(t *testing.T) { appLifecycle(t, newStore(t)) })
	t.Run("Snapshots", func(t *testing.T) { snapshots(t, newStore(t)) })
	t.Run("DueApps", func(t *testing.T) { dueApps(t, newStore(t)) })
}

var t0 = time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)

func app(id, teacher string, created time.Time) apps.App {
	return apps.App{ID: id, TeacherID: teacher, Name: "App " + id, Blueprint: json.RawMessage(`{"name":"x"}`),
		Context: map[string]any{"classId": "class-hk-f1a"}, CreatedAt: created, UpdatedAt: created}
}

func appLifecycle(t *testing.T, s Store) {
	ctx := context.Background()
	if _, err := s.GetApp(ctx, "app-1"); !errors.Is(err, apps.ErrNotFound) {
		t.Fatalf("missing app: %v", err)
	}
	a := app("app-1", "t-001", t0)
	a.Schedule = &apps.Schedule{Every: "1h"}
	a.NextRunAt = t0.Add(time.Hour)
	for _, x := range []apps.App{a, app("app-2", "t-001", t0.Add(time.Minute)), app("app-3", "t-002", t0)} {
		if err := s.PutApp(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.GetApp(ctx, "app-1")
	if err != nil || got.Name != a.Name || string(got.Blueprint) != string(a.Blueprint) || got.Schedule.Every != "1h" ||
		!got.NextRunAt.Equal(a.NextRunAt) || got.Context["classId"] != "class-hk-f1a" {
		t.Fatalf("GetApp = %+v, %v", got, err)
	}
	list, err := s.ListApps(ctx, "t-001")
	if err != nil || len(list) != 2 || list[0].ID != "app-2" || list[1].ID != "app-1" {
		t.Fatalf("ListApps (newest first) = %v, %v", ids(list), err)
	}
	a.Name = "renamed"
	if err := s.PutApp(ctx, a); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetApp(ctx, "app-1"); got.Name != "renamed" {
		t.Errorf("PutApp must replace: %q", got.Name)
	}
	if err := s.PutSnapshot(ctx, apps.Snapshot{AppID: "app-1", RunID: "run-1", Status: apps.StatusRunning, StartedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteApp(ctx, "app-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetApp(ctx, "app-1"); !errors.Is(err, apps.ErrNotFound) {
		t.Errorf("deleted app: %v", err)
	}
	if snaps, err := s.ListSnapshots(ctx, "app-1"); err != nil || len(snaps) != 0 {
		t.Errorf("a deleted app's snapshots remain: %v %v", snaps, err)
	}
	if err := s.DeleteApp(ctx, "app-1"); !errors.Is(err, apps.ErrNotFound) {
		t.Errorf("deleting again: %v", err)
	}
	if list, _ := s.ListApps(ctx, "t-404"); list == nil || len(list) != 0 {
		t.Errorf("no apps is an empty list, got %v", list)
	}
}

func snapshots(t *testing.T, s Store) {
	ctx := context.Background()
	if err := s.PutApp(ctx, app("app-1", "t-001", t0)); err != nil {
		t.Fatal(err)
	}
	runs := []apps.Snapshot{
		{AppID: "app-1", RunID: "run-b", Status: apps.StatusRunning, Trigger: apps.TriggerSchedule, StartedAt: t0.Add(2 * time.Hour)},
		{AppID: "app-1", RunID: "run-a", Status: apps.StatusFailed, Trigger: apps.TriggerSchedule, StartedAt: t0.Add(time.Hour),
			EndedAt: t0.Add(time.Hour + time.Second), ErrorCode: "DATA_ERROR", Error: "down"},
	}
	for _, r := range runs {
		if err := s.PutSnapshot(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	done := runs[0]
	done.Status, done.Page, done.EndedAt = apps.StatusSucceeded, json.RawMessage(`{"meta":{"pageTitle":"p"}}`), t0.Add(2*time.Hour+time.Second)
	if err := s.PutSnapshot(ctx, done); err != nil {
		t.Fatal(err)
	}
	list, err := s.ListSnapshots(ctx, "app-1")
	if err != nil || len(list) != 2 || list[0].RunID != "run-a" || list[1].Status != apps.StatusSucceeded || list[0].ErrorCode != "DATA_ERROR" {
		t.Fatalf("ListSnapshots (oldest first) = %+v, %v", list, err)
	}
	got, err := s.GetSnapshot(ctx, "app-1", "run-b")
	if err != nil || string(got.Page) != string(done.Page) || !got.EndedAt.Equal(done.EndedAt) {
		t.Fatalf("GetSnapshot = %+v, %v", got, err)
	}
	if _, err := s.GetSnapshot(ctx, "app-1", "run-z"); !errors.Is(err, apps.ErrNotFound) {
		t.Errorf("missing snapshot: %v", err)
	}
	if _, err := s.GetSnapshot(ctx, "app-9", "run-a"); !errors.Is(err, apps.ErrNotFound) {
		t.Errorf("snapshot of a missing app: %v", err)
	}
}

func dueApps(t *testing.T, s Store) {
	ctx := context.Background()
	mk := func(id string, next time.Duration, scheduled bool) apps.App {
		a := app(id, "t-001", t0)
		if scheduled {
			a.Schedule = &apps.Schedule{Every: "1h"}
			a.NextRunAt = t0.Add(next)
		}
		return a
	}
	for _, a := range []apps.App{mk("late", 30*time.Minute, true), mk("early", 10*time.Minute, true), mk("future", 2*time.Hour, true),
		mk("unscheduled", 0, false), mk("exact", time.Hour, true)} {
		if err := s.PutApp(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	due, err := s.DueApps(ctx, t0.Add(time.Hour), 10)
	if err != nil || len(due) != 3 || due[0].ID != "early" || due[1].ID != "late" || due[2].ID != "exact" {
		t.Fatalf("DueApps = %v, %v", ids(due), err)
	}
	if due, _ := s.DueApps(ctx, t0.Add(time.Hour), 1); len(due) != 1 || due[0].ID != "early" {
		t.Errorf("limit 1: %v", ids(due))
	}
}

func ids(as []apps.App) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.ID)
	}
	return out
}
