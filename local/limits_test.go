package main

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/local/e2e"
)

// limitsRun runs `go run ./local limits …` with env and returns its output.
func limitsRun(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), append([]string{"limits"}, args...), &out, &errOut, func(k string) string { return env[k] })
	return out.String(), err
}

// TestLimitsCommandInStore (issue 26): with no server at ADDR the command
// changes the store of -data; a server started on it then applies it.
func TestLimitsCommandInStore(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"ADDR": freeAddr(t), "DATA_DIR": dir, "LIMIT_TURNS_PER_MINUTE": "1"}
	out, err := limitsRun(t, env, "set", "-teacher", "t-001", "turnsPerMinute=2", "tokensPerDay=500")
	if err != nil || !strings.Contains(out, "turnsPerMinute       stage 1, here 2") || !strings.Contains(out, "tokensPerDay         stage none, here 500") {
		t.Fatalf("set: %v\n%s", err, out)
	}
	out, err = limitsRun(t, env, "lift", "-school", "s-1", "reportsPerDay")
	if err != nil || !strings.Contains(out, "school s-1 (override of") || !strings.Contains(out, "reportsPerDay        stage none, here lifted") {
		t.Fatalf("lift: %v\n%s", err, out)
	}
	out, err = limitsRun(t, env, "reset", "-teacher", "t-001", "tokensPerDay")
	if err != nil || strings.Contains(out, "here 500") || !strings.Contains(out, "here 2") {
		t.Fatalf("reset: %v\n%s", err, out)
	}
	limitsRefused(t, env, [][]string{
		{"set", "-teacher", "t-001", "nope=3"},
		{"set", "-teacher", "t-001", "turnsPerMinute=0"},
		{"set", "-teacher", "t-001", "-school", "s-1", "turnsPerMinute=3"},
		{"lift", "-teacher", "t-001", "turnsPerMinute=3"},
		{"set", "-teacher", "t-001"},
		{},
	})
	s := e2e.NewLocalIn(t, dir, map[string]string{"LIMIT_TURNS_PER_MINUTE": "1"})
	for i, want := range []int{http.StatusOK, http.StatusOK, http.StatusTooManyRequests} {
		if st := e2e.PostJSON(t, s.URL+"/api/conversation", `{"message":"What is photosynthesis?"}`, nil); st != want {
			t.Fatalf("turn %d: %d, want %d (the override raised the limit to 2)", i+1, st, want)
		}
	}
}

// TestLimitsCommandThroughServer: with a server at ADDR the command goes
// through its operator route, and the change applies at once.
func TestLimitsCommandThroughServer(t *testing.T) {
	s := e2e.NewLocal(t, map[string]string{"LIMIT_TURNS_PER_MINUTE": "1"})
	env := map[string]string{"ADDR": strings.TrimPrefix(s.URL, "http://"), "DATA_DIR": t.TempDir()}
	if st := e2e.PostJSON(t, s.URL+"/api/conversation", `{"message":"What is photosynthesis?"}`, nil); st != http.StatusOK {
		t.Fatal(st)
	}
	out, err := limitsRun(t, env, "lift", "-teacher", "t-001", "turnsPerMinute")
	if err != nil || !strings.Contains(out, "turnsPerMinute       stage 1, here lifted") || !strings.Contains(out, "by t-001") {
		t.Fatalf("lift: %v\n%s", err, out)
	}
	if st := e2e.PostJSON(t, s.URL+"/api/conversation", `{"message":"What is photosynthesis?"}`, nil); st != http.StatusOK {
		t.Fatalf("lifted: %d", st)
	}
	if out, err := limitsRun(t, env, "show", "-school", "a/b"); err == nil {
		t.Fatalf("a malformed id: %s", out)
	}
}

// TestLimitsCommandPassMark (issue 23): the same command sets a school's
// pass mark, 1 to 100, for a school only.
func TestLimitsCommandPassMark(t *testing.T) {
	env := map[string]string{"ADDR": freeAddr(t), "DATA_DIR": t.TempDir()}
	for _, step := range []struct{ args, want, not []string }{
		{[]string{"set", "-school", "s-50", "passMark=50"}, []string{"passMark             default 60, here 50"}, nil},
		{[]string{"reset", "-school", "s-50", "passMark"}, []string{"passMark             default 60"}, []string{"here 50"}},
	} {
		out, err := limitsRun(t, env, step.args...)
		if err != nil || !containsAll(out, step.want) || containsAny(out, step.not) {
			t.Fatalf("%q: %v\n%s", step.args, err, out)
		}
	}
	limitsRefused(t, env, [][]string{
		{"set", "-teacher", "t-001", "passMark=50"},
		{"set", "-school", "s-50", "passMark=101"},
		{"lift", "-school", "s-50", "passMark"},
	})
}

func containsAll(s string, subs []string) bool {
	return !slices.ContainsFunc(subs, func(sub string) bool { return !strings.Contains(s, sub) })
}

func containsAny(s string, subs []string) bool {
	return slices.ContainsFunc(subs, func(sub string) bool { return strings.Contains(s, sub) })
}

// limitsRefused checks that each of bads is an error.
func limitsRefused(t *testing.T, env map[string]string, bads [][]string) {
	t.Helper()
	for _, bad := range bads {
		if _, err := limitsRun(t, env, bad...); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
