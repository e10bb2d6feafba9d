package apigw_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/backend"
	"github.com/insightedge/insightedge/shared/report/control"
	"github.com/insightedge/insightedge/shared/report/pipeline"
	"github.com/insightedge/insightedge/shared/report/transport/apigw"
)

// posts records what API Gateway would deliver to each connection.
type posts struct {
	mu   sync.Mutex
	got  map[string][]report.Envelope
	gone map[string]bool
}

func (p *posts) Post(_ context.Context, conn string, data []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone[conn] {
		return apigw.ErrGone
	}
	var env report.Envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return err
	}
	p.got[conn] = append(p.got[conn], env)
	return nil
}

// sfnStub stands in for Step Functions.
type sfnStub struct{ started []string }

func (s *sfnStub) Start(_ context.Context, name string, _ json.RawMessage) error {
	s.started = append(s.started, name)
	return nil
}
func (s *sfnStub) Stop(context.Context, string) error { return nil }
func (s *sfnStub) SendTaskSuccess(context.Context, string, json.RawMessage) error {
	return nil
}

// newGateway is the ws function's handler on store and log, with Step
// Functions stubbed and API Gateway's posts recorded.
func newGateway(t *testing.T, store report.Store, log eventlog.Log) (*apigw.Handler, *posts) {
	t.Helper()
	st := &sfnStub{}
	svc, err := control.New(store, log, st, st, backend.NewResolver(backend.Options{Default: "http://127.0.0.1:1"}),
		control.Options{Settings: pipeline.DefaultSettings(), Secret: []byte("0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	p := &posts{got: map[string][]report.Envelope{}, gone: map[string]bool{}}
	return apigw.New(svc, store, log, auth.Dev{Default: "t-001"}, p, nil), p
}

func TestAPIGatewayRoutesAndRelay(t *testing.T) {
	ctx := context.Background()
	db, err := boltstore.Open(filepath.Join(t.TempDir(), "x.db"), boltstore.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	gw, p := newGateway(t, report.NewStore(db), db.Events())
	route := func(key, conn, body string, headers map[string]string) events.APIGatewayProxyResponse {
		t.Helper()
		resp, err := gw.Route(ctx, events.APIGatewayWebsocketProxyRequest{Body: body, Headers: headers,
			RequestContext: events.APIGatewayWebsocketProxyRequestContext{RouteKey: key, ConnectionID: conn}})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if r := route("$connect", "c1", "", map[string]string{"X-Teacher-Id": "bad id!"}); r.StatusCode != 401 {
		t.Fatalf("bad identity: %d", r.StatusCode)
	}
	if r := route("$connect", "c1", "", nil); r.StatusCode != 200 {
		t.Fatalf("connect: %d", r.StatusCode)
	}
	// A browser's WebSocket sends its token as ?access_token=.
	if _, err := gw.Route(ctx, events.APIGatewayWebsocketProxyRequest{QueryStringParameters: map[string]string{"access_token": "dev:t-002"},
		RequestContext: events.APIGatewayWebsocketProxyRequestContext{RouteKey: "$connect", ConnectionID: "c2"}}); err != nil {
		t.Fatal(err)
	}
	if c, err := report.NewStore(db).GetConnection(ctx, "c2"); err != nil || c.TeacherID != "t-002" {
		t.Fatalf("the query token's connection: %+v %v", c, err)
	}
	route("$default", "c1", `{"event":"user.create_session"}`, nil)
	route("$default", "c1", `{"event":"user.message","session_id":"nope","content":"q"}`, nil)
	route("$default", "c1", `{oops`, nil)
	if got := p.got["c1"]; len(got) != 2 || got[0].Event != "agent.error" || !strings.Contains(string(got[0].Content), "Session not found") ||
		!strings.Contains(string(got[1].Content), "not a JSON object") {
		t.Fatalf("direct answers %+v", got)
	}
	conn, err := report.NewStore(db).GetConnection(ctx, "c1")
	if err != nil || len(conn.Sessions) != 1 || conn.TeacherID != "t-001" {
		t.Fatalf("connection %+v %v", conn, err)
	}
	sid := conn.Sessions[0]

	// The stream consumer posts the session's new events to its socket.
	evs, _ := db.Events().Read(ctx, report.StreamName(sid), 0, 10)
	batch := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{
		record("INSERT", "STREAM#"+report.StreamName(sid), "EV#000000000001", evs[0].Data),
		record("MODIFY", "STREAM#"+report.StreamName(sid), "HEAD", nil),
		record("INSERT", "STREAM#turn-1", "EV#000000000001", []byte(`{"type":"start"}`)),
	}}
	if err := gw.Relay(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if got := p.got["c1"]; len(got) != 3 || got[2].Event != "agent.session_created" || got[2].SessionID != sid {
		t.Fatalf("relayed %+v", got)
	}
	// A record already relayed posts nothing again.
	if err := gw.Relay(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if got := p.got["c1"]; len(got) != 3 {
		t.Fatalf("relayed twice: %+v", got)
	}
	// A gone connection closes its sessions.
	p.gone["c1"] = true
	seq, err := db.Events().Append(ctx, report.StreamName(sid), eventlog.Event{Data: []byte(`{"event":"system.heartbeat"}`)})
	if err != nil {
		t.Fatal(err)
	}
	batch.Records[0] = record("INSERT", "STREAM#"+report.StreamName(sid), fmt.Sprintf("EV#%012d", seq), []byte(`{}`))
	if err := gw.Relay(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if s, _ := report.NewStore(db).GetSession(ctx, sid); s.Status != report.StatusClosed {
		t.Fatalf("session after its connection went: %s", s.Status)
	}
	if r := route("$disconnect", "c1", "", nil); r.StatusCode != 200 {
		t.Fatalf("disconnect %d", r.StatusCode)
	}
	if _, err := report.NewStore(db).GetConnection(ctx, "c1"); !errors.Is(err, report.ErrNotFound) {
		t.Fatalf("connection kept: %v", err)
	}
	if r := route("$default", "c1", `{"event":"user.create_session"}`, nil); r.StatusCode != http.StatusGone {
		t.Fatalf("unknown connection: %d", r.StatusCode)
	}
}

func record(name, pk, sk string, data []byte) events.DynamoDBEventRecord {
	img := map[string]events.DynamoDBAttributeValue{"PK": events.NewStringAttribute(pk), "SK": events.NewStringAttribute(sk)}
	if data != nil {
		img["data"] = events.NewBinaryAttribute(data)
	}
	return events.DynamoDBEventRecord{EventName: name, Change: events.DynamoDBStreamRecord{NewImage: img}}
}

func TestConnectionPoster(t *testing.T) {
	var gotAuth, gotPath, gotBody string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth, gotPath = r.Header.Get("Authorization"), r.URL.EscapedPath()
		b := make([]byte, 100)
		n, _ := r.Body.Read(b)
		gotBody = string(b[:n])
		if strings.Contains(r.URL.Path, "gone") {
			w.WriteHeader(http.StatusGone)
			return
		}
	}))
	defer srv.Close()
	p := apigw.ConnectionPoster{Endpoint: srv.URL + "/prod", Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", "")}
	if err := p.Post(context.Background(), "abc=", []byte(`{"event":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if gotPath != "/prod/@connections/abc=" || gotBody != `{"event":"x"}` ||
		!strings.HasPrefix(gotAuth, "AWS4-HMAC-SHA256 Credential=AKID/") || !strings.Contains(gotAuth, "/us-east-1/execute-api/aws4_request") {
		t.Fatalf("request: %s %s %s", gotPath, gotBody, gotAuth)
	}
	if err := p.Post(context.Background(), "gone", []byte(`{}`)); !errors.Is(err, apigw.ErrGone) {
		t.Fatalf("410: %v", err)
	}
}
