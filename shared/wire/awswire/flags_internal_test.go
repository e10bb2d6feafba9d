package awswire

import (
	"context"
	"testing"

	"github.com/insightedge/insightedge/shared/flags"
)

// TestSwitchesSource: issue 28. The switches come from the parameter,
// read once per TTL; without FLAGS_PARAMETER there is no source (wire.New
// then reads FLAGS_FILE or runs with every switch on).
func TestSwitchesSource(t *testing.T) {
	if src := switchesSource(flags.Config{}, nil, nil); src != nil {
		t.Fatalf("no parameter: %v, want nil", src)
	}
	f := &fakeParameters{values: map[string]string{"/ie/flags": `{"research":false,"agent_unified_v2_enabled":{"percent":25}}`}}
	made := 0
	src := switchesSource(flags.Config{Parameter: "/ie/flags", TTL: flags.DefaultTTL},
		func() parameterGetter { made++; return f }, nil)
	ctx := context.Background()
	for range 3 {
		s := src.Switches(ctx)
		if s.On(flags.Research) || s.UnifiedV2.Percent != 25 {
			t.Fatalf("switches %+v, want research paused at 25%%", s)
		}
	}
	if len(f.asked) != 1 || made != 1 {
		t.Fatalf("%d reads and %d clients within the TTL, want 1 and 1", len(f.asked), made)
	}
}
