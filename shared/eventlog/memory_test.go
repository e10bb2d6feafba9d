package eventlog_test

import (
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/eventlog/eventlogtest"
)

func TestMemoryContract(t *testing.T) {
	eventlogtest.Run(t, func(t *testing.T) eventlog.Log { return eventlog.NewMemory() })
}

func TestSharedNotifier(t *testing.T) {
	n := eventlog.NewNotifier()
	a, b := n.Changed("a"), n.Changed("b")
	if again := n.Changed("a"); again != a {
		t.Fatal("two waiters of one stream got different channels before a broadcast")
	}
	n.Broadcast("a")
	select {
	case <-a:
	case <-time.After(10 * time.Second):
		t.Fatal("Broadcast(a) did not close a's channel")
	}
	select {
	case <-b:
		t.Fatal("Broadcast(a) closed b's channel")
	default:
	}
	n.Broadcast("nobody-waits") // no waiter: nothing to close, no panic
	if next := n.Changed("a"); next == a {
		t.Fatal("Changed after a broadcast returned the closed channel")
	}
}
