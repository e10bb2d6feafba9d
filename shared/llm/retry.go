package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/sashabaranov/go-openai"

	"github.com/insightedge/insightedge/shared/obs"
)

// attemptFunc makes one attempt on model. delivered reports whether anything
// reached the caller's Handler, which forbids a retry.
type attemptFunc func(ctx context.Context, model string) (resp Response, delivered bool, err error)

// verdict is what to do after a failed attempt.
type verdict int

const (
	retrySame verdict = iota // back off, then the same model again
	nextModel                // this model cannot serve the request; try the next one
	giveUp                   // no model would do better; return the error
)

// stopError marks an error that ends the call at once, whatever it wraps (an
// error returned by the caller's Handler).
type stopError struct{ err error }

func (e stopError) Error() string { return e.err.Error() }
func (e stopError) Unwrap() error { return e.err }

// run walks the fallback chain of req.Tier, retrying each model with backoff.
// The number of attempts is bounded by len(chain) × (maxRetries+1).
func (c *Client) run(ctx context.Context, req Request, attempt attemptFunc) (Response, error) {
	chain, err := c.chain(req.Tier)
	if err != nil {
		return Response{}, err
	}
	var last error
	for i, model := range chain {
		bo := &backoff.ExponentialBackOff{
			InitialInterval:     c.backoffBase,
			RandomizationFactor: 0.5,
			Multiplier:          2,
			MaxInterval:         maxBackoff,
		}
		bo.Reset()
		for try := 0; ; try++ {
			start := time.Now()
			resp, delivered, err := attempt(ctx, model)
			c.recordCall(ctx, model, time.Since(start), err)
			if err == nil {
				resp.Model = model
				return resp, nil
			}
			if ctx.Err() != nil {
				return Response{}, fmt.Errorf("llm: model %q: %w", model, ctx.Err())
			}
			if se := (stopError{}); errors.As(err, &se) {
				return Response{}, fmt.Errorf("llm: model %q: %w", model, se.err)
			}
			if delivered {
				return Response{}, fmt.Errorf("llm: model %q: %w: %w", model, ErrInterrupted, err)
			}
			err = fmt.Errorf("llm: model %q: %w", model, err)
			v := classify(err)
			if v == giveUp {
				return Response{}, err
			}
			last = err
			if v == nextModel || try >= c.maxRetries {
				if i+1 < len(chain) {
					c.log.LogAttrs(ctx, slog.LevelWarn, "llm fallback",
						slog.String("model", model), slog.String("next", chain[i+1]),
						slog.Int("attempts", try+1), slog.Any("error", err))
				}
				break
			}
			d := bo.NextBackOff()
			c.log.LogAttrs(ctx, slog.LevelWarn, "llm retry",
				slog.String("model", model), slog.Int("attempt", try+1),
				slog.Duration("backoff", d), slog.Any("error", err))
			if err := c.sleep(ctx, d); err != nil {
				return Response{}, fmt.Errorf("llm: model %q: waiting to retry: %w", model, err)
			}
		}
	}
	tier := tierOrDefault(req.Tier)
	if statusOf(last) == http.StatusTooManyRequests {
		return Response{}, fmt.Errorf("llm: tier %s: %w: %w", tier, ErrRateLimited, last)
	}
	return Response{}, fmt.Errorf("llm: tier %s: every model failed (%s), last: %w", tier, strings.Join(chain, ", "), last)
}

// The metrics of every model call (seed 004 §4.2), EMF in namespace
// obs.Namespace: the template's dashboard and alarms read them.
const (
	// MetricModelCall counts attempts, dimensions model and status
	// (success or failure).
	MetricModelCall = "ModelCall"
	// MetricModelLatency is an attempt's duration in milliseconds, same
	// dimensions.
	MetricModelLatency = "ModelLatency"
)

// recordCall writes one attempt's log line, which carries its metrics and
// (through ctx) the turn's trace id. A caller's cancellation is neither a
// success nor a failure of the model.
func (c *Client) recordCall(ctx context.Context, model string, d time.Duration, err error) {
	if se := (stopError{}); ctx.Err() != nil || errors.As(err, &se) {
		return // the caller gave up, or its Handler stopped the stream
	}
	status, level := "success", slog.LevelInfo
	attrs := []slog.Attr{slog.Int64("durationMs", d.Milliseconds())}
	if err != nil {
		status, level = "failure", slog.LevelWarn
		attrs = append(attrs, slog.Any("error", err))
	}
	attrs = append(attrs, obs.Metric(time.Now(), map[string]string{"model": model, "status": status},
		obs.Point{Name: MetricModelCall, Unit: obs.UnitCount, Value: 1},
		obs.Point{Name: MetricModelLatency, Unit: obs.UnitMilliseconds, Value: obs.Millis(d)})...)
	c.log.LogAttrs(ctx, level, "model call", attrs...)
}

// classify decides what a failed attempt (nothing delivered) leads to.
func classify(err error) verdict {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) && fmt.Sprint(apiErr.Code) == "model_not_found" {
		return nextModel
	}
	if s := statusOf(err); s != 0 {
		switch {
		case s == http.StatusTooManyRequests, s == http.StatusRequestTimeout, s >= 500:
			return retrySame
		case s == http.StatusNotFound:
			// A 404 on the chat-completions endpoint means the model (or the
			// deployment) does not exist there: the next model may.
			return nextModel
		case s >= 400:
			// The request itself is wrong (or the key is): every model would refuse it.
			return giveUp
		}
		return retrySame
	}
	switch {
	case errors.Is(err, openai.ErrChatCompletionInvalidModel),
		errors.Is(err, openai.ErrReasoningModelMaxTokensDeprecated),
		errors.Is(err, openai.ErrReasoningModelLimitationsLogprobs),
		errors.Is(err, openai.ErrReasoningModelLimitationsOther),
		errors.Is(err, openai.ErrReasoningToolsRequireResponses),
		errors.Is(err, openai.ErrReasoningSamplingUnsupported),
		errors.Is(err, openai.ErrReasoningEffortUnsupported),
		errors.Is(err, openai.ErrO1BetaLimitationsMessageTypes),
		errors.Is(err, openai.ErrO1BetaLimitationsTools):
		// go-openai refused the request for this model before sending it.
		return nextModel
	case errors.Is(err, openai.ErrContentFieldsMisused):
		return giveUp
	}
	var (
		unsupportedType  *json.UnsupportedTypeError
		unsupportedValue *json.UnsupportedValueError
		marshaler        *json.MarshalerError
	)
	if errors.As(err, &unsupportedType) || errors.As(err, &unsupportedValue) || errors.As(err, &marshaler) {
		return giveUp // the request cannot be encoded
	}
	// Transport errors, timeouts, cut or garbled streams, errors sent inside a
	// stream (no HTTP status): transient as far as we can tell.
	return retrySame
}

// statusOf returns the HTTP status of an API error, or 0.
func statusOf(err error) int {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) && apiErr.HTTPStatusCode != 0 {
		return apiErr.HTTPStatusCode
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode
	}
	return 0
}
