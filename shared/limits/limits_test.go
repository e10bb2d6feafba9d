package limits_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/limits"
	"github.com/insightedge/insightedge/shared/limits/limitstest"
	"github.com/insightedge/insightedge/shared/records"
)

func TestMemoryContract(t *testing.T) {
	limitstest.Run(t, func(*testing.T) limitstest.Stores {
		return limitstest.Stores{Records: records.NewMemory(), Counters: limits.NewMemory()}
	})
}

func TestFromEnv(t *testing.T) {
	tests := []struct {
		env     map[string]string
		want    limits.Values
		zone    string
		claim   string
		wantErr bool
	}{
		{env: nil, want: limits.Values{}, zone: "Asia/Hong_Kong", claim: "school"},
		{env: map[string]string{"LIMIT_CONCURRENT_TURNS": "2", "LIMIT_TURNS_PER_MINUTE": " 5 ", "LIMIT_BUILDS_PER_HOUR": "0",
			"LIMIT_RESEARCH_PER_DAY": "off", "LIMIT_SCHOOL_TOKENS_PER_DAY": "2000000", "LIMIT_TIME_ZONE": "UTC", "LIMIT_SCHOOL_CLAIM": "org"},
			want: limits.Values{limits.ConcurrentTurns: 2, limits.TurnsPerMinute: 5, limits.SchoolTokensPerDay: 2000000}, zone: "UTC", claim: "org"},
		{env: map[string]string{"LIMIT_TURNS_PER_MINUTE": "-1"}, wantErr: true},
		{env: map[string]string{"LIMIT_TOKENS_PER_DAY": "1e6"}, wantErr: true},
		{env: map[string]string{"LIMIT_TIME_ZONE": "Mars/Olympus"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.env), func(t *testing.T) {
			c, err := limits.FromEnv(func(k string) string { return tt.env[k] })
			if tt.wantErr {
				if !errors.Is(err, limits.ErrConfig) {
					t.Fatalf("err %v, want ErrConfig", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(c.Values) != fmt.Sprint(tt.want) || c.Zone.String() != tt.zone || c.SchoolClaim != tt.claim {
				t.Fatalf("got %v %s %s", c.Values, c.Zone, c.SchoolClaim)
			}
			if c.On() != (len(tt.want) > 0) {
				t.Fatalf("On() = %v", c.On())
			}
		})
	}
}

func TestRetrySeconds(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want int64
	}{{0, 1}, {time.Millisecond, 1}, {time.Second, 1}, {1500 * time.Millisecond, 2}, {30 * time.Second, 30}} {
		if got := (&limits.Exceeded{RetryAfter: tt.d}).RetrySeconds(); got != tt.want {
			t.Errorf("%v: %d, want %d", tt.d, got, tt.want)
		}
	}
}

// BenchmarkAdmitTurn is the limiter's own work per turn (in memory).
func BenchmarkAdmitTurn(b *testing.B) {
	limitstest.Bench(b, limitstest.Stores{Records: records.NewMemory(), Counters: limits.NewMemory()})
}
