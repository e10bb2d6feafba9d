package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/insightedge/insightedge/local/server"
	"github.com/insightedge/insightedge/shared/apps"
)

// replayOptions configure the replay command.
type replayOptions struct {
	DataDir string
	// App, if set, runs that app now; otherwise every due app runs.
	App    string
	Out    io.Writer
	Logger *slog.Logger
	Getenv func(string) string
}

// replay is `go run ./local replay [-app ID]`: the local stand-in for the
// replay function. It starts the product in process (on a loopback port,
// over the same store as `serve`, which must not be running on it), runs the
// due apps — or the one named — once, prints each run, and stops.
func replay(ctx context.Context, o replayOptions) error {
	getenv := func(k string) string {
		if k == server.SchedulerEveryEnv {
			return "off" // this command runs the due apps itself, once
		}
		return o.Getenv(k)
	}
	s, err := server.Start(ctx, server.Options{Addr: "127.0.0.1:0", DataDir: o.DataDir, Getenv: getenv, Logger: o.Logger})
	if err != nil {
		return fmt.Errorf("%w (is `go run ./local` running on the same -data directory? stop it first)", err)
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Close(sctx)
	}()
	b := s.Build
	if o.App != "" {
		out, err := b.Replayer.Replay(ctx, apps.ReplayInput{AppID: o.App, Trigger: apps.TriggerManual})
		if err != nil {
			return err
		}
		return printRun(ctx, o.Out, b.Apps, o.App, out.RunID)
	}
	now := time.Now()
	due, err := b.Apps.DueApps(ctx, now, 1000)
	if err != nil {
		return err
	}
	n, err := b.Scheduler.RunDue(ctx, now)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "%d app(s) due, %d run\n", len(due), n)
	for _, a := range due {
		snaps, err := b.Apps.ListSnapshots(ctx, a.ID)
		if err != nil || len(snaps) == 0 {
			continue
		}
		if err := printRun(ctx, o.Out, b.Apps, a.ID, snaps[len(snaps)-1].RunID); err != nil {
			return err
		}
	}
	return nil
}

func printRun(ctx context.Context, w io.Writer, store apps.Store, appID, runID string) error {
	snap, err := store.GetSnapshot(ctx, appID, runID)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s  %s  %s  build %s  %s", appID, runID, snap.Status, snap.BuildID, snap.EndedAt.Sub(snap.StartedAt).Round(time.Millisecond))
	if snap.Error != "" {
		fmt.Fprintf(w, "  %s: %s", snap.ErrorCode, snap.Error)
	}
	fmt.Fprintln(w)
	return nil
}
