package dynamostore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/shared/apps"
	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
)

// TestAppStore runs the app store's own cases on one server: the items it
// writes, and the pointers left by a process that died between writes.
func TestAppStore(t *testing.T) {
	srv := dynamotest.Start(t)
	tests := []struct {
		name string
		fn   func(t *testing.T, f *fixture, s *dynamostore.AppStore)
	}{
		{"Items", testAppItems},
		{"StalePointersSkipped", testStalePointers},
		{"Reschedule", testReschedule},
		{"DeleteRemovesEverything", testDeleteApp},
		{"PointerOfTheEarlierLayoutMoved", testLegacyDuePointer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, srv)
			s := dynamostore.NewAppStore(srv.Client, f.table, dynamostore.Options{SnapshotTTL: 24 * time.Hour, Now: f.clock.Now})
			tt.fn(t, f, s)
		})
	}
}

var appT0 = time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)

func scheduledApp(id, teacher string, next time.Time) apps.App {
	return apps.App{ID: id, TeacherID: teacher, Name: "App " + id, Blueprint: json.RawMessage(`{"name":"x"}`),
		Schedule: &apps.Schedule{Every: "1h"}, NextRunAt: next, CreatedAt: appT0, UpdatedAt: appT0}
}

// keys lists the table's items as "PK / SK", sorted.
func (f *fixture) keys(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, it := range f.scan(t) {
		out = append(out, it["PK"].(*types.AttributeValueMemberS).Value+" / "+it["SK"].(*types.AttributeValueMemberS).Value)
	}
	slices.Sort(out)
	return out
}

// testAppItems pins the layout the package comment describes, and the
// snapshot's expiry.
func testAppItems(t *testing.T, f *fixture, s *dynamostore.AppStore) {
	ctx := context.Background()
	must(t, s.PutApp(ctx, scheduledApp("app-1", "t-001", appT0.Add(time.Hour))))
	must(t, s.PutSnapshot(ctx, apps.Snapshot{AppID: "app-1", RunID: "run-1", Status: apps.StatusRunning, StartedAt: appT0}))
	want := []string{
		"APP#app-1 / META",
		"APP#app-1 / SNAP#run-1",
		"APPS#DUE#6 / 2026-11-25T09:00:00.000000000Z#app-1", // app-1's shard
		"TEACHER#t-001 / APP#app-1",
	}
	if got := f.keys(t); !slices.Equal(got, want) {
		t.Fatalf("items = %q, want %q", got, want)
	}
	for _, it := range f.scan(t) {
		ttl, has := it[dynamostore.AttrTTL].(*types.AttributeValueMemberN)
		isSnap := it["SK"].(*types.AttributeValueMemberS).Value == "SNAP#run-1"
		switch {
		case isSnap && (!has || ttl.Value != fmt.Sprint(f.clock.Now().Add(24*time.Hour).Unix())):
			t.Errorf("snapshot ttl = %v, want now+SnapshotTTL", it[dynamostore.AttrTTL])
		case !isSnap && has:
			t.Errorf("%v expires (%s); saved apps are kept until deleted", it["PK"], ttl.Value)
		}
	}
}

// testStalePointers leaves pointers as a PutApp or DeleteApp that died
// between its writes would: they name an app that is gone, or an app that
// has moved to another teacher or time. Reads skip them.
func testStalePointers(t *testing.T, f *fixture, s *dynamostore.AppStore) {
	ctx := context.Background()
	must(t, s.PutApp(ctx, scheduledApp("app-1", "t-001", appT0.Add(time.Hour))))
	put := func(pk, sk, app string) {
		t.Helper()
		_, err := f.srv.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(f.table), Item: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk},
			"appId": &types.AttributeValueMemberS{Value: app}}})
		must(t, err)
	}
	put("TEACHER#t-001", "APP#app-gone", "app-gone")
	put("TEACHER#t-002", "APP#app-1", "app-1") // app-1 is t-001's
	put("APPS#DUE#6", "2026-11-25T08:30:00.000000000Z#app-1", "app-1")
	put("APPS#DUE#6", "2026-11-25T08:40:00.000000000Z#app-gone", "app-gone")

	if list, err := s.ListApps(ctx, "t-001"); err != nil || len(list) != 1 || list[0].ID != "app-1" {
		t.Errorf("ListApps(t-001) = %v, %v; want app-1 only", list, err)
	}
	if list, err := s.ListApps(ctx, "t-002"); err != nil || len(list) != 0 {
		t.Errorf("ListApps(t-002) = %v, %v; want none", list, err)
	}
	due, err := s.DueApps(ctx, appT0.Add(2*time.Hour), 10)
	if err != nil || len(due) != 1 || due[0].ID != "app-1" || !due[0].NextRunAt.Equal(appT0.Add(time.Hour)) {
		t.Errorf("DueApps = %v, %v; want app-1 once, at its own time", due, err)
	}
	// Due at 08:45 by the stale pointers, not by the app: nothing.
	if due, err := s.DueApps(ctx, appT0.Add(45*time.Minute), 10); err != nil || len(due) != 0 {
		t.Errorf("DueApps(08:45) = %v, %v; want none", due, err)
	}
}

// testReschedule moves an app's next run, as the replay function does
// before each run, then unschedules it: one due pointer at a time.
func testReschedule(t *testing.T, f *fixture, s *dynamostore.AppStore) {
	ctx := context.Background()
	a := scheduledApp("app-1", "t-001", appT0.Add(time.Hour))
	must(t, s.PutApp(ctx, a))
	a.NextRunAt = appT0.Add(2 * time.Hour)
	must(t, s.PutApp(ctx, a))
	want := []string{"APP#app-1 / META", "APPS#DUE#6 / 2026-11-25T10:00:00.000000000Z#app-1", "TEACHER#t-001 / APP#app-1"}
	if got := f.keys(t); !slices.Equal(got, want) {
		t.Fatalf("after rescheduling: %q, want %q", got, want)
	}
	a.Schedule, a.NextRunAt = nil, time.Time{}
	must(t, s.PutApp(ctx, a))
	want = []string{"APP#app-1 / META", "TEACHER#t-001 / APP#app-1"}
	if got := f.keys(t); !slices.Equal(got, want) {
		t.Fatalf("after unscheduling: %q, want %q", got, want)
	}
}

// testDeleteApp deletes an app with many snapshots (more than one batch):
// nothing of it is left.
func testDeleteApp(t *testing.T, f *fixture, s *dynamostore.AppStore) {
	ctx := context.Background()
	must(t, s.PutApp(ctx, scheduledApp("app-1", "t-001", appT0.Add(time.Hour))))
	must(t, s.PutApp(ctx, scheduledApp("app-2", "t-001", appT0.Add(time.Hour))))
	for i := range 30 {
		must(t, s.PutSnapshot(ctx, apps.Snapshot{AppID: "app-1", RunID: fmt.Sprintf("run-%02d", i), StartedAt: appT0.Add(time.Duration(i) * time.Minute)}))
	}
	must(t, s.DeleteApp(ctx, "app-1"))
	want := []string{"APP#app-2 / META", "APPS#DUE#19 / 2026-11-25T09:00:00.000000000Z#app-2", "TEACHER#t-001 / APP#app-2"}
	if got := f.keys(t); !slices.Equal(got, want) {
		t.Fatalf("after DeleteApp: %q, want %q", got, want)
	}
}

// testLegacyDuePointer: an app saved before the due index had shards has
// its pointer under APPS#DUE and no duePK; its next PutApp (the replay
// function moving its next run) writes the pointer to its shard and
// deletes the old one.
func testLegacyDuePointer(t *testing.T, f *fixture, s *dynamostore.AppStore) {
	ctx := context.Background()
	a := scheduledApp("app-1", "t-001", appT0.Add(time.Hour))
	must(t, s.PutApp(ctx, a))
	sk := "2026-11-25T09:00:00.000000000Z#app-1"
	_, err := f.srv.Client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(f.table),
		Key:              map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "APP#app-1"}, "SK": &types.AttributeValueMemberS{Value: "META"}},
		UpdateExpression: aws.String("REMOVE duePK")})
	must(t, err)
	_, err = f.srv.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(f.table),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "APPS#DUE#6"}, "SK": &types.AttributeValueMemberS{Value: sk}}})
	must(t, err)
	_, err = f.srv.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(f.table), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "APPS#DUE"}, "SK": &types.AttributeValueMemberS{Value: sk},
		"appId": &types.AttributeValueMemberS{Value: "app-1"}}})
	must(t, err)

	a.NextRunAt = appT0.Add(2 * time.Hour)
	must(t, s.PutApp(ctx, a))
	want := []string{"APP#app-1 / META", "APPS#DUE#6 / 2026-11-25T10:00:00.000000000Z#app-1", "TEACHER#t-001 / APP#app-1"}
	if got := f.keys(t); !slices.Equal(got, want) {
		t.Fatalf("after the first PutApp of the new layout: %q, want %q", got, want)
	}
}
