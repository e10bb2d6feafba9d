package javaapi

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// What the product needs of each answer (docs/javaapi.md, "What the product
// requires"): a record without its identifier, or without what names it to
// a teacher, cannot be used and is left out; a record missing a field the
// teacher reads is kept, its field unknown (null), and listed in its
// "incomplete" member. Either way the field is a contract violation: logged,
// counted by field (Stats.Violations, the EMF metric JavaContractViolation)
// and reported to the caller's Report, so that the teacher is told.

// optNum is a number the service may send, send as null, or leave out.
type optNum struct {
	set   bool // the member was present
	valid bool // and held a number
	v     float64
}

func (o *optNum) UnmarshalJSON(b []byte) error {
	o.set = true
	if string(b) == "null" {
		return nil
	}
	// The decoder hands over one valid JSON value; a number's text is what
	// encoding/json itself gives strconv.ParseFloat.
	if len(b) > 0 && (b[0] == '-' || '0' <= b[0] && b[0] <= '9') {
		v, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return &json.UnmarshalTypeError{Value: "number " + string(b), Type: reflect.TypeFor[float64]()}
		}
		o.v, o.valid = v, true
		return nil
	}
	if err := json.Unmarshal(b, &o.v); err != nil {
		return err
	}
	o.valid = true
	return nil
}

// ptr returns the number, or nil when it is absent or null.
func (o optNum) ptr() *float64 {
	if !o.valid {
		return nil
	}
	v := o.v
	return &v
}

// positive returns the number when it is above 0, else nil (a max score).
func (o optNum) positive() *float64 {
	if !o.valid || o.v <= 0 {
		return nil
	}
	return o.ptr()
}

// optStr is a string the service may send, send as null, or leave out.
type optStr struct {
	valid bool
	v     string
}

func (o *optStr) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	// A valid JSON string without escapes is its bytes between the quotes
	// (the common case, far cheaper than decoding).
	if len(b) >= 2 && b[0] == '"' && bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b) {
		o.v, o.valid = string(b[1:len(b)-1]), true
		return nil
	}
	if err := json.Unmarshal(b, &o.v); err != nil {
		return err
	}
	o.valid = true
	return nil
}

// get returns the trimmed string and whether it is non-empty.
func (o optStr) get() (string, bool) {
	v := strings.TrimSpace(o.v)
	return v, o.valid && v != ""
}

// issues collects the contract violations found while mapping one answer.
type issues struct {
	fields  map[string]int // "class.student_count" → records
	dropped map[string]int // "class" → records left out
}

func newIssues() *issues { return &issues{fields: map[string]int{}, dropped: map[string]int{}} }

// missing records that field (entity.field) was absent or unusable.
func (is *issues) missing(field string) { is.fields[field]++ }

// drop records that a record of entity was left out.
func (is *issues) drop(entity string) { is.dropped[entity]++ }

// reject records that a record of entity was left out for lacking field.
func (is *issues) reject(entity, field string) {
	is.missing(entity + "." + field)
	is.drop(entity)
}

func (is *issues) empty() bool { return len(is.fields) == 0 && len(is.dropped) == 0 }

// Report tells what the data calls made with a context found beyond their
// data: whether mock data or a stale cache answered, and which records were
// incomplete or left out. A tool or a build makes one per scope
// (WithReport) and tells the model and the teacher what it says. Safe for
// concurrent use.
//
// A Report also keeps a scope's data from one source: once the service has
// answered in a scope, a later failure in it is not served from mock data
// (that would blend mock rows into real ones), and once mock data has
// answered, the rest of the scope is served from mock data too.
type Report struct {
	mu         sync.Mutex
	real, mock int
	configured bool // the mock data is configured (USE_MOCK_DATA), not a fallback
	staleAge   time.Duration
	stale      bool
	fields     map[string]int
	dropped    map[string]int
}

type reportKey struct{}

// WithReport returns ctx carrying a new Report for the data calls made with it.
func WithReport(ctx context.Context) (context.Context, *Report) {
	r := &Report{fields: map[string]int{}, dropped: map[string]int{}}
	return context.WithValue(ctx, reportKey{}, r), r
}

// ReportFrom returns the Report ctx carries, or nil.
func ReportFrom(ctx context.Context) *Report {
	r, _ := ctx.Value(reportKey{}).(*Report)
	return r
}

// Summary is a snapshot of a Report.
type Summary struct {
	// Mock: some data came from the mock data set, not the service;
	// MockConfigured: because USE_MOCK_DATA says so, not after a failure.
	Mock           bool `json:"mock,omitempty"`
	MockConfigured bool `json:"mockConfigured,omitempty"`
	// Stale: a cached class list older than its TTL answered while the
	// service was down; StaleAge is its age.
	Stale    bool          `json:"stale,omitempty"`
	StaleAge time.Duration `json:"staleAge,omitempty"`
	// Violations counts records by the field they lacked ("class.student_count").
	Violations map[string]int `json:"violations,omitempty"`
	// Dropped counts the records left out, by entity ("class", "submission").
	Dropped map[string]int `json:"dropped,omitempty"`
}

// Incomplete reports whether some record lacked something.
func (s Summary) Incomplete() bool { return len(s.Violations) > 0 || len(s.Dropped) > 0 }

// Fields returns the fields of Violations, sorted.
func (s Summary) Fields() []string { return slices.Sorted(maps.Keys(s.Violations)) }

// DroppedTotal is the number of records left out.
func (s Summary) DroppedTotal() int {
	n := 0
	for _, v := range s.Dropped {
		n += v
	}
	return n
}

// Summary returns what the Report holds; a nil Report holds nothing.
func (r *Report) Summary() Summary {
	if r == nil {
		return Summary{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Summary{Mock: r.mock > 0, MockConfigured: r.configured, Stale: r.stale, StaleAge: r.staleAge}
	if len(r.fields) > 0 {
		s.Violations = maps.Clone(r.fields)
	}
	if len(r.dropped) > 0 {
		s.Dropped = maps.Clone(r.dropped)
	}
	return s
}

func (r *Report) answered(mocked bool) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if mocked {
		r.mock++
	} else {
		r.real++
	}
}

func (r *Report) mockConfigured() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.configured = true
}

// source tells which source answered in the scope so far.
func (r *Report) source() (real, mock bool) {
	if r == nil {
		return false, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.real > 0, r.mock > 0
}

func (r *Report) staleAnswer(age time.Duration) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stale = true
	r.staleAge = max(r.staleAge, age)
}

func (r *Report) add(is *issues) {
	if r == nil || is.empty() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, v := range is.fields {
		r.fields[k] += v
	}
	for k, v := range is.dropped {
		r.dropped[k] += v
	}
}

type refreshKey struct{}

// WithFreshData returns ctx whose data calls skip the class-list cache:
// the teacher asked for current data ("refresh", "a class is missing").
func WithFreshData(ctx context.Context) context.Context {
	return context.WithValue(ctx, refreshKey{}, true)
}

func wantsFresh(ctx context.Context) bool {
	v, _ := ctx.Value(refreshKey{}).(bool)
	return v
}
