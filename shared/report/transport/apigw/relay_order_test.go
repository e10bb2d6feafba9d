package apigw_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/report"
)

// TestRelayDeliversInSeqOrder: the table's stream shows the events of
// concurrent solvers out of seq order, and an event may be written after a
// later one (its appender is slower). The socket still gets every event
// once, in seq order, without gaps: on DynamoDB (dynalite) as in AWS.
func TestRelayDeliversInSeqOrder(t *testing.T) {
	ctx := context.Background()
	srv := dynamotest.Start(t)
	table := srv.NewTable(t)
	log := dynamostore.New(srv.Client, table, dynamostore.Options{}).Events()
	store := report.NewStore(dynamostore.NewRecords(srv.Client, table, dynamostore.Options{}))
	gw, p := newGateway(t, store, log)
	if _, err := gw.Route(ctx, wsRequest("$connect", "c1", "")); err != nil {
		t.Fatal(err)
	}
	if _, err := gw.Route(ctx, wsRequest("$default", "c1", `{"event":"user.create_session"}`)); err != nil {
		t.Fatal(err)
	}
	conn, err := store.GetConnection(ctx, "c1")
	if err != nil || len(conn.Sessions) != 1 {
		t.Fatalf("connection %+v %v", conn, err)
	}
	sid := conn.Sessions[0]
	pk := "STREAM#" + report.StreamName(sid)
	rec := func(seq int64) events.DynamoDBEventRecord {
		return record("INSERT", pk, fmt.Sprintf("EV#%012d", seq), []byte(`{"event":"x"}`))
	}
	relay := func(seqs ...int64) {
		t.Helper()
		b := events.DynamoDBEvent{}
		for _, s := range seqs {
			b.Records = append(b.Records, rec(s))
		}
		if err := gw.Relay(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	relay(1) // agent.session_created

	// Two solvers append 20 events between them.
	for i := range 10 {
		for _, task := range []int{1, 2} {
			ev := report.ServerEvent(report.SolverStart{ID: task, Title: fmt.Sprint("step ", i)})
			data, err := report.Encode(sid, ev)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := log.Append(ctx, report.StreamName(sid), eventlog.Event{Data: data}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Seq 4 is allocated but its item not yet written (a slower appender).
	key := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk},
		"SK": &types.AttributeValueMemberS{Value: fmt.Sprintf("EV#%012d", 4)}}
	held, err := srv.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil || held.Item == nil {
		t.Fatalf("get seq 4: %v", err)
	}
	if _, err := srv.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key}); err != nil {
		t.Fatal(err)
	}
	// The stream shows seqs 2..21 but seq 4, shuffled, in two batches.
	var shown []int64
	for s := int64(2); s <= 21; s++ {
		if s != 4 {
			shown = append(shown, s)
		}
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shown), func(i, j int) { shown[i], shown[j] = shown[j], shown[i] })
	relay(shown[:9]...)
	relay(shown[9:]...)
	if got := len(p.got["c1"]); got != 3 {
		t.Fatalf("with seq 4 missing the socket got %d events, want 3 (1..3)", got)
	}
	// Seq 4 is written: its record brings it and everything after it.
	if _, err := srv.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: held.Item}); err != nil {
		t.Fatal(err)
	}
	relay(4)
	relay(7, 3, 21) // records seen again post nothing again

	want, err := log.Read(ctx, report.StreamName(sid), 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	got := p.got["c1"]
	if len(got) != len(want) || len(want) != 21 {
		t.Fatalf("the socket got %d events, the log has %d (want 21)", len(got), len(want))
	}
	for i, ev := range want {
		var env report.Envelope
		if err := json.Unmarshal(ev.Data, &env); err != nil {
			t.Fatal(err)
		}
		if got[i].Event != env.Event || string(got[i].Content) != string(env.Content) {
			t.Fatalf("event %d on the socket is %s %s, want seq %d: %s %s", i, got[i].Event, got[i].Content, ev.Seq, env.Event, env.Content)
		}
	}
	if s, _ := store.GetSession(ctx, sid); s.Relayed != 21 {
		t.Errorf("relay cursor %d, want 21", s.Relayed)
	}
}

func wsRequest(route, conn, body string) events.APIGatewayWebsocketProxyRequest {
	return events.APIGatewayWebsocketProxyRequest{Body: body,
		RequestContext: events.APIGatewayWebsocketProxyRequestContext{RouteKey: route, ConnectionID: conn}}
}
