package javaapi

import (
	"slices"
	"sync"
	"time"
)

// classCache keeps teachers' class lists for a while: fresh for ttl, then,
// for stale more, only for when the service is down. It is bounded: when
// full, entries past both go first, then the one closest to expiry.
type classCache struct {
	ttl     time.Duration
	stale   time.Duration
	max     int
	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	classes []ClassInfo
	stored  time.Time
	expires time.Time // stored + ttl + stale: gone after
}

func newClassCache(ttl, stale time.Duration, max int) *classCache {
	return &classCache{ttl: ttl, stale: stale, max: max, entries: map[string]cacheEntry{}}
}

// get returns the teacher's list, whether it is still fresh, and its age.
func (c *classCache) get(teacherID string, now time.Time) (cs []ClassInfo, fresh bool, age time.Duration, found bool) {
	if c.ttl <= 0 {
		return nil, false, 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[teacherID]
	if !ok || !now.Before(e.expires) {
		return nil, false, 0, false
	}
	age = now.Sub(e.stored)
	return slices.Clone(e.classes), age < c.ttl, age, true
}

func (c *classCache) put(teacherID string, classes []ClassInfo, now time.Time) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[teacherID]; !ok && len(c.entries) >= c.max {
		c.evict(now)
	}
	c.entries[teacherID] = cacheEntry{classes: slices.Clone(classes), stored: now, expires: now.Add(c.ttl + c.stale)}
}

// evict makes room for one entry; the caller holds mu.
func (c *classCache) evict(now time.Time) {
	var soonest string
	var soonestAt time.Time
	for k, e := range c.entries {
		if !now.Before(e.expires) {
			delete(c.entries, k)
			continue
		}
		if soonest == "" || e.expires.Before(soonestAt) {
			soonest, soonestAt = k, e.expires
		}
	}
	if len(c.entries) >= c.max {
		delete(c.entries, soonest)
	}
}
