package sfnstart_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/insightedge/insightedge/shared/blueprint/launch"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/sfnstart"
	"github.com/insightedge/insightedge/shared/workflow"
)

const machine = "arn:aws:states:us-east-1:123456789012:stateMachine:conversation-dev"

// call is one request the fake Step Functions endpoint received.
type call struct {
	Op   string
	Body map[string]any
}

// fakeSFN is the Step Functions JSON API at the edge of the test: it
// records each call and answers with the error named in errs[op], if any.
type fakeSFN struct {
	mu    sync.Mutex
	calls []call
	errs  map[string]string
}

func (f *fakeSFN) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AWSStepFunctions.")
	body, _ := io.ReadAll(r.Body)
	var m map[string]any
	_ = json.Unmarshal(body, &m)
	f.mu.Lock()
	f.calls = append(f.calls, call{Op: op, Body: m})
	errType := f.errs[op]
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	if errType != "" {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"__type": errType, "message": "fake " + errType})
		return
	}
	switch op {
	case "StartExecution":
		_ = json.NewEncoder(w).Encode(map[string]any{"executionArn": "arn:aws:states:us-east-1:123456789012:express:conversation-dev:" + m["name"].(string) + ":x", "startDate": 1.7645e9})
	default:
		_ = json.NewEncoder(w).Encode(map[string]any{"stopDate": 1.7645e9})
	}
}

// The Starters are the edge's and the launcher's.
var (
	_ edge.Starter   = (*sfnstart.Starter[workflow.ConversationState])(nil)
	_ launch.Starter = (*sfnstart.Starter[workflow.BuildState])(nil)
)

func newStarter(t *testing.T, f *fakeSFN, o sfnstart.Options) *sfnstart.Starter[workflow.ConversationState] {
	t.Helper()
	return newStarterOf[workflow.ConversationState](t, f, machine, o)
}

func newStarterOf[In any](t *testing.T, f *fakeSFN, arn string, o sfnstart.Options) *sfnstart.Starter[In] {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	client := sfn.New(sfn.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
		Retryer:     aws.NopRetryer{}, // one request per call, so that calls can be counted
	})
	s, err := sfnstart.New[In](client, arn, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func input() workflow.ConversationState {
	return workflow.NewConversationState(workflow.Turn{SessionID: "conv-1", TurnID: "turn-1", TeacherID: "teacher-1",
		MessageID: "msg-1", Message: "出 5 道牛顿第一定律的选择题"})
}

func TestStart(t *testing.T) {
	f := &fakeSFN{}
	s := newStarter(t, f, sfnstart.Options{Express: true, TraceHeader: func(context.Context) string {
		return "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1"
	}})
	if err := s.Start(context.Background(), "turn-1", input()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	if len(f.calls) != 1 || f.calls[0].Op != "StartExecution" {
		t.Fatalf("calls = %+v, want one StartExecution", f.calls)
	}
	b := f.calls[0].Body
	if b["stateMachineArn"] != machine || b["name"] != "turn-1" || b["traceHeader"] != "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1" {
		t.Fatalf("StartExecution body = %v", b)
	}
	var got workflow.ConversationState
	if err := json.Unmarshal([]byte(b["input"].(string)), &got); err != nil {
		t.Fatalf("input is not a ConversationState: %v", err)
	}
	want := input()
	if !reflect.DeepEqual(got.Turn, want.Turn) || got.Attempt != 1 || got.Agent.ToolCalls == nil || got.Retry != nil {
		t.Fatalf("input = %+v, want %+v", got, want)
	}
	// The ASL's "$.retry" and "$.agent.toolCalls" paths need these keys present.
	if !strings.Contains(b["input"].(string), `"retry":null`) || !strings.Contains(b["input"].(string), `"toolCalls":[]`) {
		t.Fatalf("input %s lacks retry:null or toolCalls:[]", b["input"])
	}
}

// TestStartBuild starts a page build: the Build machine's input is the
// build's ids with an explicit null error, named after the build.
func TestStartBuild(t *testing.T) {
	const buildMachine = "arn:aws:states:us-east-1:123456789012:stateMachine:build-dev"
	f := &fakeSFN{}
	s := newStarterOf[workflow.BuildState](t, f, buildMachine, sfnstart.Options{Express: true})
	in := workflow.NewBuildState(workflow.Build{BuildID: "build-1", TeacherID: "t-001", Mode: "build", TraceID: "trace-1"})
	if err := s.Start(context.Background(), "build-1", in); err != nil {
		t.Fatalf("Start: %v", err)
	}
	if len(f.calls) != 1 || f.calls[0].Op != "StartExecution" {
		t.Fatalf("calls = %+v, want one StartExecution", f.calls)
	}
	b := f.calls[0].Body
	if b["stateMachineArn"] != buildMachine || b["name"] != "build-1" {
		t.Fatalf("StartExecution body = %v", b)
	}
	// The ASL's Finish state reads "$.error": it must be there, null.
	const want = `{"build":{"buildId":"build-1","teacherId":"t-001","mode":"build","traceId":"trace-1"},"error":null}`
	if b["input"] != want {
		t.Fatalf("input = %s, want %s", b["input"], want)
	}
	if _, hasTrace := b["traceHeader"]; hasTrace {
		t.Errorf("a trace header without Options.TraceHeader: %v", b["traceHeader"])
	}
}

func TestStartErrors(t *testing.T) {
	tests := []struct {
		name  string
		exec  string
		in    workflow.ConversationState
		fault string
	}{
		{"empty name", "", input(), ""},
		{"name with a slash", "turn/1", input(), ""},
		{"name too long", strings.Repeat("t", 81), input(), ""},
		{"input over 256 KB", "turn-1", func() workflow.ConversationState {
			in := input()
			in.Turn.Message = strings.Repeat("x", sfnstart.MaxInput)
			return in
		}(), ""},
		{"already exists", "turn-1", input(), "ExecutionAlreadyExists"},
		{"throttled", "turn-1", input(), "ThrottlingException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeSFN{errs: map[string]string{"StartExecution": tt.fault}}
			s := newStarter(t, f, sfnstart.Options{Express: true})
			if err := s.Start(context.Background(), tt.exec, tt.in); err == nil {
				t.Fatal("Start succeeded, want an error")
			}
			if wantCalls := map[bool]int{true: 1, false: 0}[tt.fault != ""]; len(f.calls) != wantCalls {
				t.Fatalf("%d calls reached Step Functions, want %d", len(f.calls), wantCalls)
			}
		})
	}
}

func TestStop(t *testing.T) {
	tests := []struct {
		name      string
		express   bool
		fault     string
		wantCalls int
		wantErr   bool
	}{
		{"express does nothing", true, "", 0, false},
		{"standard stops", false, "", 1, false},
		{"standard, already gone", false, "ExecutionDoesNotExist", 1, false},
		{"standard, denied", false, "AccessDeniedException", 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeSFN{errs: map[string]string{"StopExecution": tt.fault}}
			s := newStarter(t, f, sfnstart.Options{Express: tt.express})
			err := s.Stop(context.Background(), "turn-1")
			if (err != nil) != tt.wantErr {
				t.Fatalf("Stop: %v, want error %v", err, tt.wantErr)
			}
			if len(f.calls) != tt.wantCalls {
				t.Fatalf("%d calls, want %d", len(f.calls), tt.wantCalls)
			}
			if tt.wantCalls > 0 {
				want := "arn:aws:states:us-east-1:123456789012:execution:conversation-dev:turn-1"
				if f.calls[0].Op != "StopExecution" || f.calls[0].Body["executionArn"] != want {
					t.Fatalf("call = %+v, want StopExecution of %s", f.calls[0], want)
				}
			}
		})
	}
}

func TestNewRejectsBadARN(t *testing.T) {
	for _, arn := range []string{"", "conversation", "arn:aws:lambda:us-east-1:123456789012:function:x",
		"arn:aws:states:us-east-1:123456789012:execution:conversation:turn-1"} {
		if _, err := sfnstart.New[workflow.ConversationState](sfn.New(sfn.Options{}), arn, sfnstart.Options{}); err == nil {
			t.Errorf("New(%q) succeeded, want an error", arn)
		}
	}
}
