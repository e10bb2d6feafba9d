package clock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/clock"
)

func TestSleep(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		d    time.Duration
		want error
	}{
		{"elapses", context.Background(), time.Millisecond, nil},
		{"zero", context.Background(), 0, nil},
		{"negative", context.Background(), -time.Second, nil},
		{"done before", done, time.Hour, context.Canceled},
		{"done and zero", done, 0, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := clock.Sleep(tt.ctx, tt.d); !errors.Is(err, tt.want) {
				t.Fatalf("Sleep = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestSleepOrWake(t *testing.T) {
	woken := make(chan struct{})
	close(woken)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		wake <-chan struct{}
		want error
	}{
		{"woken before the hour", context.Background(), woken, nil},
		{"done before the hour", done, nil, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := clock.SleepOrWake(tt.ctx, time.Hour, tt.wake); !errors.Is(err, tt.want) {
				t.Fatalf("SleepOrWake = %v, want %v", err, tt.want)
			}
		})
	}
}
