package llm

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Environment variables read by ConfigFromEnv.
const (
	EnvBaseURL       = "OPENAI_BASE_URL"
	EnvAPIKey        = "OPENAI_API_KEY"
	EnvModelFast     = "LLM_MODEL_FAST"
	EnvModelStandard = "LLM_MODEL_STANDARD"
	EnvModelStrong   = "LLM_MODEL_STRONG"
	EnvTimeout       = "LLM_TIMEOUT"
	EnvMaxRetries    = "LLM_MAX_RETRIES"
)

// ConfigFromEnv reads the configuration from the environment through getenv
// (os.Getenv in production, a map in tests):
//
//	OPENAI_BASE_URL     base URL of an OpenAI-compatible API (default api.openai.com)
//	OPENAI_API_KEY      required when OPENAI_BASE_URL is not set
//	LLM_MODEL_STANDARD  required; a comma-separated fallback chain, e.g. "gpt-4o-mini,gpt-4.1-mini"
//	LLM_MODEL_FAST      optional chain; default: the standard chain
//	LLM_MODEL_STRONG    optional chain; default: the standard chain
//	LLM_TIMEOUT         optional Go duration, e.g. "45s"
//	LLM_MAX_RETRIES     optional integer ≥ 0; 0 disables retries
//
// Errors name the variable that is wrong.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	var cfg Config
	cfg.BaseURL = strings.TrimSpace(getenv(EnvBaseURL))
	cfg.APIKey = strings.TrimSpace(getenv(EnvAPIKey))
	if cfg.BaseURL != "" {
		u, err := url.Parse(cfg.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Config{}, fmt.Errorf("llm: %s=%q is not an http(s) URL", EnvBaseURL, cfg.BaseURL)
		}
	} else if cfg.APIKey == "" {
		return Config{}, fmt.Errorf("llm: %s is required when %s is not set (api.openai.com)", EnvAPIKey, EnvBaseURL)
	}

	standard, err := modelChain(getenv, EnvModelStandard)
	if err != nil {
		return Config{}, err
	}
	if len(standard) == 0 {
		return Config{}, fmt.Errorf("llm: %s is required (a comma-separated list of models, primary first)", EnvModelStandard)
	}
	cfg.Models = map[Tier][]string{TierStandard: standard}
	for _, tv := range []struct {
		tier Tier
		name string
	}{{TierFast, EnvModelFast}, {TierStrong, EnvModelStrong}} {
		chain, err := modelChain(getenv, tv.name)
		if err != nil {
			return Config{}, err
		}
		if len(chain) == 0 {
			chain = standard
		}
		cfg.Models[tv.tier] = chain
	}

	if v := strings.TrimSpace(getenv(EnvTimeout)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return Config{}, fmt.Errorf("llm: %s=%q is not a positive duration (e.g. \"60s\")", EnvTimeout, v)
		}
		cfg.Timeout = d
	}
	if v := strings.TrimSpace(getenv(EnvMaxRetries)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxRetriesLimit {
			return Config{}, fmt.Errorf("llm: %s=%q is not an integer from 0 to %d", EnvMaxRetries, v, maxRetriesLimit)
		}
		cfg.MaxRetries = n
		if n == 0 {
			cfg.MaxRetries = NoRetries
		}
	}
	return cfg, nil
}

// modelChain parses the comma-separated chain in variable name; empty if unset.
func modelChain(getenv func(string) string, name string) ([]string, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return nil, nil
	}
	var chain []string
	for m := range strings.SplitSeq(v, ",") {
		m = strings.TrimSpace(m)
		if m == "" {
			return nil, fmt.Errorf("llm: %s=%q has an empty model name", name, v)
		}
		chain = append(chain, m)
	}
	return chain, nil
}
