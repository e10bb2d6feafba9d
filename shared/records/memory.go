package records

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
)

// Memory is a Backend in memory, for tests of the typed layers: one lock
// serialises its writes, so an update never has to retry.
type Memory struct {
	mu    sync.Mutex
	kinds map[string]map[string]Item
}

// NewMemory returns an empty Memory.
func NewMemory() *Memory { return &Memory{kinds: map[string]map[string]Item{}} }

// Items implements Backend.
func (m *Memory) Items(kind string) Store[Item] { return memoryItems{m: m, kind: kind} }

type memoryItems struct {
	m    *Memory
	kind string
}

var _ Lister = memoryItems{}

// lock checks ctx, takes the lock and returns the kind's items; the caller
// unlocks.
func (s memoryItems) lock(ctx context.Context) (map[string]Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.m.mu.Lock()
	items := s.m.kinds[s.kind]
	if items == nil {
		items = map[string]Item{}
		s.m.kinds[s.kind] = items
	}
	return items, nil
}

func (s memoryItems) Create(ctx context.Context, key string, it Item) error {
	if key == "" {
		return fmt.Errorf("records: create %s: empty key", s.kind)
	}
	items, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer s.m.mu.Unlock()
	if _, ok := items[key]; ok {
		return fmt.Errorf("records: create %s %s: %w", s.kind, key, ErrExists)
	}
	items[key] = clone(it)
	return nil
}

// Get is an update that changes nothing.
func (s memoryItems) Get(ctx context.Context, key string) (Item, error) {
	return s.Update(ctx, key, func(*Item) error { return nil })
}

func (s memoryItems) Update(ctx context.Context, key string, fn func(*Item) error) (Item, error) {
	items, err := s.lock(ctx)
	if err != nil {
		return Item{}, err
	}
	defer s.m.mu.Unlock()
	it, ok := items[key]
	if !ok {
		return Item{}, fmt.Errorf("records: %s %s: %w", s.kind, key, ErrNotFound)
	}
	it = clone(it)
	if err := fn(&it); err != nil {
		return Item{}, err
	}
	items[key] = clone(it)
	return it, nil
}

func (s memoryItems) Delete(ctx context.Context, key string) error {
	items, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer s.m.mu.Unlock()
	delete(items, key)
	return nil
}

// List implements Lister.
func (s memoryItems) List(ctx context.Context) ([]Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	items := s.m.kinds[s.kind]
	out := make([]Item, 0, len(items))
	for _, k := range slices.Sorted(maps.Keys(items)) {
		out = append(out, clone(items[k]))
	}
	return out, nil
}

// clone copies it, so that no caller shares the stored bytes or map.
func clone(it Item) Item {
	it.Data = bytes.Clone(it.Data)
	it.Attrs = maps.Clone(it.Attrs)
	return it
}
