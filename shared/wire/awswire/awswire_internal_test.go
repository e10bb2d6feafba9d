package awswire

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
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
	calls  int
}

func (f *fakeParameters) GetParameters(_ context.Context, in *ssm.GetParametersInput, _ ...func(*ssm.Options)) (*ssm.GetParametersOutput, error) {
	f.calls++
	f.asked = append(f.asked, in.Names...)
	if !aws.ToBool(in.WithDecryption) {
		return nil, errors.New("asked without decryption")
	}
	if f.err != nil {
		return nil, f.err
	}
	out := &ssm.GetParametersOutput{}
	for _, name := range in.Names {
		if v, ok := f.values[name]; ok {
			out.Parameters = append(out.Parameters, types.Parameter{Name: aws.String(name), Value: aws.String(v)})
		} else {
			out.InvalidParameters = append(out.InvalidParameters, name)
		}
	}
	return out, nil
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
		{name: "one parameter for two variables", cc: Config{APIKeyParameter: "/p/key", TavilyKeyParameter: "/p/key"},
			wantKey: "sk-secret", wantAsked: []string{"/p/key"}},
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
			if f.calls > 1 {
				t.Errorf("%d calls to SSM, want one GetParameters for every secret", f.calls)
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

// TestSecretsClientRetriesThrottling reads secrets through the real SSM
// client against an endpoint that throttles its first answers, as SSM does
// when a bell-time scale-out starts many environments at once: the read
// succeeds in one GetParameters operation, retried, not failed.
func TestSecretsClientRetriesThrottling(t *testing.T) {
	const throttled = 3
	var attempts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attempts = append(attempts, r.Header.Get("X-Amz-Target"))
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		if len(attempts) <= throttled {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"__type":"ThrottlingException","message":"Rate exceeded"}`)
			return
		}
		var in struct{ Names []string }
		_ = json.NewDecoder(r.Body).Decode(&in)
		var params []map[string]any
		for _, n := range in.Names {
			params = append(params, map[string]any{"Name": n, "Type": "SecureString", "Value": "v" + n, "Version": 1})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"Parameters": params, "InvalidParameters": []string{}})
	}))
	defer srv.Close()
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("k", "s", "")}
	client := newSecretsClient(cfg, func(o *ssm.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	getenv, err := resolveSecrets(context.Background(), func(string) string { return "" },
		Config{APIKeyParameter: "/p/key", JWTSecretParameter: "/p/jwt"}, func() parameterGetter { return client })
	if err != nil {
		t.Fatalf("resolve after %d throttled answers: %v", throttled, err)
	}
	if got := getenv("AUTH_JWT_SECRET"); got != "v/p/jwt" {
		t.Errorf("AUTH_JWT_SECRET = %q", got)
	}
	want := slices.Repeat([]string{"AmazonSSM.GetParameters"}, throttled+1)
	if !slices.Equal(attempts, want) {
		t.Errorf("requests %v, want %v", attempts, want)
	}
}

func TestFullJitterBounds(t *testing.T) {
	for attempt := 1; attempt <= secretsAttempts; attempt++ {
		ceiling := min(secretsMaxBackoff, secretsBaseBackoff<<attempt)
		for range 200 {
			d, err := fullJitter(attempt, nil)
			if err != nil || d < 0 || d >= ceiling {
				t.Fatalf("attempt %d: wait %v, %v; want in [0, %v)", attempt, d, err, ceiling)
			}
		}
	}
	// The worst case of every retry's ceiling still ends inside the init budget's bound.
	var worst time.Duration
	for attempt := 1; attempt < secretsAttempts; attempt++ {
		worst += min(secretsMaxBackoff, secretsBaseBackoff<<attempt)
	}
	if worst < secretsTimeout/2 {
		t.Errorf("the retries give up after %v of waiting at most, well before the %v bound", worst, secretsTimeout)
	}
}
