// Package dynamotest runs a local DynamoDB-compatible server for tests:
// dynalite, the npm package pinned in test/js (install it with `npm ci
// --prefix test/js`). It listens on 127.0.0.1 only and keeps its data in
// memory; it has no transactions and no TTL deletion (TOOLING.md).
//
// A test that needs it is skipped when node or dynalite is missing, and
// fails instead when CI=true, so that CI cannot pass by skipping.
package dynamotest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/syncbuf"
)

// Region and credentials the local server accepts (it checks neither).
const (
	Region    = "us-east-1"
	AccessKey = "local"
	SecretKey = "local"
)

// startBound bounds the wait for the server to listen.
const startBound = 20 * time.Second

// ErrMissing is returned by Launch when node or dynalite is not installed.
var ErrMissing = errors.New("dynamotest: node or dynalite is not installed (npm ci --prefix test/js)")

// Server is a running dynalite.
type Server struct {
	// Endpoint is its URL, e.g. http://127.0.0.1:41234.
	Endpoint string
	// Client is a DynamoDB client for it.
	Client *dynamodb.Client
	tables atomic.Int64
	stop   func()
}

// Require skips t, or fails it when CI=true, with why.
func Require(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true: a missing test tool is a failure)", why)
	}
	t.Skip(why + " (install the test tools: bash .ci/run --install-only, as root)")
}

// RepoRoot returns the directory of the repository's go.mod, found from the
// working directory upwards.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Start starts dynalite for the test and stops it at cleanup. Without node
// or dynalite the test is skipped, or fails when CI=true.
func Start(t testing.TB) *Server {
	t.Helper()
	srv, err := Launch()
	if errors.Is(err, ErrMissing) {
		Require(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// Launch starts dynalite; Close stops it.
func Launch() (*Server, error) {
	if _, err := exec.LookPath("node"); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMissing, err)
	}
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	// The launcher runs the pinned dynalite and keeps it alive when a
	// client aborts a request (test/js/dynalite.cjs says why).
	launcher := filepath.Join(root, "test", "js", "dynalite.cjs")
	if _, err := os.Stat(filepath.Join(root, "test", "js", "node_modules", "dynalite", "cli.js")); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMissing, err)
	}
	var lastErr error
	// The free port is found by binding it and letting it go, so another
	// process can take it before dynalite does: try a few ports.
	for range 3 {
		endpoint, stop, err := start(launcher)
		if err == nil {
			return &Server{Endpoint: endpoint, Client: NewClient(endpoint), stop: stop}, nil
		}
		lastErr = err
	}
	return nil, fmt.Errorf("dynamotest: dynalite did not start: %w", lastErr)
}

// Close stops the server.
func (s *Server) Close() { s.stop() }

func start(launcher string) (string, func(), error) {
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command("node", launcher, "--host", "127.0.0.1", "--port", fmt.Sprint(port), "--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0")
	listening := &watcher{want: "listening at", found: make(chan struct{})}
	cmd.Stdout = listening
	stderr := new(syncbuf.Buffer)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	exited := make(chan error, 1)
	var stopping atomic.Bool
	go func() {
		err := cmd.Wait()
		if !stopping.Load() {
			// A server that dies under a test fails every later request
			// with "connection refused"; say why once, where CI shows it.
			fmt.Fprintf(os.Stderr, "dynamotest: dynalite on port %d exited unexpectedly (%v): %s\n", port, err, stderr.String())
		}
		exited <- err
	}()
	stop := sync.OnceFunc(func() {
		stopping.Store(true)
		_ = cmd.Process.Kill()
		<-exited
	})
	select {
	case <-listening.found:
	case err := <-exited:
		return "", nil, fmt.Errorf("dynalite exited before listening (%v): %s", err, stderr.String())
	case <-time.After(startBound):
		stop()
		return "", nil, fmt.Errorf("dynalite did not listen within %s", startBound)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", port), stop, nil
}

// watcher is an io.Writer that closes found once want has been written.
type watcher struct {
	mu    sync.Mutex
	buf   []byte
	want  string
	found chan struct{}
	done  bool
}

func (w *watcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.buf = append(w.buf, p...)
		if strings.Contains(string(w.buf), w.want) {
			w.done, w.buf = true, nil
			close(w.found)
		}
	}
	return len(p), nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// NewClient returns a DynamoDB client for the server at endpoint, with
// static credentials and no retries of throttling beyond the SDK's defaults.
func NewClient(endpoint string, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       Region,
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
	}, optFns...)
}

// NewTable creates a fresh table with the store's key schema
// (dynamostore.CreateTableInput) and returns its name.
func (s *Server) NewTable(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("insightedge-test-%d", s.tables.Add(1))
	s.CreateTable(t, name)
	return name
}

// CreateTable creates the table name with the store's key schema and waits
// until it is active (dynalite answers ResourceNotFoundException to writes
// that come before that).
func (s *Server) CreateTable(t testing.TB, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startBound)
	defer cancel()
	if _, err := s.Client.CreateTable(ctx, dynamostore.CreateTableInput(name)); err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
	waiter := dynamodb.NewTableExistsWaiter(s.Client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 100*time.Millisecond
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, startBound); err != nil {
		t.Fatalf("table %s not active: %v", name, err)
	}
}
