package awstest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/report"
)

// managementAPI stands in for API Gateway's connection management endpoint:
// it records each signed POST @connections/{id}.
type managementAPI struct {
	mu    sync.Mutex
	posts map[string][]report.Envelope
	bad   []string
}

func (m *managementAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, ok := strings.CutPrefix(r.URL.Path, "/test/@connections/")
	body, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	defer m.mu.Unlock()
	if !ok || r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
		m.bad = append(m.bad, r.Method+" "+r.URL.Path)
		w.WriteHeader(http.StatusForbidden)
		return
	}
	var env report.Envelope
	if err := json.Unmarshal(body, &env); err != nil {
		m.bad = append(m.bad, "not an envelope: "+string(body))
	}
	m.posts[id] = append(m.posts[id], env)
}

func (m *managementAPI) of(conn string) []report.Envelope {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]report.Envelope(nil), m.posts[conn]...)
}

// testSocket runs the ws function under the emulator with events/ samples:
// $connect (a bearer token), $default (user.create_session, then a bad
// frame), the DynamoDB stream batch that carries the new session's first
// event, and $disconnect; against dynalite and a stand-in management API.
func (s *suite) testSocket(t *testing.T) {
	rie := rieBinary(t)
	bins := s.binaries(t)[runtime.GOARCH]
	dyn := s.dynalite(t)
	table := dyn.NewTable(t)
	store := report.NewStore(dynamostore.NewRecords(dyn.Client, table, dynamostore.Options{}))
	mgmt := &managementAPI{posts: map[string][]report.Envelope{}}
	api := httptest.NewServer(mgmt)
	defer api.Close()
	secrets := testSecrets()
	env := s.functionEnv(t, "WsFunction", table, fakeSSM(t, secrets))
	env["WS_CALLBACK_URL"] = api.URL + "/test"
	ws := emulate(t, rie, filepath.Join(bins, "ws"), env)
	defer func() { t.Logf("ws cold start (init, this machine, linux/%s): %s", runtime.GOARCH, ws.initDuration()) }()
	const conn = "sample-connection="
	wsEvent := func(route, body string, headers map[string]string) events.APIGatewayWebsocketProxyRequest {
		return events.APIGatewayWebsocketProxyRequest{Body: body, Headers: headers, IsBase64Encoded: false,
			RequestContext: events.APIGatewayWebsocketProxyRequestContext{RouteKey: route, ConnectionID: conn, EventType: strings.ToUpper(strings.Trim(route, "$")),
				Stage: "test", DomainName: "sample.execute-api.us-east-1.amazonaws.com", APIID: "sample", RequestID: "sample-" + strings.Trim(route, "$")}}
	}
	var resp events.APIGatewayProxyResponse
	call := func(name string, want any) {
		t.Helper()
		resp = events.APIGatewayProxyResponse{}
		if err := json.Unmarshal(ws.call(t, s.sampleEvent(t, name, want)), &resp); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}

	call("ws-connect", wsEvent("$connect", "", map[string]string{"Authorization": "Bearer " + sampleToken(t, "t-001")}))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("$connect: %d %s", resp.StatusCode, resp.Body)
	}
	if c, err := store.GetConnection(context.Background(), conn); err != nil || c.TeacherID != "t-001" {
		t.Fatalf("the connection after $connect: %+v %v", c, err)
	}
	unauth := wsEvent("$connect", "", nil)
	unauth.RequestContext.ConnectionID = "no-token"
	payload, _ := json.Marshal(unauth)
	_ = json.Unmarshal(ws.call(t, payload), &resp)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("$connect without a token: %d", resp.StatusCode)
	}

	call("ws-default", wsEvent("$default", `{"event":"user.create_session"}`, nil))
	c, err := store.GetConnection(context.Background(), conn)
	if resp.StatusCode != http.StatusOK || err != nil || len(c.Sessions) != 1 {
		t.Fatalf("$default create_session: %d, %+v %v", resp.StatusCode, c, err)
	}
	sid := c.Sessions[0]
	payload, _ = json.Marshal(wsEvent("$default", `{"event":"user.message","session_id":"`+sid+`","content":""}`, nil))
	ws.call(t, payload)
	if got := mgmt.of(conn); len(got) != 1 || got[0].Event != "agent.error" || !strings.Contains(string(got[0].Content), "content is empty") {
		t.Fatalf("the answer to an empty message: %+v (bad requests %v)", got, mgmt.bad)
	}

	// The stream consumer: the INSERT of the session's first event.
	evs, err := dynamostore.New(dyn.Client, table, dynamostore.Options{}).Events().Read(context.Background(), report.StreamName(sid), 0, 10)
	if err != nil || len(evs) != 1 {
		t.Fatalf("the session's log: %v %v", evs, err)
	}
	batch := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{{EventName: "INSERT", EventSource: "aws:dynamodb", AWSRegion: "us-east-1",
		Change: events.DynamoDBStreamRecord{StreamViewType: "NEW_IMAGE", SequenceNumber: "100", SizeBytes: 200,
			Keys: map[string]events.DynamoDBAttributeValue{"PK": events.NewStringAttribute("STREAM#template:sample-session"), "SK": events.NewStringAttribute("EV#000000000001")},
			NewImage: map[string]events.DynamoDBAttributeValue{"PK": events.NewStringAttribute("STREAM#template:sample-session"),
				"SK": events.NewStringAttribute("EV#000000000001"), "data": events.NewBinaryAttribute([]byte(`{"event":"agent.session_created","session_id":"sample-session"}`))}}}}}
	// The sample names a fixed session: bind it to the connection as create did.
	if err := store.CreateSession(context.Background(), report.Session{ID: "sample-session", TeacherID: "t-001", ConnectionID: conn, Status: report.StatusIdle}); err != nil && !errors.Is(err, report.ErrExists) {
		t.Fatal(err)
	}
	// The relay posts the session's log from its cursor (the record only
	// says there is something new): the sample's event is in the log.
	sampleLog := dynamostore.New(dyn.Client, table, dynamostore.Options{}).Events()
	if prev, _ := sampleLog.Read(context.Background(), report.StreamName("sample-session"), 0, 1); len(prev) == 0 {
		if _, err := sampleLog.Append(context.Background(), report.StreamName("sample-session"),
			eventlog.Event{Data: []byte(`{"event":"agent.session_created","session_id":"sample-session"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	ws.call(t, s.sampleEvent(t, "ws-relay", batch))
	if got := mgmt.of(conn); len(got) != 2 || got[1].Event != "agent.session_created" || got[1].SessionID != "sample-session" {
		t.Fatalf("relayed: %+v (bad requests %v)", got, mgmt.bad)
	}

	call("ws-disconnect", wsEvent("$disconnect", "", nil))
	if _, err := store.GetConnection(context.Background(), conn); resp.StatusCode != http.StatusOK || !errors.Is(err, report.ErrNotFound) {
		t.Fatalf("$disconnect: %d, connection %v", resp.StatusCode, err)
	}
	if sess, _ := store.GetSession(context.Background(), sid); sess.Status != report.StatusClosed {
		t.Fatalf("the connection's session after $disconnect: %s", sess.Status)
	}
}
