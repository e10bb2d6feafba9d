// Package vfs is the per-session virtual file system of seed 002: the
// session's templates (template/<name>.md, template/<name>.html), its
// knowledge base (datasets/<file>.json) and its report
// (reports/generated_report.md), kept in the blob store under one prefix per
// session (a folder of the local file store, an S3 prefix in AWS), and the
// agent tools that read it.
//
// The blob store has no listing, so the session's files are also named in a
// manifest object next to them; Put keeps it current. Writers of one session
// are the loader (before planning) and the aggregator (after the solvers), one
// at a time, so the manifest's read-modify-write is not raced; within a
// process a mutex serialises it anyway.
package vfs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/insightedge/insightedge/shared/blob"
)

// Limits of one session's file system.
const (
	MaxFileBytes  = 2 << 20
	MaxTotalBytes = 16 << 20
	MaxFiles      = 200
	MaxPathBytes  = 256
)

// Top-level folders a path may start with.
var roots = []string{"template", "datasets", "reports"}

// Errors.
var (
	ErrInvalidPath = errors.New("vfs: invalid path")
	ErrNotFound    = errors.New("vfs: no such file")
	ErrTooLarge    = errors.New("vfs: too large")
)

// Entry is a file of the session.
type Entry struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
}

// FS is one session's file system.
type FS struct {
	store  blob.Store
	prefix string
	mu     *sync.Mutex
}

// Open returns the file system of session sessionID of teacher teacherID.
func Open(store blob.Store, teacherID, sessionID string) (*FS, error) {
	prefix, err := blob.TeacherKey(teacherID, "template-sessions", blob.ID(sessionID), "vfs")
	if err != nil {
		return nil, fmt.Errorf("vfs: %w", err)
	}
	return &FS{store: store, prefix: prefix, mu: &sync.Mutex{}}, nil
}

// Clean validates p and returns it in canonical form: relative, slash
// separated, under template/, datasets/ or reports/, no "." or ".."
// segments, at most MaxPathBytes.
func Clean(p string) (string, error) {
	bad := func(why string) (string, error) { return "", fmt.Errorf("%w %q: %s", ErrInvalidPath, p, why) }
	if p == "" {
		return bad("empty")
	}
	if len(p) > MaxPathBytes {
		return bad("too long")
	}
	if strings.HasPrefix(p, "/") || strings.Contains(p, `\`) {
		return bad("must be a relative path with / separators")
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == ".." || seg == "." {
			return bad("must not contain . or .. segments")
		}
	}
	c := path.Clean(p)
	if err := blob.ValidateKey(c); err != nil {
		return bad(err.Error())
	}
	root, _, _ := strings.Cut(c, "/")
	if !slices.Contains(roots, root) {
		return bad("must start with template/, datasets/ or reports/")
	}
	return c, nil
}

// Put writes a file.
func (f *FS) Put(ctx context.Context, p string, body []byte) (Entry, error) {
	c, err := Clean(p)
	if err != nil {
		return Entry{}, err
	}
	if len(body) > MaxFileBytes {
		return Entry{}, fmt.Errorf("%w: %s is %d bytes, more than %d", ErrTooLarge, c, len(body), MaxFileBytes)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.manifest(ctx)
	if err != nil {
		return Entry{}, err
	}
	total, at := int64(len(body)), -1
	for i, e := range m {
		if e.Path == c {
			at = i
			continue
		}
		total += e.Size
	}
	if at < 0 && len(m) >= MaxFiles {
		return Entry{}, fmt.Errorf("%w: a session holds at most %d files", ErrTooLarge, MaxFiles)
	}
	if total > MaxTotalBytes {
		return Entry{}, fmt.Errorf("%w: a session holds at most %d bytes", ErrTooLarge, MaxTotalBytes)
	}
	if _, err := f.store.Put(ctx, f.prefix+"/files/"+c, contentType(c), body); err != nil {
		return Entry{}, fmt.Errorf("vfs: put %s: %w", c, err)
	}
	e := Entry{Path: c, Size: int64(len(body))}
	if at >= 0 {
		m[at] = e
	} else {
		m = append(m, e)
	}
	slices.SortFunc(m, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	raw, err := json.Marshal(m)
	if err != nil {
		return Entry{}, err
	}
	if _, err := f.store.Put(ctx, f.prefix+"/manifest.json", "application/json", raw); err != nil {
		return Entry{}, fmt.Errorf("vfs: put manifest: %w", err)
	}
	return e, nil
}

// Read returns a file's content.
func (f *FS) Read(ctx context.Context, p string) ([]byte, error) {
	c, err := Clean(p)
	if err != nil {
		return nil, err
	}
	return f.get(ctx, "/files/", c)
}

// get reads the blob of name under folder (at most MaxFileBytes+1 bytes).
func (f *FS) get(ctx context.Context, folder, name string) ([]byte, error) {
	rc, _, err := f.store.Get(ctx, f.prefix+folder+name)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	if err != nil {
		return nil, fmt.Errorf("vfs: read %s: %w", name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("vfs: read %s: %w", name, err)
	}
	return b, nil
}

// Key is the blob key of a file (for signed download links).
func (f *FS) Key(p string) (string, error) {
	c, err := Clean(p)
	if err != nil {
		return "", err
	}
	return f.prefix + "/files/" + c, nil
}

// List returns the files under dir ("" for all), sorted by path.
func (f *FS) List(ctx context.Context, dir string) ([]Entry, error) {
	dir = strings.Trim(dir, "/")
	if dir != "" {
		c, err := Clean(dir)
		if err != nil {
			return nil, err
		}
		dir = c + "/"
	}
	m, err := f.manifest(ctx)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, e := range m {
		if strings.HasPrefix(e.Path, dir) {
			out = append(out, e)
		}
	}
	return out, nil
}

func (f *FS) manifest(ctx context.Context) ([]Entry, error) {
	rc, _, err := f.store.Get(ctx, f.prefix+"/manifest.json")
	if errors.Is(err, blob.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("vfs: manifest: %w", err)
	}
	defer rc.Close()
	var b bytes.Buffer
	if _, err := io.Copy(&b, io.LimitReader(rc, 1<<20)); err != nil {
		return nil, fmt.Errorf("vfs: manifest: %w", err)
	}
	var m []Entry
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		return nil, fmt.Errorf("vfs: manifest: %w", err)
	}
	return m, nil
}

func contentType(p string) string {
	switch path.Ext(p) {
	case ".md":
		return "text/markdown; charset=utf-8"
	case ".html":
		return "text/html; charset=utf-8"
	case ".json":
		return "application/json"
	}
	return "application/octet-stream"
}

// PutWork stores a step's intermediate file (a solver's section) outside
// the listed files, so concurrent writers never share the manifest.
func (f *FS) PutWork(ctx context.Context, name string, body []byte) error {
	if err := blob.ValidateKey(name); err != nil || strings.Contains(name, "/") {
		return fmt.Errorf("%w %q", ErrInvalidPath, name)
	}
	if len(body) > MaxFileBytes {
		return fmt.Errorf("%w: %s is %d bytes, more than %d", ErrTooLarge, name, len(body), MaxFileBytes)
	}
	if _, err := f.store.Put(ctx, f.prefix+"/work/"+name, "application/json", body); err != nil {
		return fmt.Errorf("vfs: put %s: %w", name, err)
	}
	return nil
}

// ReadWork reads what PutWork stored, or ErrNotFound.
func (f *FS) ReadWork(ctx context.Context, name string) ([]byte, error) {
	return f.get(ctx, "/work/", name)
}
