package flags

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"
)

// Environment variables of the switches.
const (
	// EnvFile names a JSON file of switches (Parse), read again at most
	// once per EnvTTL: an operator edits it without a restart.
	EnvFile = "FLAGS_FILE"
	// EnvParameter names the SSM parameter holding the switches (AWS).
	EnvParameter = "FLAGS_PARAMETER"
	// EnvTTL is how long a read is used before the next (DefaultTTL).
	EnvTTL = "FLAGS_TTL"
)

// DefaultTTL is how long the switches read are used: a switch flipped
// takes effect within it, and a busy function reads at most once per TTL.
const DefaultTTL = 30 * time.Second

// readTimeout bounds one read of the document.
const readTimeout = 3 * time.Second

// Loader reads the switches document.
type Loader func(ctx context.Context) ([]byte, error)

// Cached is a Source over a Loader: the document is read at most once per
// TTL (whoever asks first after it expires reads it; the others wait for
// that one read). A failed read or a document that does not parse keeps
// the switches last read, and is retried after the next TTL.
type Cached struct {
	load   Loader
	ttl    time.Duration
	log    *slog.Logger
	now    func() time.Time
	mu     sync.Mutex
	cur    Switches
	expiry time.Time
}

// CachedOptions configure NewCached.
type CachedOptions struct {
	TTL    time.Duration // DefaultTTL when 0
	Logger *slog.Logger
	Now    func() time.Time
}

// NewCached returns a Cached over load.
func NewCached(load Loader, o CachedOptions) *Cached {
	c := &Cached{load: load, ttl: o.TTL, log: o.Logger, now: o.Now, cur: Default()}
	if c.ttl <= 0 {
		c.ttl = DefaultTTL
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

// Switches returns the switches, reading them when the last read expired.
func (c *Cached) Switches(ctx context.Context) Switches {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if now.Before(c.expiry) {
		return c.cur
	}
	c.expiry = now.Add(c.ttl)
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readTimeout)
	defer cancel()
	raw, err := c.load(rctx)
	if err == nil {
		var s Switches
		if s, err = Parse(raw); err == nil {
			c.cur = s
			return s
		}
	}
	c.log.ErrorContext(ctx, "could not read the switches; keeping the last read", "err", err)
	return c.cur
}

// File is a Loader of the file at path.
func File(path string) Loader {
	return func(context.Context) ([]byte, error) { return os.ReadFile(path) }
}

// TTLFromEnv is FLAGS_TTL (DefaultTTL when unset), from 1 s to 10 min.
func TTLFromEnv(getenv func(string) string) (time.Duration, error) {
	v := strings.TrimSpace(getenv(EnvTTL))
	if v == "" {
		return DefaultTTL, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Second || d > 10*time.Minute {
		return 0, fmt.Errorf("%s=%q: want a duration from 1s to 10m", EnvTTL, v)
	}
	return d, nil
}

// Config is where the switches are read from.
type Config struct {
	File      string        // FLAGS_FILE
	Parameter string        // FLAGS_PARAMETER (AWS: read by awswire)
	TTL       time.Duration // FLAGS_TTL
}

// ConfigFromEnv reads FLAGS_FILE, FLAGS_PARAMETER and FLAGS_TTL; errors
// name the variable at fault.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{File: strings.TrimSpace(getenv(EnvFile)), Parameter: strings.TrimSpace(getenv(EnvParameter))}
	var err error
	if c.TTL, err = TTLFromEnv(getenv); err != nil {
		return c, err
	}
	if c.File != "" {
		if _, err := os.Stat(c.File); err != nil {
			return c, fmt.Errorf("%s: %w", EnvFile, err)
		}
	}
	return c, nil
}

// FileSource is FLAGS_FILE's switches, cached for the TTL, or, without
// FLAGS_FILE, Default: `go run ./local` with none set is the product as
// it always was.
func (c Config) FileSource(log *slog.Logger) Source {
	if c.File == "" {
		return Static(Default())
	}
	return NewCached(File(c.File), CachedOptions{TTL: c.TTL, Logger: log})
}
