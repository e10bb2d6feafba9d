// Package clocktest gives tests a clock they move and a sleep they record,
// so that code with a Now or Sleep option runs without waiting.
package clocktest

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Fake is a time the test sets and moves; safe for concurrent use.
type Fake struct {
	mu  sync.Mutex
	now time.Time
}

// New returns a Fake that reads t.
func New(t time.Time) *Fake { return &Fake{now: t} }

// Now returns the time the test set.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t.
func (c *Fake) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Advance moves the clock on by d.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Sleeps is a sleep that does not wait: it records each duration and
// returns ctx.Err(). Its zero value is ready; safe for concurrent use.
type Sleeps struct {
	mu sync.Mutex
	ds []time.Duration
}

// Sleep records d and returns ctx.Err().
func (s *Sleeps) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ds = append(s.ds, d)
	return ctx.Err()
}

// Got returns the durations slept so far, in order.
func (s *Sleeps) Got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ds)
}
