// Package records is the one keyed record store with a compare-and-swap
// update: Create, Get, Update(fn) and Delete of values by key. The flows
// keep their typed rules on top of it (report sessions and connections in
// shared/report, research sessions in shared/research), and each backend
// implements it once: shared/boltstore (a bucket a kind, an update inside
// one bbolt transaction), shared/dynamostore (an item a record, a
// conditional write on a version attribute) and Memory here. All of them
// pass recordstest.Run.
//
// A backend keeps Items, the value's JSON with what it keeps beside it;
// Open turns the items of one kind into a Store of a Go type.
package records

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Errors of the Store contract.
var (
	ErrNotFound = errors.New("records: not found")
	ErrExists   = errors.New("records: already exists")
	// ErrConflict is an update that lost to other writers too many times in
	// a row (backends that retry a lost compare-and-swap bound the retries).
	ErrConflict = errors.New("records: conflicting update")
)

// Store keeps values by key.
type Store[T any] interface {
	// Create stores a new value; ErrExists if the key is taken.
	Create(ctx context.Context, key string, v T) error
	// Get returns the value (strongly consistent) or ErrNotFound.
	Get(ctx context.Context, key string) (T, error)
	// Update applies fn to the stored value and writes the result only if
	// nobody wrote in between; otherwise it reads again and calls fn again,
	// a bounded number of times (then ErrConflict). An error from fn is
	// returned and nothing is written. ErrNotFound without the value.
	Update(ctx context.Context, key string, fn func(*T) error) (T, error)
	// Delete removes the value; removing a missing one is not an error.
	Delete(ctx context.Context, key string) error
}

// Item is a record as a backend keeps it.
type Item struct {
	// Data is the value's JSON.
	Data []byte
	// Expires is when the backend may forget the record (DynamoDB's TTL);
	// zero: the backend's default lifetime.
	Expires time.Time
	// Attrs are fields copied beside Data for an operator's queries (DynamoDB
	// attributes; the embedded store keeps Data only). Empty values are left out.
	Attrs map[string]string
}

// Backend keeps the items of each kind of record (a bbolt bucket, a
// DynamoDB key prefix).
type Backend interface {
	Items(kind string) Store[Item]
}

// Lister is implemented by the item stores that can read all their items,
// in key order (the embedded store; a development machine's records allow a
// scan).
type Lister interface {
	List(ctx context.Context) ([]Item, error)
}

// Kind names a kind of record of type T and says what a backend keeps beside
// its JSON.
type Kind[T any] struct {
	// Name is the kind's name in the backend: the bbolt bucket, and what
	// selects the DynamoDB item layout.
	Name string
	// Expires is the record's expiry (nil or zero: the backend's default).
	Expires func(T) time.Time
	// Attrs are the fields copied into Item.Attrs (nil: none).
	Attrs func(T) map[string]string
}

// JSON is the Store of one kind of record, kept as JSON in a backend's items.
type JSON[T any] struct {
	items Store[Item]
	kind  Kind[T]
}

var _ Store[struct{}] = (*JSON[struct{}])(nil)

// Open returns the store of kind's records in b.
func Open[T any](b Backend, kind Kind[T]) *JSON[T] {
	return &JSON[T]{items: b.Items(kind.Name), kind: kind}
}

// Create implements Store.
func (s *JSON[T]) Create(ctx context.Context, key string, v T) error {
	it, err := s.item(v)
	if err != nil {
		return fmt.Errorf("records: create %s %s: %w", s.kind.Name, key, err)
	}
	return s.items.Create(ctx, key, it)
}

// Get implements Store.
func (s *JSON[T]) Get(ctx context.Context, key string) (T, error) {
	it, err := s.items.Get(ctx, key)
	if err != nil {
		var zero T
		return zero, err
	}
	return s.decode(key, it)
}

// Update implements Store.
func (s *JSON[T]) Update(ctx context.Context, key string, fn func(*T) error) (T, error) {
	var out T
	_, err := s.items.Update(ctx, key, func(it *Item) error {
		v, err := s.decode(key, *it)
		if err != nil {
			return err
		}
		if err := fn(&v); err != nil {
			return err
		}
		if *it, err = s.item(v); err != nil {
			return fmt.Errorf("records: update %s %s: %w", s.kind.Name, key, err)
		}
		out = v
		return nil
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// Delete implements Store.
func (s *JSON[T]) Delete(ctx context.Context, key string) error { return s.items.Delete(ctx, key) }

// CanList reports whether List is supported (the backend's items are a
// Lister).
func (s *JSON[T]) CanList() bool {
	_, ok := s.items.(Lister)
	return ok
}

// List returns every record in key order; errors.ErrUnsupported unless
// CanList.
func (s *JSON[T]) List(ctx context.Context) ([]T, error) {
	l, ok := s.items.(Lister)
	if !ok {
		return nil, fmt.Errorf("records: list %s: %w", s.kind.Name, errors.ErrUnsupported)
	}
	items, err := l.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(items))
	for _, it := range items {
		v, err := s.decode("", it)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (s *JSON[T]) item(v T) (Item, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return Item{}, fmt.Errorf("encode: %w", err)
	}
	it := Item{Data: data}
	if s.kind.Expires != nil {
		it.Expires = s.kind.Expires(v)
	}
	if s.kind.Attrs != nil {
		it.Attrs = s.kind.Attrs(v)
	}
	return it, nil
}

func (s *JSON[T]) decode(key string, it Item) (T, error) {
	var v T
	if err := json.Unmarshal(it.Data, &v); err != nil {
		return v, fmt.Errorf("records: decode %s %s: %w", s.kind.Name, key, err)
	}
	return v, nil
}
