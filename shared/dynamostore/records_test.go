package dynamostore_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/research"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

// oldItems are the items the stores before shared/records wrote (captured
// from that code): a report session and connection with their JSON as a
// string in data (the connection's sessions in a string set, no version), a
// research session's JSON as binary in value.
var oldItems = []map[string]types.AttributeValue{
	{"PK": s("TSESSION#s-old"), "SK": s("META"), "version": n("1"), "ttl": n("1795770000"),
		"data": s(`{"id":"s-old","teacher_id":"t-001","connection_id":"c-old","status":"idle","run":0,"message":{"question":""},"version":1,"created_at":"2026-11-28T16:31:54.766786882Z","updated_at":"2026-11-28T16:31:54.766786882Z","expires_at":"2026-11-27T09:00:00Z"}`)},
	{"PK": s("TCONN#c-old"), "SK": s("META"), "ttl": n("1795770000"), "sessions": &types.AttributeValueMemberSS{Value: []string{"s-old", "s-2"}},
		"data": s(`{"id":"c-old","teacher_id":"t-001","created_at":"2026-11-27T08:00:00Z","expires_at":"2026-11-27T09:00:00Z"}`)},
	{"PK": s("RESEARCH#r-old"), "SK": s("META"), "version": n("1"), "ttl": n("1795770000"), "status": s("Created"), "teacherId": s("t-001"),
		"value": &types.AttributeValueMemberB{Value: []byte(`{"id":"r-old","teacherId":"t-001","topic":"DNA","language":"en","status":"Created","version":1,"createdAt":"2026-11-27T08:00:00Z","updatedAt":"2026-11-27T08:00:00Z","expiresAt":"2026-11-27T09:00:00Z"}`)}},
}

// TestOldItemsRead: items written before shared/records read and update
// through the typed stores, and are written back in their layout.
func TestOldItemsRead(t *testing.T) {
	ctx := context.Background()
	srv := dynamotest.Start(t)
	table := srv.NewTable(t)
	for _, item := range oldItems {
		if _, err := srv.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	b := dynamostore.NewRecords(srv.Client, table, dynamostore.Options{})

	reports := report.NewStore(b)
	sess, err := reports.UpdateSession(ctx, "s-old", func(s *report.Session) error { s.Status = report.StatusPlanning; return nil })
	if err != nil || sess.Version != 2 || sess.TeacherID != "t-001" || !sess.ExpiresAt.Equal(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("report session %+v %v", sess, err)
	}
	if c, err := reports.GetConnection(ctx, "c-old"); err != nil || !slices.Equal(c.Sessions, []string{"s-2", "s-old"}) {
		t.Fatalf("connection %+v %v", c, err)
	}
	if err := reports.AddSession(ctx, "c-old", "s-3"); err != nil {
		t.Fatal(err)
	}
	if c, err := reports.GetConnection(ctx, "c-old"); err != nil || !slices.Equal(c.Sessions, []string{"s-2", "s-old", "s-3"}) {
		t.Fatalf("connection after an add %+v %v", c, err)
	}

	if _, err := research.ReadyProposal(ctx, research.NewStore(b), "r-old", research.Proposal{Topic: "DNA"}, time.Now()); err != nil {
		t.Fatal(err)
	}

	// Written back as before: the JSON's attribute and type, version, ttl,
	// the research session's status copied out.
	for pk, want := range map[string][]string{
		"TSESSION#s-old": {"data:S", "version:2", "ttl:1795770000"},
		"TCONN#c-old":    {"data:S", "version:1", "ttl:1795770000"},
		"RESEARCH#r-old": {"value:B", "version:2", "ttl:1795770000", "status:ProposalReady", "teacherId:t-001"},
	} {
		out, err := srv.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table),
			Key: map[string]types.AttributeValue{"PK": s(pk), "SK": s("META")}})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if got := describe(out.Item, w); got != w {
				t.Errorf("%s: %s, want %s", pk, got, w)
			}
		}
	}
}

// describe renders the attribute named in want ("name:…") as want does: a
// string or number by its value, data and value by their type.
func describe(item map[string]types.AttributeValue, want string) string {
	name, _, _ := strings.Cut(want, ":")
	switch v := item[name].(type) {
	case *types.AttributeValueMemberS:
		if name == "data" {
			return name + ":S"
		}
		return name + ":" + v.Value
	case *types.AttributeValueMemberN:
		return name + ":" + v.Value
	case *types.AttributeValueMemberB:
		return name + ":B"
	}
	return name + ": missing"
}
