package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestChatCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	addr := freeAddr(t) // nothing answers there: the command starts its own server
	env := map[string]string{"DATA_DIR": t.TempDir(), "ADDR": addr}
	err := run(context.Background(), []string{"chat", "出 5 道牛顿第一定律的选择题", "再出 3 道"}, &out, &errOut, func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("chat: %v\n%s", err, errOut.String())
	}
	got := out.String()
	if first, _, _ := strings.Cut(got, "\n"); !strings.Contains(first, "no server at http://"+addr) || !strings.Contains(first, "running one in this process") {
		t.Errorf("the first line does not say which server was used: %q", first)
	}
	for _, want := range []string{"› 出 5 道牛顿第一定律的选择题", "✓ generate_quiz_questions", "Q5.", "answer:", "› 再出 3 道", "[conversation conv-"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "[conversation ") != 2 || strings.Count(got, "Q3.") != 2 {
		t.Errorf("want two turns (5 then 3 questions) in one conversation:\n%s", got)
	}
}

// freeAddr is a loopback address where nothing listens.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestChatUsesTheRunningServer: with a server answering at ADDR, chat talks
// to it (the conversation is in that server's store) and says so.
func TestChatUsesTheRunningServer(t *testing.T) {
	s := newLocal(t, nil)
	addr := strings.TrimPrefix(s.URL, "http://")
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
	}{
		{"ADDR", []string{"chat", "出 3 道牛顿第一定律的选择题"}, map[string]string{"ADDR": addr}},
		{"-addr", []string{"chat", "-addr", addr, "出 3 道牛顿第一定律的选择题"}, map[string]string{"ADDR": freeAddr(t)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			c.env["DATA_DIR"] = t.TempDir()
			if err := run(context.Background(), c.args, &out, &errOut, func(k string) string { return c.env[k] }); err != nil {
				t.Fatalf("chat: %v\n%s", err, errOut.String())
			}
			got := out.String()
			if first, _, _ := strings.Cut(got, "\n"); first != "(using the server at "+s.URL+")" {
				t.Errorf("first line %q, want it to name %s", first, s.URL)
			}
			m := regexp.MustCompile(`\[conversation (conv-[^\]]+)\]`).FindStringSubmatch(got)
			if m == nil {
				t.Fatalf("no conversation id in:\n%s", got)
			}
			var msgs struct{ Messages []json.RawMessage }
			if code := getJSON(t, s.URL+"/api/conversation/"+m[1]+"/messages", &msgs); code != 200 || len(msgs.Messages) != 2 {
				t.Errorf("the running server has %d messages of %s (status %d), want the turn's 2", len(msgs.Messages), m[1], code)
			}
		})
	}
}

// TestChatRefusesAForeignServer: something at ADDR that is not Insight Edge
// is not used.
func TestChatRefusesAForeignServer(t *testing.T) {
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	var out, errOut bytes.Buffer
	env := map[string]string{"DATA_DIR": t.TempDir(), "ADDR": strings.TrimPrefix(other.URL, "http://")}
	if err := run(context.Background(), []string{"chat", "你好"}, &out, &errOut, func(k string) string { return env[k] }); err != nil {
		t.Fatalf("chat: %v\n%s", err, errOut.String())
	}
	if first, _, _ := strings.Cut(out.String(), "\n"); !strings.Contains(first, "404 Not Found") || !strings.Contains(first, "running one in this process") {
		t.Errorf("first line: %q", first)
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"-help"}, {"--help"}, {"help"}, {"chat", "-h"}, {"serve", "-h"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			if err := run(context.Background(), args, &out, &errOut, func(string) string { return "" }); err != nil {
				t.Fatalf("%v: %v (want exit 0)", args, err)
			}
			for _, want := range []string{"Usage:", "go run ./local chat", "-addr", "127.0.0.1:8000"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("usage lacks %q:\n%s", want, out.String())
				}
			}
			if errOut.Len() != 0 {
				t.Errorf("stderr: %s", errOut.String())
			}
		})
	}
	// A wrong flag is an error, with the usage on stderr.
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"-nope"}, &out, &errOut, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "-nope") || !strings.Contains(errOut.String(), "Usage:") || out.Len() != 0 {
		t.Errorf("a wrong flag: err %v, stdout %q, stderr %.80q", err, out.String(), errOut.String())
	}
}

func TestHeartbeat(t *testing.T) {
	s := newLocal(t, map[string]string{"SSE_HEARTBEAT": "20ms"})
	st := postStream(t, s.URL, `{"message":"What is photosynthesis? [[offline:slow]]"}`)
	if st.Comment == 0 {
		t.Fatalf("no ': ping' comment in a slow stream:\n%s", st.Raw)
	}
	if !bytes.Contains(st.Raw, []byte("\n: ping\n")) && !bytes.HasPrefix(st.Raw, []byte(": ping\n")) {
		t.Fatalf("heartbeat is not the ': ping' comment")
	}
	aiSDK(t, st.Raw)
}

func TestRestartKeepsConversations(t *testing.T) {
	dir := t.TempDir()
	getenv := func(string) string { return "" }
	s1, err := start(context.Background(), options{Addr: "127.0.0.1:0", DataDir: dir, Getenv: getenv, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	st := postStream(t, s1.URL, `{"message":"出 5 道牛顿第一定律的选择题"}`)
	conv := st.Header.Get("X-Conversation-Id")
	if err := s1.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	s2, err := start(context.Background(), options{Addr: "127.0.0.1:0", DataDir: dir, Getenv: getenv, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close(context.Background())
	var got struct{ Messages []map[string]any }
	if code := getJSON(t, s2.URL+"/api/conversation/"+conv+"/messages", &got); code != 200 || len(got.Messages) != 2 {
		t.Fatalf("after a restart: %d, %d messages", code, len(got.Messages))
	}
	// And the conversation goes on.
	next := postStream(t, s2.URL, `{"message":"再出 3 道","conversationId":"`+conv+`"}`)
	if n := len(next.data(t, "data-quiz-question")); n != 3 {
		t.Fatalf("follow-up after restart made %d questions", n)
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func TestJWTMode(t *testing.T) {
	secret := "a-test-secret-of-sufficient-length"
	s := newLocal(t, map[string]string{"AUTH_JWT_SECRET": secret, "AUTH_JWT_ISSUER": "insight-auth"})
	sign := func(claims jwt.MapClaims) string {
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(secret))
		if err != nil {
			t.Fatal(err)
		}
		return "Bearer " + tok
	}
	exp := time.Now().Add(time.Hour).Unix()
	cases := []struct {
		name   string
		auth   string
		status int
	}{
		{"no token", "", 401},
		{"dev token refused", "Bearer dev:t-001", 401},
		{"wrong issuer", sign(jwt.MapClaims{"teacherId": "t-001", "iss": "other", "exp": exp}), 401},
		{"expired", sign(jwt.MapClaims{"teacherId": "t-001", "iss": "insight-auth", "exp": time.Now().Add(-time.Minute).Unix()}), 401},
		{"valid", sign(jwt.MapClaims{"teacherId": "t-001", "iss": "insight-auth", "exp": exp}), 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := postStream(t, s.URL, `{"message":"你好"}`, "Authorization", c.auth, "X-Teacher-Id", "t-001")
			if st.Status != c.status {
				t.Fatalf("status %d, want %d: %s", st.Status, c.status, st.Raw)
			}
		})
	}
}
