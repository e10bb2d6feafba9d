package awswire

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/aws/aws-xray-sdk-go/xray"

	"github.com/insightedge/insightedge/shared/errtest"
	"github.com/insightedge/insightedge/shared/wire"
	"github.com/insightedge/insightedge/shared/workflow"
)

// fakeParameters is SSM at the edge of the test.
type fakeParameters struct {
	values map[string]string
	err    error
	asked  []string
}

func (f *fakeParameters) GetParameter(_ context.Context, in *ssm.GetParameterInput, _ ...func(*ssm.Options)) (*ssm.GetParameterOutput, error) {
	f.asked = append(f.asked, aws.ToString(in.Name))
	if !aws.ToBool(in.WithDecryption) {
		return nil, errors.New("asked without decryption")
	}
	if f.err != nil {
		return nil, f.err
	}
	v, ok := f.values[aws.ToString(in.Name)]
	if !ok {
		return nil, &types.ParameterNotFound{Message: aws.String("not found")}
	}
	return &ssm.GetParameterOutput{Parameter: &types.Parameter{Name: in.Name, Value: aws.String(v)}}, nil
}

func TestResolveSecrets(t *testing.T) {
	params := map[string]string{"/p/key": "sk-secret", "/p/jwt": "jwt-secret", "/p/empty": ""}
	tests := []struct {
		name      string
		env       map[string]string
		cc        Config
		fault     error
		wantKey   string
		wantJWT   string
		wantJava  string
		wantAsked []string
		wantErr   string
	}{
		{name: "no parameters", env: map[string]string{"OPENAI_API_KEY": "direct"}, wantKey: "direct"},
		{name: "both from SSM", cc: Config{APIKeyParameter: "/p/key", JWTSecretParameter: "/p/jwt"},
			wantKey: "sk-secret", wantJWT: "jwt-secret", wantAsked: []string{"/p/key", "/p/jwt"}},
		{name: "the variable wins", env: map[string]string{"OPENAI_API_KEY": "direct"}, cc: Config{APIKeyParameter: "/p/key"},
			wantKey: "direct"},
		{name: "missing parameter", cc: Config{JWTSecretParameter: "/p/none"}, wantAsked: []string{"/p/none"}, wantErr: "/p/none"},
		{name: "empty parameter", cc: Config{APIKeyParameter: "/p/empty"}, wantAsked: []string{"/p/empty"}, wantErr: "empty"},
		{name: "data token only with a data service", cc: Config{JavaTokenParameter: "/p/key"}, wantAsked: nil},
		{name: "data token", env: map[string]string{"JAVA_API_BASE_URL": "https://data.example.com"}, cc: Config{JavaTokenParameter: "/p/key"},
			wantAsked: []string{"/p/key"}, wantJava: "sk-secret"},
		{name: "SSM down", cc: Config{APIKeyParameter: "/p/key"}, fault: errors.New("connection refused"), wantAsked: []string{"/p/key"}, wantErr: "OPENAI_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeParameters{values: params, err: tt.fault}
			getenv, err := resolveSecrets(context.Background(), func(k string) string { return tt.env[k] }, tt.cc,
				func() parameterGetter { return f })
			if strings.Join(f.asked, ",") != strings.Join(tt.wantAsked, ",") {
				t.Errorf("asked SSM for %v, want %v", f.asked, tt.wantAsked)
			}
			if errtest.Expect(t, err, tt.wantErr) {
				return
			}
			if got := getenv("OPENAI_API_KEY"); got != tt.wantKey {
				t.Errorf("OPENAI_API_KEY = %q, want %q", got, tt.wantKey)
			}
			if got := getenv("AUTH_JWT_SECRET"); got != tt.wantJWT {
				t.Errorf("AUTH_JWT_SECRET = %q, want %q", got, tt.wantJWT)
			}
			if got := getenv("JAVA_API_TOKEN"); got != tt.wantJava {
				t.Errorf("JAVA_API_TOKEN = %q, want %q", got, tt.wantJava)
			}
		})
	}
}

// namedTripper records its name when it carries a request.
type namedTripper struct {
	name string
	used *string
}

func (rt namedTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	*rt.used = rt.name
	return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Request: r}, nil
}

func TestTracedTransport(t *testing.T) {
	var used string
	tr := tracedTransport{traced: namedTripper{"traced", &used}, plain: namedTripper{"plain", &used}}
	const header = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
	tests := []struct {
		name       string
		ctx        context.Context
		wantUsed   string
		wantHeader string
	}{
		{"outside an invocation", context.Background(), "plain", ""},
		// aws-lambda-go stores the header under this plain string key.
		{"in a traced Lambda invocation", context.WithValue(context.Background(), xray.LambdaTraceHeaderKey, header), "traced", header},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			used = ""
			req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/", nil).WithContext(tt.ctx)
			if _, err := tr.RoundTrip(req); err != nil {
				t.Fatal(err)
			}
			if used != tt.wantUsed {
				t.Errorf("the %s transport carried the request, want the %s one", used, tt.wantUsed)
			}
			if got := traceHeader(tt.ctx); got != tt.wantHeader {
				t.Errorf("traceHeader = %q, want %q", got, tt.wantHeader)
			}
		})
	}
}

// spanTripper records the annotations of the span its request runs in.
type spanTripper struct{ annotations map[string]any }

func (rt *spanTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	if seg := xray.GetSegment(r.Context()); seg != nil {
		rt.annotations = seg.Annotations
	}
	return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Request: r}, nil
}

// TestTracedTransportAnnotatesTraceID (issue 28): a call that carries the
// turn's trace id (the model's X-Trace-Id, the data service's X-Trace-ID)
// runs in a span annotated with it.
func TestTracedTransportAnnotatesTraceID(t *testing.T) {
	for _, name := range []string{"X-Trace-Id", "X-Trace-ID"} {
		rt := &spanTripper{}
		tr := tracedTransport{traced: rt, plain: rt}
		// A sampled Lambda invocation (an unsampled one records nothing).
		ctx := context.WithValue(context.Background(), xray.LambdaTraceHeaderKey,
			"Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1")
		req := httptest.NewRequest(http.MethodGet, "http://model.invalid/v1/chat/completions", nil).WithContext(ctx)
		req.Header.Set(name, "trace-28")
		if _, err := tr.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
		if rt.annotations["traceId"] != "trace-28" {
			t.Errorf("%s: the call's span has annotations %v, want traceId trace-28", name, rt.annotations)
		}
	}
}

type nopStarter struct{}

func (nopStarter) Start(context.Context, string, workflow.ConversationState) error { return nil }
func (nopStarter) Stop(context.Context, string) error                              { return nil }

func TestEdgeHandlerRequires(t *testing.T) {
	vars := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MODEL_STANDARD": "m"}
	cfg, err := wire.ConfigFromEnv(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	app, err := wire.New(cfg, wire.Backends{})
	if err != nil {
		t.Fatal(err)
	}
	cfgJWT := cfg
	cfgJWT.JWTSecret = "s"
	withJWT, err := wire.New(cfgJWT, wire.Backends{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		c       App
		wantErr string
	}{
		{"no state machine", App{App: withJWT}, EnvConversationMachine},
		{"no JWT secret", App{App: app, Starter: nopStarter{}}, EnvJWTSecretParameter},
		{"JWT", App{App: withJWT, Starter: nopStarter{}}, ""},
		{"sandbox without identities", App{App: app, Starter: nopStarter{}, Cloud: Config{AllowDevAuth: true}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := tt.c.EdgeHandler()
			if tt.wantErr == "" {
				if err != nil || h == nil {
					t.Fatalf("EdgeHandler = %v, %v", h, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want one naming %s", err, tt.wantErr)
			}
		})
	}
}
