package syncbuf_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/insightedge/insightedge/shared/syncbuf"
)

// TestConcurrentWrites writes from many goroutines while reading (run with
// -race to see the lock at work) and checks that no write is lost.
func TestConcurrentWrites(t *testing.T) {
	var b syncbuf.Buffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			fmt.Fprintf(&b, "line %d\n", i)
			_ = b.String()
		})
	}
	wg.Wait()
	if got := strings.Count(b.String(), "\n"); got != 8 {
		t.Fatalf("%d lines, want 8: %q", got, b.String())
	}
}
