package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/local/e2e"
	"github.com/insightedge/insightedge/local/server"
)

func TestReplayCommand(t *testing.T) {
	dir := t.TempDir()
	getenv := func(k string) string { return map[string]string{server.SchedulerEveryEnv: "off"}[k] }
	s, err := server.Start(context.Background(), server.Options{Addr: "127.0.0.1:0", DataDir: dir, Getenv: getenv, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	bp, _ := e2e.PlanViaConversation(t, e2e.Local{Server: s}, "分析 1A 班英语成绩")
	var app struct{ ID string }
	if code := e2e.PostJSON(t, s.URL+"/api/apps", fmt.Sprintf(`{"blueprint":%s,"schedule":{"every":"1m"},"context":{}}`, bp), &app); code != 201 {
		t.Fatalf("save: %d", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"replay", "-data", dir, "-app", app.ID}, &out, &errOut, getenv); err != nil {
		t.Fatalf("replay: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), app.ID) || !strings.Contains(out.String(), "succeeded") {
		t.Errorf("replay printed %q", out.String())
	}
}
