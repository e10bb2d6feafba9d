package javaapi

import (
	"slices"
	"sync"
	"time"
)

// classCache keeps teachers' class lists for a while. It is bounded: when
// full, expired entries go first, then the one closest to expiry.
type classCache struct {
	ttl     time.Duration
	max     int
	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	classes []ClassInfo
	expires time.Time
}

func newClassCache(ttl time.Duration, max int) *classCache {
	return &classCache{ttl: ttl, max: max, entries: map[string]cacheEntry{}}
}

func (c *classCache) get(teacherID string, now time.Time) ([]ClassInfo, bool) {
	if c.ttl <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[teacherID]
	if !ok || !now.Before(e.expires) {
		return nil, false
	}
	return slices.Clone(e.classes), true
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
	c.entries[teacherID] = cacheEntry{classes: slices.Clone(classes), expires: now.Add(c.ttl)}
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
