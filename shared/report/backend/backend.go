// Package backend is the client of the template / knowledge-base backend of
// seed 002 (TEMPLATE_API_BASE_URL). The seed names the base URL but not the
// endpoints; they are defined here, in one place, as the contract proposal for
// the backend team (docs/template-report.md), and implemented by the local
// stand-in (local/templatebackend):
//
//	GET {base}/api/templates[?name=N]                      {"templates":[TemplateInfo...]}
//	GET {base}/api/templates/{id}                          Template (format "markdown" or "html")
//	GET {base}/api/knowledge-bases[?name=N]                {"knowledge_bases":[KnowledgeBase...]}
//	GET {base}/api/knowledge-bases/{id}/files              {"files":[FileInfo...]}
//	GET {base}/api/knowledge-bases/{id}/files/{name}       the file, a JSON document
//
// Every answer is JSON; errors are a 4xx/5xx status with any body. Names and
// ids are path-escaped. The client bounds every call (timeout, body size,
// number of files) and never follows a base URL that is not allowed.
package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Paths are the endpoints, relative to the base URL.
var Paths = struct {
	Templates, Template, KnowledgeBases, KBFiles, KBFile string
}{
	Templates:      "/api/templates",
	Template:       "/api/templates/{id}",
	KnowledgeBases: "/api/knowledge-bases",
	KBFiles:        "/api/knowledge-bases/{id}/files",
	KBFile:         "/api/knowledge-bases/{id}/files/{name}",
}

// Template formats.
const (
	FormatMarkdown = "markdown"
	FormatHTML     = "html"
)

// TemplateInfo lists a template.
type TemplateInfo struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Format   string `json:"format"`
	Language string `json:"language,omitempty"`
}

// Template is a template with its content.
type Template struct {
	TemplateInfo
	Content string `json:"content"`
}

// KnowledgeBase lists a knowledge base.
type KnowledgeBase struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// FileInfo lists a knowledge-base file.
type FileInfo struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// Limits.
const (
	MaxBodyBytes = 2 << 20
	MaxFiles     = 50
)

// Errors.
var (
	ErrNotAllowed = errors.New("backend: base URL not allowed")
	ErrNotFound   = errors.New("backend: not found")
	ErrBackend    = errors.New("backend: request failed")
)

// Client calls one backend.
type Client struct {
	base string
	http *http.Client
}

// Options configure New.
type Options struct {
	// Default is the configured base URL (TEMPLATE_API_BASE_URL ...).
	Default string
	// Allowed are further base URLs a client may name in api_base_url.
	Allowed []string
	HTTP    *http.Client
	Timeout time.Duration
}

// Resolver picks the backend of a request.
type Resolver struct{ o Options }

// NewResolver returns a resolver; the default URL is always allowed.
func NewResolver(o Options) *Resolver {
	if o.Timeout <= 0 {
		o.Timeout = 15 * time.Second
	}
	if o.HTTP == nil {
		o.HTTP = &http.Client{Timeout: o.Timeout}
	}
	return &Resolver{o: o}
}

// For returns the client of requested (the client's api_base_url), or of
// the default when requested is empty. A URL outside the allow-list is
// refused: the server never calls a place the client chose.
func (r *Resolver) For(requested string) (*Client, error) {
	base := norm(requested)
	if base == "" {
		base = norm(r.o.Default)
		if base == "" {
			return nil, fmt.Errorf("%w: no template backend is configured (TEMPLATE_API_BASE_URL)", ErrNotAllowed)
		}
	} else if base != norm(r.o.Default) && !slices.ContainsFunc(r.o.Allowed, func(a string) bool { return norm(a) == base }) {
		return nil, fmt.Errorf("%w: %s is not in TEMPLATE_API_ALLOWED_URLS", ErrNotAllowed, requested)
	}
	return &Client{base: base, http: r.o.HTTP}, nil
}

func norm(u string) string { return strings.TrimRight(strings.TrimSpace(u), "/") }

// Templates lists templates, those named name when name is not empty.
func (c *Client) Templates(ctx context.Context, name string) ([]TemplateInfo, error) {
	var out struct {
		Templates []TemplateInfo `json:"templates"`
	}
	err := c.get(ctx, withName(Paths.Templates, name), &out)
	return out.Templates, err
}

// Template gets one template.
func (c *Client) Template(ctx context.Context, id string) (Template, error) {
	var t Template
	err := c.get(ctx, fill(Paths.Template, id, ""), &t)
	if err == nil && t.Format != FormatMarkdown && t.Format != FormatHTML {
		err = fmt.Errorf("%w: template %s has format %q, want markdown or html", ErrBackend, id, t.Format)
	}
	return t, err
}

// KnowledgeBases lists knowledge bases, those named name when not empty.
func (c *Client) KnowledgeBases(ctx context.Context, name string) ([]KnowledgeBase, error) {
	var out struct {
		KnowledgeBases []KnowledgeBase `json:"knowledge_bases"`
	}
	err := c.get(ctx, withName(Paths.KnowledgeBases, name), &out)
	return out.KnowledgeBases, err
}

// Files lists a knowledge base's files.
func (c *Client) Files(ctx context.Context, kbID string) ([]FileInfo, error) {
	var out struct {
		Files []FileInfo `json:"files"`
	}
	err := c.get(ctx, fill(Paths.KBFiles, kbID, ""), &out)
	if err == nil && len(out.Files) > MaxFiles {
		err = fmt.Errorf("%w: knowledge base %s has %d files, more than %d", ErrBackend, kbID, len(out.Files), MaxFiles)
	}
	return out.Files, err
}

// File gets one knowledge-base file; it must be JSON.
func (c *Client) File(ctx context.Context, kbID, name string) (json.RawMessage, error) {
	return c.FileAt(ctx, kbID, name, 0)
}

// FileAt is File with the school's pass mark (percent of full marks; 0:
// the backend's default) as ?pass_mark=: a file with statistics gives its
// pass rates at that mark (issue 23).
func (c *Client) FileAt(ctx context.Context, kbID, name string, passMark float64) (json.RawMessage, error) {
	p := fill(Paths.KBFile, kbID, name)
	if passMark > 0 {
		p += "?pass_mark=" + strconv.FormatFloat(passMark, 'f', -1, 64)
	}
	var raw json.RawMessage
	err := c.get(ctx, p, &raw)
	return raw, err
}

func withName(p, name string) string {
	if name == "" {
		return p
	}
	return p + "?name=" + url.QueryEscape(name)
}

func fill(p, id, name string) string {
	p = strings.Replace(p, "{id}", url.PathEscape(id), 1)
	return strings.Replace(p, "{name}", url.PathEscape(name), 1)
}

func (c *Client) get(ctx context.Context, p string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+p, nil)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBackend, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%w: GET %s: %v", ErrBackend, p, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+1))
	if err != nil {
		return fmt.Errorf("%w: GET %s: %v", ErrBackend, p, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%w: GET %s", ErrNotFound, p)
	case resp.StatusCode/100 != 2:
		return fmt.Errorf("%w: GET %s: status %d", ErrBackend, p, resp.StatusCode)
	case len(body) > MaxBodyBytes:
		return fmt.Errorf("%w: GET %s: answer larger than %d bytes", ErrBackend, p, MaxBodyBytes)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("%w: GET %s: not JSON: %v", ErrBackend, p, err)
	}
	return nil
}
