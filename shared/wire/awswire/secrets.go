package awswire

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/wire"
)

// Secrets are read once per execution environment, at its cold start, in
// one GetParameters call (docs/scale.md, "SSM at scale-out"): a bell-time
// scale-out starts about 1,000 environments per 10 s per function, and
// SSM's standard throughput is 40 TPS per account and Region. A throttled
// read is retried with full jitter, so that the environments started
// together do not retry together, within secretsTimeout.
const (
	// secretsTimeout bounds the read inside Lambda's 10 s init phase,
	// leaving the rest of init to the graph.
	secretsTimeout = 6 * time.Second
	// secretsAttempts bounds the tries (the first and 7 retries).
	secretsAttempts = 8
	// secretsBaseBackoff and secretsMaxBackoff shape the full-jitter
	// backoff: a uniform wait in [0, min(max, base·2^attempt)).
	secretsBaseBackoff = 100 * time.Millisecond
	secretsMaxBackoff  = 1500 * time.Millisecond
	// getParametersMax is the most names one GetParameters call takes.
	getParametersMax = 10
)

// parameterGetter reads SSM parameters (*ssm.Client is one).
type parameterGetter interface {
	GetParameters(ctx context.Context, in *ssm.GetParametersInput, opts ...func(*ssm.Options)) (*ssm.GetParametersOutput, error)
}

// newSecretsClient is the SSM client of the cold start's secrets read:
// its retryer backs off with full jitter and has no client-side retry
// quota (one call per environment has nothing to protect). opts (tests'
// endpoints) apply after.
func newSecretsClient(cfg aws.Config, opts ...func(*ssm.Options)) *ssm.Client {
	retryer := func(o *ssm.Options) { o.Retryer = secretsRetryer() }
	return ssm.NewFromConfig(cfg, append([]func(*ssm.Options){retryer}, opts...)...)
}

func secretsRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = secretsAttempts
		o.MaxBackoff = secretsMaxBackoff
		o.RateLimiter = ratelimit.None
		o.Backoff = retry.BackoffDelayerFunc(fullJitter)
	})
}

// fullJitter is AWS's "full jitter" backoff for the given retry attempt (1
// for the first retry).
func fullJitter(attempt int, _ error) (time.Duration, error) {
	ceiling := secretsMaxBackoff
	if attempt < 16 {
		ceiling = min(ceiling, secretsBaseBackoff<<attempt)
	}
	return rand.N(ceiling), nil
}

// secretSource is one secret variable and the SSM parameter it may come from.
type secretSource struct {
	name, parameter string
	needed          bool
}

// resolveSecrets returns getenv with OPENAI_API_KEY, AUTH_JWT_SECRET,
// JAVA_API_TOKEN, the search key and the template state secret read from
// their SSM parameters where the variable itself is not set, so that
// secrets never sit in the function's configuration. The parameters are
// read in one GetParameters call (client is called only when one is needed).
func resolveSecrets(ctx context.Context, getenv func(string) string, cc Config, client func() parameterGetter) (func(string) string, error) {
	byParameter := map[string][]string{} // parameter → the variables it fills
	var names []string
	for _, s := range secretSources(getenv, cc) {
		if s.parameter == "" || !s.needed || getenv(s.name) != "" || javaapi.Alias(s.name) != "" && getenv(javaapi.Alias(s.name)) != "" {
			continue
		}
		if _, ok := byParameter[s.parameter]; !ok {
			names = append(names, s.parameter)
		}
		byParameter[s.parameter] = append(byParameter[s.parameter], s.name)
	}
	secrets := map[string]string{}
	if len(names) > 0 {
		values, err := getParameters(ctx, client(), names)
		if err != nil {
			return nil, fmt.Errorf("wire: read %s from SSM: %w", variables(byParameter, names), err)
		}
		for _, p := range names {
			v, ok := values[p]
			switch {
			case !ok:
				return nil, fmt.Errorf("wire: the SSM parameter %q (for %s) does not exist", p, variables(byParameter, []string{p}))
			case v == "":
				return nil, fmt.Errorf("wire: the SSM parameter %q (for %s) is empty", p, variables(byParameter, []string{p}))
			}
			for _, name := range byParameter[p] {
				secrets[name] = v
			}
		}
	}
	return func(name string) string {
		if v, ok := secrets[name]; ok {
			return v
		}
		return getenv(name)
	}, nil
}

func secretSources(getenv func(string) string, cc Config) []secretSource {
	return []secretSource{
		{"OPENAI_API_KEY", cc.APIKeyParameter, true},
		{"AUTH_JWT_SECRET", cc.JWTSecretParameter, true},
		// Mock data needs no token: the parameter need not exist.
		{"JAVA_API_TOKEN", cc.JavaTokenParameter, javaBaseURL(getenv) != ""},
		{wire.EnvTavilyKey, cc.TavilyKeyParameter, true},
		// The template agent's state signing key (seed 002), where runs are steered.
		{"TEMPLATE_STATE_SECRET", strings.TrimSpace(getenv(EnvTemplateSecretParameter)), strings.TrimSpace(getenv(EnvTemplateMachine)) != ""},
	}
}

// getParameters reads names with decryption, getParametersMax a call, within
// secretsTimeout; a name SSM does not hold is absent from the map.
func getParameters(ctx context.Context, c parameterGetter, names []string) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, secretsTimeout)
	defer cancel()
	values := map[string]string{}
	for chunk := range slices.Chunk(names, getParametersMax) {
		out, err := c.GetParameters(ctx, &ssm.GetParametersInput{Names: chunk, WithDecryption: aws.Bool(true)})
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return nil, fmt.Errorf("no answer within %s: %w", secretsTimeout, err)
			}
			return nil, err
		}
		for _, p := range out.Parameters {
			values[aws.ToString(p.Name)] = aws.ToString(p.Value)
		}
	}
	return values, nil
}

// variables names the variables the parameters fill, for errors.
func variables(byParameter map[string][]string, parameters []string) string {
	var out []string
	for _, p := range parameters {
		out = append(out, byParameter[p]...)
	}
	return strings.Join(out, ", ")
}
