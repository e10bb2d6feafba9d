package errtest

import (
	"errors"
	"testing"
)

// recorder is a testing.TB that records a failure instead of ending the
// test, so that the checks' own failures can be tested.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper() {}

func (r *recorder) Fatal(...any) { r.failed = true }

func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestExpect(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		want       string
		wantDone   bool
		wantFailed bool
	}{
		{"no error wanted, none", nil, "", false, false},
		{"no error wanted, one", errors.New("boom"), "", false, true},
		{"error wanted, named", errors.New("TABLE_NAME is required"), "TABLE_NAME", true, false},
		{"error wanted, another", errors.New("LOG_LEVEL unknown"), "TABLE_NAME", true, true},
		{"error wanted, none", nil, "TABLE_NAME", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			if done := Expect(r, tt.err, tt.want); done != tt.wantDone || r.failed != tt.wantFailed {
				t.Errorf("Expect = %v, failed %v; want %v, failed %v", done, r.failed, tt.wantDone, tt.wantFailed)
			}
		})
	}
}
