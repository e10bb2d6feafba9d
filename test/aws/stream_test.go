package awstest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdaurl"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/smithy-go/middleware"

	"github.com/insightedge/insightedge/infra"
	"github.com/insightedge/insightedge/local/asl"
	"github.com/insightedge/insightedge/shared/appschedule/schedtest"
	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
	"github.com/insightedge/insightedge/shared/wire"
	"github.com/insightedge/insightedge/shared/wire/awswire"
)

// capacity counts a client's DynamoDB requests and the capacity units
// DynamoDB (here dynalite) says they consumed: an instrumented SDK client.
type capacity struct {
	mu    sync.Mutex
	calls map[string]int
	read  float64 // read request units (strongly consistent: 1 per 4 KB)
	write float64 // write request units (1 per 1 KB)
	// writes are the write units by the kind of item written (itemKind).
	writes map[string]float64
}

func newCapacity() *capacity { return &capacity{calls: map[string]int{}, writes: map[string]float64{}} }

// itemKind names the kind of item a key addresses, from the table's key
// design (dynamostore's package comment): "session", "turn", "turn index",
// "record <name>", "event log", "lease <kind>", "app", ….
func itemKind(key map[string]types.AttributeValue) string {
	s := func(name string) string {
		if v, ok := key[name].(*types.AttributeValueMemberS); ok {
			return v.Value
		}
		return ""
	}
	pk, sk := s("PK"), s("SK")
	pkKind, _, _ := strings.Cut(pk, "#")
	skKind, rest, _ := strings.Cut(sk, "#")
	switch {
	case pkKind == "LEASES":
		return "lease " + skKind
	case pkKind == "STREAM":
		return "event log"
	case pkKind == "SESSION" && sk == "META":
		return "session"
	case pkKind == "SESSION" && skKind == "TURN":
		return "turn"
	case pkKind == "SESSION" && skKind == "TURNAT":
		return "turn index"
	case pkKind == "SESSION" && skKind == "REC":
		// turn/<id>/<what>/… or build/<id>/<what>: name the what.
		parts := strings.Split(rest, "/")
		if len(parts) >= 3 {
			return "record " + parts[2]
		}
		return "record " + parts[0]
	}
	return strings.ToLower(pkKind) + " " + strings.ToLower(skKind)
}

// writeKeys are the keys of the items a write request addresses.
func writeKeys(params any) []map[string]types.AttributeValue {
	switch p := params.(type) {
	case *dynamodb.PutItemInput:
		return []map[string]types.AttributeValue{p.Item}
	case *dynamodb.UpdateItemInput:
		return []map[string]types.AttributeValue{p.Key}
	case *dynamodb.DeleteItemInput:
		return []map[string]types.AttributeValue{p.Key}
	case *dynamodb.BatchWriteItemInput:
		var out []map[string]types.AttributeValue
		for _, reqs := range p.RequestItems {
			for _, r := range reqs {
				switch {
				case r.PutRequest != nil:
					out = append(out, r.PutRequest.Item)
				case r.DeleteRequest != nil:
					out = append(out, r.DeleteRequest.Key)
				}
			}
		}
		return out
	}
	return nil
}

// option adds the counting middleware to a DynamoDB client.
func (c *capacity) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("CountCapacity", c.handle), middleware.After)
	})
}

func (c *capacity) handle(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	total := types.ReturnConsumedCapacityTotal
	switch p := in.Parameters.(type) {
	case *dynamodb.GetItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.PutItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.UpdateItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.QueryInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.BatchWriteItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.DeleteItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.BatchGetItemInput:
		p.ReturnConsumedCapacity = total
	}
	out, md, err := next.HandleInitialize(ctx, in)
	var read, write float64
	units := func(cc *types.ConsumedCapacity) float64 {
		if cc == nil || cc.CapacityUnits == nil {
			return 0
		}
		return *cc.CapacityUnits
	}
	switch r := out.Result.(type) {
	case *dynamodb.GetItemOutput:
		read = units(r.ConsumedCapacity)
	case *dynamodb.QueryOutput:
		read = units(r.ConsumedCapacity)
	case *dynamodb.BatchGetItemOutput:
		for i := range r.ConsumedCapacity {
			read += units(&r.ConsumedCapacity[i])
		}
	case *dynamodb.DeleteItemOutput:
		write = units(r.ConsumedCapacity)
	case *dynamodb.PutItemOutput:
		write = units(r.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		write = units(r.ConsumedCapacity)
	case *dynamodb.BatchWriteItemOutput:
		for i := range r.ConsumedCapacity {
			write += units(&r.ConsumedCapacity[i])
		}
	}
	if err != nil && read == 0 && write == 0 {
		// A lost condition still consumes a write unit.
		if op := awsmiddleware.GetOperationName(ctx); op == "PutItem" || op == "UpdateItem" || op == "DeleteItem" {
			write = 1
		}
	}
	c.mu.Lock()
	c.calls[awsmiddleware.GetOperationName(ctx)]++
	c.read += read
	c.write += write
	if keys := writeKeys(in.Parameters); len(keys) > 0 {
		// A batch's units are shared evenly among its items.
		for _, k := range keys {
			c.writes[itemKind(k)] += write / float64(len(keys))
		}
	}
	c.mu.Unlock()
	return out, md, err
}

func (c *capacity) snapshot() (map[string]int, float64, float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.calls), c.read, c.write
}

// writesByKind returns the write units by kind of item.
func (c *capacity) writesByKind() map[string]float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.writes)
}

func (c *capacity) reset() {
	c.mu.Lock()
	c.calls, c.read, c.write, c.writes = map[string]int{}, 0, 0, map[string]float64{}
	c.mu.Unlock()
}

// invocations counts the task functions' invocations and their durations.
type invocations struct {
	mu    sync.Mutex
	count map[string]int
	dur   map[string]time.Duration
}

func (iv *invocations) wrap(name string, task wire.Task) asl.Handler {
	return func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		start := time.Now()
		out, err := task(ctx, in)
		iv.mu.Lock()
		iv.count[name]++
		iv.dur[name] += time.Since(start)
		iv.mu.Unlock()
		return out, err
	}
}

func (iv *invocations) reset() {
	iv.mu.Lock()
	iv.count, iv.dur = map[string]int{}, map[string]time.Duration{}
	iv.mu.Unlock()
}

// stepFunctions plays Step Functions' StartExecution for the stream and
// replay functions: it runs the workflow of the machine started (the very
// ASL file) with our interpreter, its tasks being the task functions'
// graph, and counts the state transitions.
type stepFunctions struct {
	t        *testing.T
	machines map[string]*asl.Machine // ARN → machine
	handlers map[string]asl.Handler
	wg       sync.WaitGroup

	mu          sync.Mutex
	transitions map[string]int
	starts      []string
	failures    []string
	// gate, when set, holds the executions started until it is closed.
	gate chan struct{}
}

// hold makes the next executions wait until the returned func is called.
func (sf *stepFunctions) hold() (release func()) {
	gate := make(chan struct{})
	sf.mu.Lock()
	sf.gate = gate
	sf.mu.Unlock()
	return sync.OnceFunc(func() {
		sf.mu.Lock()
		sf.gate = nil
		sf.mu.Unlock()
		close(gate)
	})
}

// sfnMachine is a state machine the stand-in runs: its ARN, its ASL and
// the tasks its substitutions name.
type sfnMachine struct {
	arn   string
	def   []byte
	tasks map[string]wire.Task
}

func newStepFunctions(t *testing.T, iv *invocations, ms ...sfnMachine) *stepFunctions {
	t.Helper()
	sf := &stepFunctions{t: t, machines: map[string]*asl.Machine{}, handlers: map[string]asl.Handler{}, transitions: map[string]int{}}
	for _, mc := range ms {
		subs := map[string]string{}
		for _, m := range regexp.MustCompile(`\$\{([A-Za-z0-9_]+)\}`).FindAllStringSubmatch(string(mc.def), -1) {
			subs[m[1]] = "arn:aws:lambda:us-east-1:123456789012:function:" + m[1]
			if _, ok := mc.tasks[m[1]]; !ok {
				sf.handlers[subs[m[1]]] = func(context.Context, json.RawMessage) (json.RawMessage, error) {
					return nil, fmt.Errorf("no task %s in wire.App", m[1])
				}
			}
		}
		for name, task := range mc.tasks {
			subs[name] = "arn:aws:lambda:us-east-1:123456789012:function:" + name
			sf.handlers[subs[name]] = iv.wrap(name, task)
		}
		m, err := asl.Parse(mc.def, subs)
		if err != nil {
			t.Fatal(err)
		}
		sf.machines[mc.arn] = m
	}
	return sf
}

func (sf *stepFunctions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in struct {
		StateMachineArn, Name, Input string
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &in)
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	fail := func(typ string) {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"__type": typ, "message": typ})
	}
	switch r.Header.Get("X-Amz-Target") {
	case "AWSStepFunctions.StartExecution":
	case "AWSStepFunctions.StopExecution":
		fail("InvalidArn") // Express executions cannot be stopped
		return
	default:
		fail("UnknownOperationException")
		return
	}
	machine, ok := sf.machines[in.StateMachineArn]
	if !ok {
		fail("StateMachineDoesNotExist")
		return
	}
	sf.mu.Lock()
	sf.starts = append(sf.starts, in.Name)
	gate := sf.gate
	sf.mu.Unlock()
	sf.wg.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testBound)
		defer cancel()
		if gate != nil {
			select {
			case <-gate:
			case <-ctx.Done():
			}
		}
		_, err := machine.Run(ctx, json.RawMessage(in.Input), asl.Options{Handlers: sf.handlers, Logger: discardLogger(),
			ExecutionID: in.Name, OnTransition: func(state, _ string) {
				sf.mu.Lock()
				sf.transitions[state]++
				sf.mu.Unlock()
			}})
		if err != nil {
			sf.mu.Lock()
			sf.failures = append(sf.failures, in.Name+": "+err.Error())
			sf.mu.Unlock()
		}
	})
	_ = json.NewEncoder(w).Encode(map[string]any{
		"executionArn": strings.Replace(in.StateMachineArn, ":stateMachine:", ":express:", 1) + ":" + in.Name + ":1",
		"startDate":    float64(time.Now().Unix()),
	})
}

func (sf *stepFunctions) reset() {
	sf.mu.Lock()
	sf.transitions = map[string]int{}
	sf.mu.Unlock()
}

// urlHandler is the stream function's handler as Lambda runs it.
type urlHandler func(context.Context, *events.LambdaFunctionURLRequest) (*events.LambdaFunctionURLStreamingResponse, error)

// sse is one server-sent event as a client reads it.
type sse struct {
	ID   int64
	Name string // the event line of named-event streams (research)
	Data string
}

// response is a streamed response read event by event.
type response struct {
	Status  int
	Headers map[string]string
	r       *bufio.Reader
	body    io.Reader
}

// open invokes the handler and returns the response, its body unread.
func open(t *testing.T, ctx context.Context, h urlHandler, req events.LambdaFunctionURLRequest) *response {
	t.Helper()
	resp, err := h(ctx, &req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.RequestContext.HTTP.Method, req.RawPath, err)
	}
	return &response{Status: resp.StatusCode, Headers: resp.Headers, r: bufio.NewReader(resp.Body), body: resp.Body}
}

// openStream opens req as open does and requires an event stream: status
// 200 and Content-Type text/event-stream.
func openStream(t *testing.T, ctx context.Context, h urlHandler, req events.LambdaFunctionURLRequest) *response {
	t.Helper()
	resp := open(t, ctx, h, req)
	if resp.Status != http.StatusOK || !strings.HasPrefix(resp.Headers["Content-Type"], "text/event-stream") {
		t.Fatalf("%s %s: status %d headers %v: %s", req.RequestContext.HTTP.Method, req.RawPath, resp.Status, resp.Headers, resp.text(t))
	}
	return resp
}

// next reads the next event; ok is false at the end of the body.
func (r *response) next(t *testing.T) (ev sse, ok bool) {
	t.Helper()
	for {
		line, err := r.r.ReadString('\n')
		if err == io.EOF && line == "" {
			return ev, false
		}
		if err != nil && err != io.EOF {
			t.Fatalf("read the stream: %v", err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "":
			if ev.Data != "" {
				return ev, true
			}
		case strings.HasPrefix(line, "id: "):
			ev.ID, _ = strconv.ParseInt(strings.TrimPrefix(line, "id: "), 10, 64)
		case strings.HasPrefix(line, "event: "):
			ev.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			ev.Data = strings.TrimPrefix(line, "data: ")
		}
	}
}

// all reads the rest of the stream.
func (r *response) all(t *testing.T) []sse {
	t.Helper()
	var out []sse
	for {
		ev, ok := r.next(t)
		if !ok {
			return out
		}
		out = append(out, ev)
	}
}

func (r *response) text(t *testing.T) string {
	t.Helper()
	b, err := io.ReadAll(r.r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// urlRequest is a Function URL event.
func urlRequest(method, path, token, body string, headers ...string) events.LambdaFunctionURLRequest {
	h := map[string]string{"authorization": "Bearer " + token, "content-type": "application/json", "user-agent": "insightedge-test"}
	for i := 0; i+1 < len(headers); i += 2 {
		h[headers[i]] = headers[i+1]
	}
	return events.LambdaFunctionURLRequest{
		Version: "2.0", RawPath: path, Headers: h, Body: body,
		RequestContext: events.LambdaFunctionURLRequestContext{
			AccountID: "anonymous", RequestID: "sample-request", APIID: "sampleurlid",
			DomainName: "sampleurlid.lambda-url.us-east-1.on.aws", DomainPrefix: "sampleurlid",
			HTTP: events.LambdaFunctionURLRequestContextHTTPDescription{Method: method, Path: path,
				Protocol: "HTTP/1.1", SourceIP: "203.0.113.7", UserAgent: "insightedge-test"},
		},
	}
}

// streamRig is the stream function and its surroundings on the shared
// dynalite and offline model.
type streamRig struct {
	handler   urlHandler
	schedules *schedtest.Server // EventBridge Scheduler
	edgeDB    *capacity
	stepsDB   *capacity
	sfn       *stepFunctions
	lambdas   *invocations
	token     string
	table     string
	// store reads the table (issue 25: what a turn leaves stored); stored
	// is its size at the last report.
	store  *dynamodb.Client
	stored int64
	// logs counts the JSON log and EMF metric lines the edge and the steps
	// write (CloudWatch Logs ingests both; issue 25).
	logs *logMeter
}

func (s *suite) newStreamRig(t *testing.T) *streamRig {
	t.Helper()
	dyn := s.dynalite(t)
	table := dyn.NewTable(t)
	rig := &streamRig{edgeDB: newCapacity(), stepsDB: newCapacity(), token: sampleToken(t, "t-001"), table: table,
		store: dynamotest.NewClient(dyn.Endpoint), logs: &logMeter{},
		lambdas: &invocations{count: map[string]int{}, dur: map[string]time.Duration{}}}

	// The task functions' graph, as they build it, with a counting client.
	stepsEnv := s.functionEnv(t, "AgentTurnFunction", table, fakeSSM(t, testSecrets()))
	o := localAWS(dyn.Endpoint, stepsEnv["AWS_ENDPOINT_URL_SSM"], "")
	o.DynamoDB = append(o.DynamoDB, rig.stepsDB.option)
	o.Output = rig.logs
	steps, err := awswire.FromEnv(context.Background(), func(k string) string { return stepsEnv[k] }, o)
	if err != nil {
		t.Fatal(err)
	}
	// The research function's graph: its own environment (the Tavily key
	// from SSM), searching the local search service.
	researchEnv := s.researchEnv(t, table, stepsEnv["AWS_ENDPOINT_URL_SSM"], searchService(t))
	ro := localAWS(dyn.Endpoint, stepsEnv["AWS_ENDPOINT_URL_SSM"], "")
	ro.DynamoDB = append(ro.DynamoDB, rig.stepsDB.option)
	researchSteps, err := awswire.FromEnv(context.Background(), func(k string) string { return researchEnv[k] }, ro)
	if err != nil {
		t.Fatal(err)
	}
	rig.sfn = newStepFunctions(t, rig.lambdas, sfnMachine{testMachineARN, infra.ConversationASL, steps.ConversationTasks()},
		sfnMachine{testBuildARN, infra.BuildASL, steps.BuildTasks()},
		sfnMachine{testResearchARN, infra.ResearchASL, researchSteps.ResearchTasks()})
	sfnSrv := httptest.NewServer(rig.sfn)
	t.Cleanup(func() {
		rig.sfn.wg.Wait() // the executions end with their turns
		sfnSrv.Close()
	})

	// The stream function's graph, from its template environment.
	env := s.functionEnv(t, "StreamFunction", table, stepsEnv["AWS_ENDPOINT_URL_SSM"])
	o = localAWS(dyn.Endpoint, env["AWS_ENDPOINT_URL_SSM"], sfnSrv.URL)
	o.DynamoDB = append(o.DynamoDB, rig.edgeDB.option)
	o.Output = rig.logs
	rig.schedules = schedtest.Start(t)
	o.Scheduler = append(o.Scheduler, func(so *scheduler.Options) { so.BaseEndpoint = aws.String(rig.schedules.URL) })
	app, err := awswire.FromEnv(context.Background(), func(k string) string { return env[k] }, o)
	if err != nil {
		t.Fatal(err)
	}
	h, err := app.EdgeHandler()
	if err != nil {
		t.Fatal(err)
	}
	rig.handler = lambdaurl.Wrap(h)
	return rig
}

func (rig *streamRig) reset() {
	rig.edgeDB.reset()
	rig.stepsDB.reset()
	rig.lambdas.reset()
	rig.sfn.reset()
	rig.logs.reset()
}

// chunkType is the type of an event's chunk ("[DONE]" for the end marker).
func chunkType(t *testing.T, ev sse) string {
	t.Helper()
	if ev.Data == "[DONE]" {
		return "[DONE]"
	}
	var c struct{ Type string }
	if err := json.Unmarshal([]byte(ev.Data), &c); err != nil {
		t.Fatalf("event %d is not JSON: %q", ev.ID, ev.Data)
	}
	return c.Type
}

// checkStream checks a complete turn's stream: ids 1..n without a gap, a
// start first, a finish last, then [DONE]; it returns the chunk types.
func checkStream(t *testing.T, evs []sse) []string {
	t.Helper()
	if len(evs) < 3 {
		t.Fatalf("stream has %d events", len(evs))
	}
	var types []string
	for i, ev := range evs {
		types = append(types, chunkType(t, ev))
		if i < len(evs)-1 && ev.ID != int64(i+1) {
			t.Fatalf("event %d has id %d, want %d", i, ev.ID, i+1)
		}
	}
	n := len(types)
	if types[0] != "start" || types[n-2] != "finish" || types[n-1] != "[DONE]" {
		t.Fatalf("stream = %v, want start ... finish [DONE]", types)
	}
	return types
}

// testStreamTurn runs whole turns through the stream function's handler
// (lambdaurl.Wrap over the edge, as Lambda runs it) with DynamoDB (dynalite)
// as the store and the event log: a quiz turn and a chat turn, a resume with
// Last-Event-ID, and a 409 for a second concurrent turn of a session. It
// counts what each turn costs and prints the cost table of docs/cost.md.
func (s *suite) testStreamTurn(t *testing.T) {
	rig := s.newStreamRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), testBound)
	defer cancel()

	quizBody := `{"message":"出 5 道牛顿第一定律的选择题"}`
	sample := urlRequest(http.MethodPost, "/api/conversation/stream", rig.token, quizBody)
	req := s.urlEvent(t, "stream", sample)

	var reports []turnReport
	var quiz []sse
	var conv string
	t.Run("quiz", func(t *testing.T) {
		rig.reset()
		start := time.Now()
		resp := openStream(t, ctx, rig.handler, req)
		conv = resp.Headers["X-Conversation-Id"]
		quiz = resp.all(t)
		types := checkStream(t, quiz)
		for _, want := range []string{"data-tool-progress", "data-quiz", "text-delta"} {
			if !strings.Contains(strings.Join(types, " "), want) {
				t.Errorf("the quiz turn lacks %s: %v", want, types)
			}
		}
		reports = append(reports, rig.report(t, "quiz", time.Since(start)))
	})
	if conv == "" {
		t.Fatal("no conversation id")
	}

	t.Run("resume", func(t *testing.T) {
		// A client that saw the first 3 events comes back.
		const seen = 3
		resp := open(t, ctx, rig.handler, urlRequest(http.MethodGet, "/api/conversation/"+conv+"/stream", rig.token, "", "last-event-id", strconv.Itoa(seen)))
		if resp.Status != http.StatusOK {
			t.Fatalf("resume: status %d: %s", resp.Status, resp.text(t))
		}
		got := resp.all(t)
		want := quiz[seen:]
		if len(got) != len(want) {
			t.Fatalf("resume after %d returned %d events, want %d", seen, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("resumed event %d = %+v, want %+v", i, got[i], want[i])
			}
		}
	})

	t.Run("chat", func(t *testing.T) {
		rig.reset()
		start := time.Now()
		resp := open(t, ctx, rig.handler, urlRequest(http.MethodPost, "/api/conversation/stream", rig.token, `{"message":"What is photosynthesis?"}`))
		if resp.Status != http.StatusOK {
			t.Fatalf("status %d: %s", resp.Status, resp.text(t))
		}
		types := checkStream(t, resp.all(t))
		if !strings.Contains(strings.Join(types, " "), "text-delta") {
			t.Errorf("the chat turn has no text: %v", types)
		}
		reports = append(reports, rig.report(t, "chat", time.Since(start)))
	})

	t.Run("conflict", func(t *testing.T) {
		// A turn of the quiz conversation is running (its execution held) ...
		release := rig.sfn.hold()
		defer release()
		body := fmt.Sprintf(`{"message":"What is photosynthesis?","conversationId":%q}`, conv)
		first := open(t, ctx, rig.handler, urlRequest(http.MethodPost, "/api/conversation/stream", rig.token, body))
		if first.Status != http.StatusOK {
			t.Fatalf("first turn: status %d: %s", first.Status, first.text(t))
		}
		if ev, ok := first.next(t); !ok || chunkType(t, ev) != "start" {
			t.Fatalf("first turn's first event = %+v, %v; want start", ev, ok)
		}
		// ... so a second one is refused by the session's status change.
		second := open(t, ctx, rig.handler, urlRequest(http.MethodPost, "/api/conversation/stream", rig.token, body))
		var e struct {
			Error struct{ Code string } `json:"error"`
		}
		text := second.text(t)
		if second.Status != http.StatusConflict || json.Unmarshal([]byte(text), &e) != nil || e.Error.Code != "CONFLICT" {
			t.Fatalf("second concurrent turn: status %d %s, want 409 CONFLICT", second.Status, text)
		}
		release()
		checkStream(t, append([]sse{{ID: 1, Data: `{"type":"start"}`}}, first.all(t)...))
	})

	t.Run("unauthenticated", func(t *testing.T) {
		resp := open(t, ctx, rig.handler, urlRequest(http.MethodPost, "/api/conversation/stream", "not-a-token", quizBody))
		if resp.Status != http.StatusUnauthorized {
			t.Fatalf("status %d, want 401: %s", resp.Status, resp.text(t))
		}
	})

	rig.sfn.wg.Wait()
	if len(rig.sfn.failures) > 0 {
		t.Errorf("executions failed: %v", rig.sfn.failures)
	}
	if len(reports) == 2 {
		t.Logf("measured per turn (offline model: durations are not the model's):\n%s", measuredTable("turn", reports))
		t.Logf("cost model:\n%s", costTable(reports, rig.textBlockBytes(t)))
	}
}
