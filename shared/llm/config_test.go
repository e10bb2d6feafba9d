package llm_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/errtest"
	"github.com/insightedge/insightedge/shared/llm"
)

func TestConfigFromEnv(t *testing.T) {
	base := map[string]string{
		"OPENAI_API_KEY":     "sk-test",
		"LLM_MODEL_STANDARD": "gpt-4o-mini",
	}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name    string
		env     map[string]string
		want    llm.Config
		wantErr string // a substring; it names the variable
	}{
		{
			name: "minimal: fast and strong fall back to standard",
			env:  base,
			want: llm.Config{APIKey: "sk-test", Models: map[llm.Tier][]string{
				llm.TierFast: {"gpt-4o-mini"}, llm.TierStandard: {"gpt-4o-mini"}, llm.TierStrong: {"gpt-4o-mini"}}},
		},
		{
			name: "everything",
			env: map[string]string{
				"OPENAI_BASE_URL":    "http://127.0.0.1:8081/v1",
				"LLM_MODEL_FAST":     "gpt-4o-mini",
				"LLM_MODEL_STANDARD": " gpt-4o-mini , gpt-4.1-mini ",
				"LLM_MODEL_STRONG":   "gpt-4.1,gpt-4o",
				"LLM_TIMEOUT":        "45s",
				"LLM_MAX_RETRIES":    "3",
			},
			want: llm.Config{
				BaseURL: "http://127.0.0.1:8081/v1",
				Models: map[llm.Tier][]string{
					llm.TierFast:     {"gpt-4o-mini"},
					llm.TierStandard: {"gpt-4o-mini", "gpt-4.1-mini"},
					llm.TierStrong:   {"gpt-4.1", "gpt-4o"},
				},
				Timeout:    45 * time.Second,
				MaxRetries: 3,
			},
		},
		{
			name: "zero retries disables them",
			env:  with("LLM_MAX_RETRIES", "0"),
			want: llm.Config{APIKey: "sk-test", MaxRetries: llm.NoRetries, Models: map[llm.Tier][]string{
				llm.TierFast: {"gpt-4o-mini"}, llm.TierStandard: {"gpt-4o-mini"}, llm.TierStrong: {"gpt-4o-mini"}}},
		},
		{name: "standard missing", env: map[string]string{"OPENAI_API_KEY": "k", "LLM_MODEL_FAST": "a"}, wantErr: "LLM_MODEL_STANDARD"},
		{name: "standard blank", env: with("LLM_MODEL_STANDARD", "  "), wantErr: "LLM_MODEL_STANDARD"},
		{name: "empty name in chain", env: with("LLM_MODEL_STRONG", "a,,b"), wantErr: "LLM_MODEL_STRONG"},
		{name: "trailing comma", env: with("LLM_MODEL_FAST", "a,"), wantErr: "LLM_MODEL_FAST"},
		{name: "key required for api.openai.com", env: map[string]string{"LLM_MODEL_STANDARD": "m"}, wantErr: "OPENAI_API_KEY"},
		{name: "bad base URL", env: with("OPENAI_BASE_URL", "localhost:8081"), wantErr: "OPENAI_BASE_URL"},
		{name: "bad timeout", env: with("LLM_TIMEOUT", "60"), wantErr: "LLM_TIMEOUT"},
		{name: "negative timeout", env: with("LLM_TIMEOUT", "-1s"), wantErr: "LLM_TIMEOUT"},
		{name: "bad retries", env: with("LLM_MAX_RETRIES", "two"), wantErr: "LLM_MAX_RETRIES"},
		{name: "negative retries", env: with("LLM_MAX_RETRIES", "-1"), wantErr: "LLM_MAX_RETRIES"},
		{name: "too many retries", env: with("LLM_MAX_RETRIES", "1000"), wantErr: "LLM_MAX_RETRIES"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := llm.ConfigFromEnv(func(k string) string { return tt.env[k] })
			if errtest.Expect(t, err, tt.wantErr) {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
			if _, err := llm.New(got); err != nil {
				t.Errorf("New(ConfigFromEnv) = %v", err)
			}
		})
	}
}

func TestNewValidates(t *testing.T) {
	all := func() map[llm.Tier][]string {
		return map[llm.Tier][]string{llm.TierFast: {"a"}, llm.TierStandard: {"b"}, llm.TierStrong: {"c"}}
	}
	tests := []struct {
		name    string
		mutate  func(*llm.Config)
		wantErr string
	}{
		{"valid", func(*llm.Config) {}, ""},
		{"no models", func(c *llm.Config) { c.Models = nil }, "fast, standard, strong"},
		{"strong missing", func(c *llm.Config) { delete(c.Models, llm.TierStrong) }, "strong"},
		{"empty chain", func(c *llm.Config) { c.Models[llm.TierFast] = nil }, "fast"},
		{"blank model", func(c *llm.Config) { c.Models[llm.TierFast] = []string{"a", " "} }, `Models["fast"][1]`},
		{"unknown tier", func(c *llm.Config) { c.Models["turbo"] = []string{"x"} }, "turbo"},
		{"too many retries", func(c *llm.Config) { c.MaxRetries = 99 }, "MaxRetries"},
		{"negative timeout", func(c *llm.Config) { c.Timeout = -time.Second }, "Timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := llm.Config{Models: all()}
			tt.mutate(&cfg)
			c, err := llm.New(cfg)
			if tt.wantErr == "" {
				if err != nil || c == nil {
					t.Fatalf("New = %v, %v", c, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v; want one mentioning %q", err, tt.wantErr)
			}
		})
	}
}

// New copies the chains: a caller changing its map later changes nothing.
func TestNewCopiesModels(t *testing.T) {
	models := map[llm.Tier][]string{llm.TierFast: {"a"}, llm.TierStandard: {"b", "b2"}, llm.TierStrong: {"c"}}
	c, err := llm.New(llm.Config{Models: models})
	if err != nil {
		t.Fatal(err)
	}
	models[llm.TierStandard][0] = "changed"
	if got := c.Models(llm.TierStandard); !reflect.DeepEqual(got, []string{"b", "b2"}) {
		t.Errorf("Models(standard) = %q", got)
	}
}
