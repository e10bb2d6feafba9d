package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/local/e2e"
	"github.com/insightedge/insightedge/local/server"
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
	if strings.Contains(got, "{\"") {
		t.Errorf("a raw JSON line in the terminal output:\n%s", got)
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
	s := e2e.NewLocal(t, nil)
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
			if code := e2e.GetJSON(t, s.URL+"/api/conversation/"+m[1]+"/messages", &msgs); code != 200 || len(msgs.Messages) != 2 {
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
	// A command's help lists its own flags, not another's.
	var chatHelp, serveHelp bytes.Buffer
	_ = run(context.Background(), []string{"chat", "-h"}, &chatHelp, io.Discard, func(string) string { return "" })
	_ = run(context.Background(), []string{"serve", "-h"}, &serveHelp, io.Discard, func(string) string { return "" })
	if strings.Contains(chatHelp.String(), "\n  -cpuprofile") || strings.Contains(chatHelp.String(), "\n  -app") || !strings.Contains(chatHelp.String(), "\n  -conversation") {
		t.Errorf("chat -h lists flags chat ignores, or lacks its own:\n%s", chatHelp.String())
	}
	if strings.Contains(serveHelp.String(), "\n  -conversation") || !strings.Contains(serveHelp.String(), "\n  -cpuprofile") {
		t.Errorf("serve -h:\n%s", serveHelp.String())
	}
	// A flag the command would ignore is an error that names it.
	if err := run(context.Background(), []string{"replay", "-conversation", "x"}, io.Discard, io.Discard, func(string) string { return "" }); err == nil ||
		!strings.Contains(err.Error(), "-conversation does nothing for replay") {
		t.Errorf("an ignored flag: %v", err)
	}
	// A wrong flag is an error, with the usage on stderr.
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"-nope"}, &out, &errOut, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "-nope") || !strings.Contains(errOut.String(), "Usage:") || out.Len() != 0 {
		t.Errorf("a wrong flag: err %v, stdout %q, stderr %.80q", err, out.String(), errOut.String())
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// A data directory another process holds is said as such, with the way out.
func TestServeOnADataDirInUse(t *testing.T) {
	dir := t.TempDir()
	held, err := server.Start(context.Background(), server.Options{Addr: "127.0.0.1:0", DataDir: dir,
		Getenv: func(string) string { return "" }, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close(context.Background())
	env := map[string]string{"DATA_DIR": dir, "ADDR": freeAddr(t)}
	var out, errOut bytes.Buffer
	err = run(context.Background(), []string{"serve"}, &out, &errOut, func(k string) string { return env[k] })
	if err == nil || !strings.Contains(err.Error(), "is in use by another process") || !strings.Contains(err.Error(), "-data DIR") {
		t.Errorf("err = %v, want the directory in use and -data named", err)
	}
}
