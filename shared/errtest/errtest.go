// Package errtest checks the error a table-driven test case expects, so
// that each table states only what it tests.
package errtest

import (
	"strings"
	"testing"
)

// Expect checks err against a case's wanted error text. With want set, err
// must contain it, and Expect returns true: the case has nothing more to
// check. With want empty, err must be nil (else the test stops), and Expect
// returns false.
func Expect(t testing.TB, err error, want string) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatal(err)
		}
		return false
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want one naming %q", err, want)
	}
	return true
}
