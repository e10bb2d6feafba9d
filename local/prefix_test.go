package main

import (
	"net/http"
	"strings"
	"testing"
)

// JAVA_API_PREFIX=/ (no prefix) starts and serves data; it used to panic
// in the mock fallback's set-up.
func TestPrefixSlashStarts(t *testing.T) {
	for _, env := range []map[string]string{{"JAVA_API_PREFIX": "/"}, {"SPRING_BOOT_API_PREFIX": "/data/"}} {
		s := newLocal(t, env)
		st := postStream(t, s.URL, `{"message":"我有哪些班？"}`)
		if st.Status != http.StatusOK || !strings.Contains(st.text(t), "Form 1A") {
			t.Errorf("%v: %d %s", env, st.Status, st.text(t))
		}
		for _, r := range s.Java.Requests() {
			if strings.Contains(r.Path, "/api/") || strings.Contains(r.Path, "//") {
				t.Errorf("%v: request path %s", env, r.Path)
			}
		}
	}
}
