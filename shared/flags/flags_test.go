package flags_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/flags"
)

func TestRolloutEnabled(t *testing.T) {
	teachers := make([]string, 1000)
	for i := range teachers {
		teachers[i] = fmt.Sprintf("teacher-%d", i)
	}
	count := func(r flags.Rollout) int {
		n := 0
		for _, id := range teachers {
			if r.Enabled(id) {
				n++
			}
		}
		return n
	}
	if n := count(flags.Rollout{Percent: 0}); n != 0 {
		t.Errorf("0%%: %d teachers in", n)
	}
	if n := count(flags.Rollout{Percent: 100}); n != len(teachers) {
		t.Errorf("100%%: %d teachers in", n)
	}
	// A share of about the percent, and raising it only adds teachers.
	n20 := count(flags.Rollout{Percent: 20})
	if n20 < 150 || n20 > 250 {
		t.Errorf("20%%: %d of 1000 teachers in", n20)
	}
	for _, id := range teachers {
		if (flags.Rollout{Percent: 20}).Enabled(id) && !(flags.Rollout{Percent: 50}).Enabled(id) {
			t.Fatalf("%s is in at 20%% but not at 50%%", id)
		}
	}
	out := ""
	for _, id := range teachers {
		if !(flags.Rollout{Percent: 20}).Enabled(id) {
			out = id
			break
		}
	}
	if !(flags.Rollout{Percent: 20, Teachers: []string{out}}).Enabled(out) {
		t.Errorf("the allow-list does not admit %s", out)
	}
}

// loader is a Loader the test rewrites, counting its reads.
type loader struct {
	doc   string
	err   error
	reads int
}

func (l *loader) load(context.Context) ([]byte, error) {
	l.reads++
	return []byte(l.doc), l.err
}

func TestCachedReadsOncePerTTL(t *testing.T) {
	now := time.Unix(1000, 0)
	l := &loader{doc: `{"research":false}`}
	c := flags.NewCached(l.load, flags.CachedOptions{TTL: 30 * time.Second, Now: func() time.Time { return now }})
	ctx := context.Background()
	for range 5 {
		if c.Switches(ctx).On(flags.Research) {
			t.Fatal("research is on")
		}
	}
	if l.reads != 1 {
		t.Fatalf("%d reads within the TTL, want 1", l.reads)
	}
	l.doc = `{}`
	now = now.Add(29 * time.Second)
	if c.Switches(ctx).On(flags.Research) {
		t.Fatal("the flip showed before the TTL ran out")
	}
	now = now.Add(2 * time.Second)
	if !c.Switches(ctx).On(flags.Research) {
		t.Fatal("the flip did not show after the TTL")
	}
	if l.reads != 2 {
		t.Fatalf("%d reads, want 2", l.reads)
	}
}

func TestCachedKeepsLastOnFailure(t *testing.T) {
	now := time.Unix(1000, 0)
	l := &loader{doc: `{"tools":false}`}
	c := flags.NewCached(l.load, flags.CachedOptions{TTL: time.Second, Now: func() time.Time { return now }})
	ctx := context.Background()
	c.Switches(ctx)
	for _, fail := range []struct {
		doc string
		err error
	}{{err: errors.New("ssm down")}, {doc: `{"tools":"off"}`}} {
		l.doc, l.err = fail.doc, fail.err
		now = now.Add(2 * time.Second)
		if c.Switches(ctx).On(flags.Tools) {
			t.Fatalf("a failed read (%q, %v) lost the last switches", fail.doc, fail.err)
		}
	}
	// A source that never read successfully is Default.
	c = flags.NewCached((&loader{err: errors.New("down")}).load, flags.CachedOptions{})
	if s := c.Switches(ctx); !s.On(flags.Tools) || s.UnifiedV2.Percent != 100 {
		t.Fatalf("a failed first read gave %+v, want Default", s)
	}
}

func TestFromEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flags.json")
	if err := os.WriteFile(path, []byte(`{"page_builds":false}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	ctx := context.Background()

	c, err := flags.ConfigFromEnv(env(nil))
	if src := c.FileSource(nil); err != nil || !src.Switches(ctx).On(flags.PageBuilds) || src.Switches(ctx).UnifiedV2.Percent != 100 {
		t.Fatalf("no FLAGS_FILE: %v, %+v; want Default", err, src)
	}
	c, err = flags.ConfigFromEnv(env(map[string]string{flags.EnvFile: path}))
	if err != nil || c.FileSource(nil).Switches(ctx).On(flags.PageBuilds) || c.TTL != flags.DefaultTTL {
		t.Fatalf("FLAGS_FILE: err %v, page builds on or TTL %v", err, c.TTL)
	}
	for _, bad := range []map[string]string{
		{flags.EnvFile: filepath.Join(t.TempDir(), "missing.json")},
		{flags.EnvFile: path, flags.EnvTTL: "forever"},
		{flags.EnvFile: path, flags.EnvTTL: "1h"},
	} {
		if _, err := flags.ConfigFromEnv(env(bad)); err == nil {
			t.Errorf("ConfigFromEnv(%v) = nil error", bad)
		}
	}
	if flags.Read(ctx, nil).UnifiedV2.Percent != 100 {
		t.Error("Read(nil) is not Default")
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, doc string
		percent   int
		paused    []flags.Capability
		wantErr   bool
	}{
		{name: "empty is every switch on", doc: "", percent: 100},
		{name: "empty object", doc: "{}", percent: 100},
		{name: "rollout", doc: `{"agent_unified_v2_enabled":{"percent":20,"teachers":["t-1"]}}`, percent: 20},
		{name: "paused", doc: `{"research":false,"tools":true,"file_generation":false}`, percent: 100,
			paused: []flags.Capability{flags.Research, flags.FileGeneration}},
		{name: "every capability", doc: `{"tools":false,"page_builds":false,"research":false,"template_reports":false,"file_generation":false}`,
			percent: 100, paused: flags.Capabilities},
		{name: "misspelt switch", doc: `{"reserch":false}`, wantErr: true},
		{name: "percent out of range", doc: `{"agent_unified_v2_enabled":{"percent":101}}`, wantErr: true},
		{name: "not json", doc: `research=off`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := flags.Parse([]byte(tt.doc))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if s.UnifiedV2.Percent != tt.percent {
				t.Errorf("percent = %d, want %d", s.UnifiedV2.Percent, tt.percent)
			}
			for _, c := range flags.Capabilities {
				want := true
				for _, p := range tt.paused {
					want = want && p != c
				}
				if s.On(c) != want {
					t.Errorf("On(%s) = %v, want %v", c, s.On(c), want)
				}
			}
		})
	}
}
