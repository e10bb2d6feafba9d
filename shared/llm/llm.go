// Package llm is the model client: an OpenAI-compatible chat-completions client
// (github.com/sashabaranov/go-openai, whose types stay inside this package: see
// message.go and sdk.go) with model tiers, a fallback chain per tier,
// per-attempt timeouts, retries with exponential backoff, streaming with tool-call
// assembly, and incremental extraction of fields from streamed JSON (partial.go).
//
// The retry rule that shapes the code: an attempt may be repeated only while
// nothing has reached the caller's Handler. Once a content delta or a tool-call
// fragment was delivered, a broken stream is reported as ErrInterrupted and the
// caller decides, because repeating the call would show the user the same text twice.
package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/insightedge/insightedge/shared/clock"
)

// Tier names a class of model; each tier has its own fallback chain.
type Tier string

// The tiers: fast for routing and small jobs, standard for the agent, strong for
// the hardest generation.
const (
	TierFast     Tier = "fast"
	TierStandard Tier = "standard"
	TierStrong   Tier = "strong"
)

// allTiers lists every tier in a stable order.
func allTiers() []Tier { return []Tier{TierFast, TierStandard, TierStrong} }

// Defaults for the zero values of Config.
const (
	DefaultTimeout     = 60 * time.Second
	DefaultMaxRetries  = 2
	DefaultBackoffBase = 500 * time.Millisecond
	// NoRetries as Config.MaxRetries disables retries (0 means the default).
	NoRetries = -1
	// maxRetriesLimit bounds MaxRetries so that a typo cannot make a turn wait for hours.
	maxRetriesLimit = 10
	// maxBackoff caps a single backoff wait.
	maxBackoff = 30 * time.Second
)

// Errors to test with errors.Is. The underlying *openai.APIError or
// *openai.RequestError stays reachable with errors.As.
var (
	// ErrInterrupted: the stream broke after output was delivered to the Handler.
	// Nothing was retried; the caller may call again.
	ErrInterrupted = errors.New("llm: stream interrupted after output was delivered")
	// ErrRateLimited: the last model of the chain still answered 429 after its retries.
	ErrRateLimited = errors.New("llm: rate limited")
	// ErrTimeout: an attempt got no response (or, streaming, no next chunk) within Config.Timeout.
	ErrTimeout = errors.New("llm: model did not respond in time")
	// ErrEmptyResponse: the model answered without any choice.
	ErrEmptyResponse = errors.New("llm: response has no choices")
)

// Config configures a Client. Zero values take the defaults documented per field.
type Config struct {
	// BaseURL of the OpenAI-compatible API, e.g. "https://api.openai.com/v1"
	// (the default when empty).
	BaseURL string
	APIKey  string
	// Models holds a fallback chain per tier: the first model is the primary,
	// the others are tried in order when it fails. Every tier needs at least one.
	Models map[Tier][]string
	// Timeout bounds one attempt of Complete. For Stream it bounds the wait for
	// the response and then each wait for the next chunk: a long answer that keeps
	// streaming is not cut. Default 60s.
	Timeout time.Duration
	// MaxRetries per model on 429, 408, 5xx and transport errors, before anything
	// was delivered. 0 means DefaultMaxRetries; NoRetries disables retries.
	MaxRetries int
	// BackoffBase is the first backoff wait; each retry doubles it, with ±50% jitter.
	BackoffBase time.Duration
	// HTTPClient sends the requests; it should have no overall Timeout (streams
	// are long), the Client bounds each attempt itself. Default: a new http.Client.
	HTTPClient *http.Client
	// Logger receives retries and fallbacks. Default: discard.
	Logger *slog.Logger
	// Sleep waits d or until ctx is done; injectable so that tests do not sleep.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Client calls chat completions on the chain of models of a tier. It is safe for
// concurrent use.
type Client struct {
	api         *openai.Client
	models      map[Tier][]string
	timeout     time.Duration
	maxRetries  int
	backoffBase time.Duration
	log         *slog.Logger
	sleep       func(ctx context.Context, d time.Duration) error
}

// New validates cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	tiers := allTiers()
	models := make(map[Tier][]string, len(tiers))
	for t, chain := range cfg.Models {
		if !slices.Contains(tiers, t) {
			return nil, fmt.Errorf("llm: config: unknown tier %q in Models (want fast, standard or strong)", t)
		}
		for i, m := range chain {
			if strings.TrimSpace(m) == "" {
				return nil, fmt.Errorf("llm: config: Models[%q][%d] is empty", t, i)
			}
		}
		models[t] = slices.Clone(chain)
	}
	var missing []string
	for _, t := range tiers {
		if len(models[t]) == 0 {
			missing = append(missing, string(t))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("llm: config: no model for tier(s) %s: Models needs at least one model per tier",
			strings.Join(missing, ", "))
	}
	if cfg.Timeout < 0 || cfg.BackoffBase < 0 {
		return nil, errors.New("llm: config: Timeout and BackoffBase must not be negative")
	}
	if cfg.MaxRetries > maxRetriesLimit {
		return nil, fmt.Errorf("llm: config: MaxRetries %d is above the limit %d", cfg.MaxRetries, maxRetriesLimit)
	}

	c := &Client{
		models:      models,
		timeout:     orDefault(cfg.Timeout, DefaultTimeout),
		maxRetries:  cfg.MaxRetries,
		backoffBase: orDefault(cfg.BackoffBase, DefaultBackoffBase),
		log:         cfg.Logger,
		sleep:       cfg.Sleep,
	}
	switch {
	case c.maxRetries == 0:
		c.maxRetries = DefaultMaxRetries
	case c.maxRetries < 0:
		c.maxRetries = 0
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.sleep == nil {
		c.sleep = clock.Sleep
	}

	oc := openai.DefaultConfig(cfg.APIKey)
	if cfg.BaseURL != "" {
		oc.BaseURL = cfg.BaseURL
	}
	if cfg.HTTPClient != nil { // HTTPClient is an interface there: never store a nil pointer in it
		oc.HTTPClient = cfg.HTTPClient
	}
	oc.HTTPClient = bodyTap{doer: oc.HTTPClient} // streamed bodies are read in sse.go
	c.api = openai.NewClientWithConfig(oc)
	return c, nil
}

// Models returns the fallback chain of tier t.
func (c *Client) Models(t Tier) []string { return slices.Clone(c.models[t]) }

// Request is one chat-completion call.
type Request struct {
	// Tier selects the fallback chain; empty means TierStandard.
	Tier     Tier
	Messages []Message
	Tools    []Tool
	// ToolChoice is sent when set; the zero value leaves the choice to the API.
	ToolChoice ToolChoice
	// JSON asks for a JSON object (response_format {"type":"json_object"}).
	JSON bool
	// Temperature, when set, is sent even if 0. Models that accept only their
	// default (reasoning models) get none.
	Temperature *float32
	// MaxTokens bounds the answer; sent as max_completion_tokens to reasoning models.
	MaxTokens int
}

// Handler receives a stream as it arrives. Any function may be nil. An error
// returned by a function stops the stream and is returned by Stream.
type Handler struct {
	// OnContent gets each content delta.
	OnContent func(delta string) error
	// OnToolCall gets, after each fragment of tool call number index, the call's
	// id, name and the arguments assembled so far.
	OnToolCall func(index int, id, name, argsSoFar string) error
	// OnReasoning gets each reasoning_content delta of a reasoning model
	// (seed 003 §1.2); it is never part of the content.
	OnReasoning func(delta string) error
}

// Response is the complete answer of one model.
type Response struct {
	// Message has role assistant, the full content and the assembled tool calls
	// in index order.
	Message      Message
	FinishReason string
	// Model is the model of the chain that answered.
	Model string
	Usage Usage
}

// chain returns the models of the request's tier.
func (c *Client) chain(t Tier) ([]string, error) {
	t = tierOrDefault(t)
	chain, ok := c.models[t]
	if !ok {
		return nil, fmt.Errorf("llm: unknown tier %q", t)
	}
	return chain, nil
}

// chatRequest builds the wire request for model.
func chatRequest(model string, req Request) openai.ChatCompletionRequest {
	r := openai.ChatCompletionRequest{
		Model:      model,
		Messages:   sdkMessages(req.Messages),
		Tools:      sdkTools(req.Tools),
		ToolChoice: sdkToolChoice(req.ToolChoice),
	}
	if req.JSON {
		r.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	if req.Temperature != nil {
		r.Temperature = *req.Temperature
		if r.Temperature == 0 {
			// go-openai's Temperature is `omitempty`: a plain 0 would be dropped
			// and the API would use its default of 1. The smallest positive
			// float32 is sent instead; it is 0 for every sampler.
			r.Temperature = math.SmallestNonzeroFloat32
		}
	}
	// Reasoning models reject max_tokens and any temperature but their default;
	// go-openai's validator knows which models those are, so ask it rather than
	// keep a second list. The request is adapted instead of failing, because
	// callers choose parameters per call site and the model per tier.
	v := openai.NewReasoningValidator()
	if req.MaxTokens > 0 {
		r.MaxTokens = req.MaxTokens
		if errors.Is(v.Validate(r), openai.ErrReasoningModelMaxTokensDeprecated) {
			r.MaxTokens, r.MaxCompletionTokens = 0, req.MaxTokens
		}
	}
	if r.Temperature != 0 {
		if err := v.Validate(r); errors.Is(err, openai.ErrReasoningModelLimitationsOther) ||
			errors.Is(err, openai.ErrReasoningSamplingUnsupported) {
			r.Temperature = 0
		}
	}
	return r
}

// Complete calls the model without streaming.
func (c *Client) Complete(ctx context.Context, req Request) (Response, error) {
	return c.run(ctx, req, func(ctx context.Context, model string) (Response, bool, error) {
		resp, err := c.complete(ctx, model, req)
		return resp, false, err
	})
}

func (c *Client) complete(ctx context.Context, model string, req Request) (Response, error) {
	actx, cancel := context.WithTimeoutCause(ctx, c.timeout, ErrTimeout)
	defer cancel()
	out, err := c.api.CreateChatCompletion(actx, chatRequest(model, req))
	if err != nil {
		return Response{}, attemptErr(ctx, actx, err)
	}
	if len(out.Choices) == 0 {
		return Response{}, ErrEmptyResponse
	}
	ch := out.Choices[0]
	msg := fromSDKMessage(ch.Message)
	if msg.Role == "" {
		msg.Role = RoleAssistant
	}
	return Response{Message: msg, FinishReason: string(ch.FinishReason), Usage: fromSDKUsage(out.Usage)}, nil
}

// attemptErr returns err, or the timeout cause when the attempt's own deadline
// (not the caller's context) ended it.
func attemptErr(parent, attempt context.Context, err error) error {
	if parent.Err() == nil && errors.Is(context.Cause(attempt), ErrTimeout) {
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	}
	return err
}

func tierOrDefault(t Tier) Tier {
	if t == "" {
		return TierStandard
	}
	return t
}

func orDefault(v, def time.Duration) time.Duration {
	if v == 0 {
		return def
	}
	return v
}
