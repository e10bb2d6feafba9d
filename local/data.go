package main

import (
	"context"

	"github.com/insightedge/insightedge/shared/tools"
)

// startData starts the data service side: the mock Java service over real
// HTTP (unless JAVA_API_BASE_URL points at a real one) and the base data tools.
func (s *localServer) startData(ctx context.Context, o options, env *envOverlay) ([]tools.Tool, error) {
	return nil, nil
}
