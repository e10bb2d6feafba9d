package awswire

// issue 28: the operator's switches in AWS, one SSM parameter
// (FLAGS_PARAMETER, a String holding flags.Parse's JSON), read at most
// once per FLAGS_TTL (30 s) per function instance: a flip takes effect
// within the TTL, without a deploy, and costs one GetParameters call a TTL.

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/insightedge/insightedge/shared/flags"
)

// switchesSource is the switches of c's parameter, over the client
// client makes on the first read; nil without FLAGS_PARAMETER (then
// wire.New reads FLAGS_FILE, or runs with every switch on).
func switchesSource(c flags.Config, client func() parameterGetter, log *slog.Logger) flags.Source {
	if c.Parameter == "" {
		return nil
	}
	var once sync.Once
	var ssmc parameterGetter
	load := func(ctx context.Context) ([]byte, error) {
		once.Do(func() { ssmc = client() })
		values, err := getParameters(ctx, ssmc, []string{c.Parameter})
		if err != nil {
			return nil, fmt.Errorf("read the switches' SSM parameter %q: %w", c.Parameter, err)
		}
		v, ok := values[c.Parameter]
		if !ok {
			return nil, fmt.Errorf("the switches' SSM parameter %q does not exist", c.Parameter)
		}
		return []byte(v), nil
	}
	return flags.NewCached(load, flags.CachedOptions{TTL: c.TTL, Logger: log})
}
