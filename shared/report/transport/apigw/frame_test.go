package apigw_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/records"
	"github.com/insightedge/insightedge/shared/report"
)

// issue 32: API Gateway closes a socket with 1009 on a message over its
// 128 KB quota before the function sees it; a message over MaxFrameBytes
// that did reach the function (the limits are equal, so only if the quota
// changed) is answered with agent.error, and the connection is kept.
func TestOversizedMessageIsAnswered(t *testing.T) {
	ctx := context.Background()
	store := report.NewStore(records.NewMemory())
	gw, p := newGateway(t, store, eventlog.NewMemory())
	route := func(key, body string) events.APIGatewayProxyResponse {
		t.Helper()
		resp, err := gw.Route(ctx, events.APIGatewayWebsocketProxyRequest{Body: body,
			RequestContext: events.APIGatewayWebsocketProxyRequestContext{RouteKey: key, ConnectionID: "c1"}})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	route("$connect", "")
	big := fmt.Sprintf(`{"event":"user.create_session","content":%q}`, strings.Repeat("x", 300<<10))
	if r := route("$default", big); r.StatusCode != 200 {
		t.Fatalf("oversized message: %d", r.StatusCode)
	}
	got := p.got["c1"]
	var meta struct{ Code string }
	if len(got) == 1 {
		_ = json.Unmarshal(got[0].Metadata, &meta)
	}
	if len(got) != 1 || got[0].Event != "agent.error" || meta.Code != "VALIDATION_ERROR" ||
		!strings.Contains(string(got[0].Content), fmt.Sprintf("larger than %d", report.MaxFrameBytes)) {
		t.Fatalf("answers %+v", got)
	}
	// The connection is kept: its next message is carried out.
	route("$default", `{"event":"user.create_session"}`)
	if c, err := store.GetConnection(ctx, "c1"); err != nil || len(c.Sessions) != 1 {
		t.Fatalf("after the oversized message: %+v %v", c, err)
	}
}
