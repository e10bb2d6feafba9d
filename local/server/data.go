package server

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/insightedge/insightedge/local/javamock"
	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/tools/datatools"
)

// startData starts the data service side: the mock Java service on a real
// port (unless JAVA_API_BASE_URL points at a real one, or USE_MOCK_DATA skips
// HTTP), the client over it, and the base data tools.
func (s *Server) startData(ctx context.Context, o Options, env *envOverlay) ([]tools.Tool, error) {
	if env.get("JAVA_API_BASE_URL") == "" && env.get("USE_MOCK_DATA") != "true" {
		token := randomToken()
		// The mock serves under the prefix the client will use ("/" is none).
		prefix := cmp.Or(env.get("JAVA_API_PREFIX"), env.get(javaapi.Alias("JAVA_API_PREFIX")))
		s.Java = javamock.New(s.mockData, javamock.Options{Token: token, Prefix: prefix})
		mctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		base, done, err := s.Java.Start(mctx, "127.0.0.1:0")
		if err != nil {
			cancel()
			return nil, fmt.Errorf("local: mock data service: %w", err)
		}
		s.closers = append(s.closers, func(context.Context) error { cancel(); <-done; return nil })
		env.set("JAVA_API_BASE_URL", base)
		env.set("JAVA_API_TOKEN", token)
	}
	cfg, err := javaapi.ConfigFromLookup(javaapi.LookupWithProcess(env.get))
	if err != nil {
		return nil, err
	}
	s.Data, err = javaapi.New(cfg, javaapi.Options{Logger: o.Logger, Fallback: mockserver.Fallback(cfg)})
	if err != nil {
		return nil, fmt.Errorf("local: data client: %w", err)
	}
	return datatools.New(s.Data, o.Logger), nil
}

func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "local-" + hex.EncodeToString(b)
}
