package limits

import (
	"context"
	"sync"
	"time"
)

// Memory is Counters in memory, for tests of the layers above (one lock:
// an add never races).
type Memory struct {
	mu     sync.Mutex
	counts map[string]int64
}

// NewMemory returns empty counters.
func NewMemory() *Memory { return &Memory{counts: map[string]int64{}} }

// Add implements Counters.
func (m *Memory) Add(ctx context.Context, key string, n int64, _ time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counts[key] += n
	return nil
}

// Counts implements Counters.
func (m *Memory) Counts(ctx context.Context, keys []string) ([]int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]int64, len(keys))
	for i, k := range keys {
		out[i] = m.counts[k]
	}
	return out, nil
}
