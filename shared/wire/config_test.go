package wire_test

import (
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/errtest"
	"github.com/insightedge/insightedge/shared/wire"
	"github.com/insightedge/insightedge/shared/workflow"
)

// env is a getenv over a map.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// withModel adds the variables the model client needs to vars.
func withModel(vars map[string]string) map[string]string {
	out := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MODEL_STANDARD": "test-model"}
	for k, v := range vars {
		out[k] = v
	}
	return out
}

func TestConfigFromEnv(t *testing.T) {
	cases := []struct {
		name    string
		vars    map[string]string
		wantErr string // a substring of the error: the variable at fault
		check   func(t *testing.T, c wire.Config)
	}{
		{name: "defaults", vars: withModel(nil), check: func(t *testing.T, c wire.Config) {
			if c.MaxRounds != 6 || c.Heartbeat != 15*time.Second || c.TurnTimeout != 10*time.Minute {
				t.Errorf("defaults = rounds %d, heartbeat %v, timeout %v", c.MaxRounds, c.Heartbeat, c.TurnTimeout)
			}
			if c.JWTSecret != "" || c.DevTeacher != "" {
				t.Errorf("auth defaults = %q %q", c.JWTSecret, c.DevTeacher)
			}
			if c.LLM.BaseURL != "http://127.0.0.1:9/v1" || len(c.LLM.Models["standard"]) != 1 {
				t.Errorf("LLM = %+v", c.LLM)
			}
		}},
		{name: "all set", vars: withModel(map[string]string{
			"AGENT_MAX_ROUNDS": "20", "SSE_HEARTBEAT": "5s", "TURN_TIMEOUT": "2m",
			"AUTH_JWT_SECRET": "s3cret-s3cret-s3cret-s3cret-0123", "AUTH_JWT_ISSUER": "iss", "AUTH_JWT_AUDIENCE": "aud", "DEV_TEACHER_ID": "t-9",
		}), check: func(t *testing.T, c wire.Config) {
			if c.MaxRounds != 20 || c.Heartbeat != 5*time.Second || c.TurnTimeout != 2*time.Minute {
				t.Errorf("got rounds %d, heartbeat %v, timeout %v", c.MaxRounds, c.Heartbeat, c.TurnTimeout)
			}
			if c.JWTSecret != "s3cret-s3cret-s3cret-s3cret-0123" || c.JWTIssuer != "iss" || c.JWTAudience != "aud" || c.DevTeacher != "t-9" {
				t.Errorf("auth = %q %q %q %q", c.JWTSecret, c.JWTIssuer, c.JWTAudience, c.DevTeacher)
			}
		}},
		{name: "lowest round limit", vars: withModel(map[string]string{"AGENT_MAX_ROUNDS": "1"}), check: func(t *testing.T, c wire.Config) {
			if c.MaxRounds != 1 {
				t.Errorf("MaxRounds = %d", c.MaxRounds)
			}
		}},
		{name: "research defaults", vars: withModel(nil), check: func(t *testing.T, c wire.Config) {
			r := c.Research
			if r.RequestLimit != 15 || r.Tavily.APIKey != "" || r.Tavily.Timeout != 15*time.Second || r.Tavily.MaxRetries != 2 {
				t.Errorf("research = %+v", r)
			}
		}},
		{name: "research set", vars: withModel(map[string]string{"TAVILY_API_KEY": "tvly-x", "TAVILY_BASE_URL": "http://127.0.0.1:9",
			"RESEARCH_REQUEST_LIMIT": "8", "SEARCH_TIMEOUT": "3s", "SEARCH_MAX_RETRIES": "0"}), check: func(t *testing.T, c wire.Config) {
			r := c.Research
			if r.RequestLimit != 8 || r.Tavily.APIKey != "tvly-x" || r.Tavily.BaseURL != "http://127.0.0.1:9" || r.Tavily.Timeout != 3*time.Second ||
				r.Tavily.MaxRetries != -1 {
				t.Errorf("research = %+v", r)
			}
		}},
		{name: "request limit too low", vars: withModel(map[string]string{"RESEARCH_REQUEST_LIMIT": "1"}), wantErr: "RESEARCH_REQUEST_LIMIT"},
		{name: "request limit not a number", vars: withModel(map[string]string{"RESEARCH_REQUEST_LIMIT": "lots"}), wantErr: "RESEARCH_REQUEST_LIMIT"},
		{name: "search timeout", vars: withModel(map[string]string{"SEARCH_TIMEOUT": "soon"}), wantErr: "SEARCH_TIMEOUT"},
		{name: "search retries", vars: withModel(map[string]string{"SEARCH_MAX_RETRIES": "9"}), wantErr: "SEARCH_MAX_RETRIES"},
		{name: "rounds zero", vars: withModel(map[string]string{"AGENT_MAX_ROUNDS": "0"}), wantErr: "AGENT_MAX_ROUNDS"},
		{name: "rounds above limit", vars: withModel(map[string]string{"AGENT_MAX_ROUNDS": "21"}), wantErr: "AGENT_MAX_ROUNDS"},
		{name: "rounds not a number", vars: withModel(map[string]string{"AGENT_MAX_ROUNDS": "six"}), wantErr: "AGENT_MAX_ROUNDS"},
		{name: "rounds negative", vars: withModel(map[string]string{"AGENT_MAX_ROUNDS": "-3"}), wantErr: "AGENT_MAX_ROUNDS"},
		{name: "heartbeat without unit", vars: withModel(map[string]string{"SSE_HEARTBEAT": "15"}), wantErr: "SSE_HEARTBEAT"},
		{name: "heartbeat zero", vars: withModel(map[string]string{"SSE_HEARTBEAT": "0s"}), wantErr: "SSE_HEARTBEAT"},
		{name: "heartbeat negative", vars: withModel(map[string]string{"SSE_HEARTBEAT": "-1s"}), wantErr: "SSE_HEARTBEAT"},
		{name: "heartbeat garbage", vars: withModel(map[string]string{"SSE_HEARTBEAT": "often"}), wantErr: "SSE_HEARTBEAT"},
		{name: "turn timeout bad", vars: withModel(map[string]string{"TURN_TIMEOUT": "10 minutes"}), wantErr: "TURN_TIMEOUT"},
		{name: "chat mode default", vars: withModel(nil), check: func(t *testing.T, c wire.Config) {
			if c.ChatMode != workflow.ModeNatural {
				t.Errorf("ChatMode = %q, want natural", c.ChatMode)
			}
		}},
		{name: "chat mode strict", vars: withModel(map[string]string{"CHAT_MODE": "strict"}), check: func(t *testing.T, c wire.Config) {
			if c.ChatMode != workflow.ModeStrict {
				t.Errorf("ChatMode = %q, want strict", c.ChatMode)
			}
		}},
		{name: "chat mode unknown", vars: withModel(map[string]string{"CHAT_MODE": "Strict"}), wantErr: "CHAT_MODE"},
		{name: "weak JWT secret", vars: withModel(map[string]string{"AUTH_JWT_SECRET": "s3cret"}), wantErr: "AUTH_JWT_SECRET"},
		{name: "JWT max life bad", vars: withModel(map[string]string{"AUTH_JWT_MAX_LIFE": "forever"}), wantErr: "AUTH_JWT_MAX_LIFE"},
		{name: "file link ttl default", vars: withModel(nil), check: func(t *testing.T, c wire.Config) {
			if c.FileLinkTTL != 15*time.Minute {
				t.Errorf("FileLinkTTL = %v, want 15m", c.FileLinkTTL)
			}
		}},
		{name: "file link ttl set", vars: withModel(map[string]string{"FILE_LINK_TTL": "5m"}), check: func(t *testing.T, c wire.Config) {
			if c.FileLinkTTL != 5*time.Minute {
				t.Errorf("FileLinkTTL = %v, want 5m", c.FileLinkTTL)
			}
		}},
		{name: "file link ttl too long", vars: withModel(map[string]string{"FILE_LINK_TTL": "720h"}), wantErr: "FILE_LINK_TTL"},
		{name: "file link ttl too short", vars: withModel(map[string]string{"FILE_LINK_TTL": "1s"}), wantErr: "FILE_LINK_TTL"},
		{name: "file link ttl garbage", vars: withModel(map[string]string{"FILE_LINK_TTL": "soon"}), wantErr: "FILE_LINK_TTL"},
		{name: "model chain missing", vars: map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, wantErr: "LLM_MODEL_STANDARD"},
		{name: "api key missing", vars: map[string]string{"LLM_MODEL_STANDARD": "m"}, wantErr: "OPENAI_API_KEY"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := wire.ConfigFromEnv(env(c.vars))
			if errtest.Expect(t, err, c.wantErr) {
				return
			}
			c.check(t, cfg)
		})
	}
}
