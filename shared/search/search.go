// Package search is the web-search seam of the research flow (seed 001 §2):
// one small interface, the Tavily client that implements it, and the text a
// model is given for a response.
//
// The Tavily client speaks the documented POST /search request (query,
// search_depth, max_results, include_answer; the key as a bearer token),
// with a timeout per attempt and a bounded number of retries on 429 and 5xx
// (honouring Retry-After up to a cap). The local run points the same client
// at the local search service (local/searchsvc), so the real path runs in
// every demo and test.
package search

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Request is one search.
type Request struct {
	Query string `json:"query"`
	// SearchDepth is "basic" or "advanced" (Tavily's search_depth).
	SearchDepth   string `json:"search_depth,omitempty"`
	MaxResults    int    `json:"max_results,omitempty"`
	IncludeAnswer bool   `json:"include_answer"`
}

// Result is one hit.
type Result struct {
	Title   string  `json:"title"`
	URL     string  `json:"url"`
	Content string  `json:"content"`
	Score   float64 `json:"score"`
}

// Response is a search's answer (the fields of Tavily's response the
// product reads).
type Response struct {
	Query   string   `json:"query"`
	Answer  string   `json:"answer,omitempty"`
	Results []Result `json:"results"`
}

// Searcher runs searches.
type Searcher interface {
	Search(ctx context.Context, req Request) (Response, error)
}

// Errors to test with errors.Is.
var (
	// ErrUnavailable: the service failed or timed out on every attempt.
	ErrUnavailable = errors.New("search: service unavailable")
	// ErrRejected: the service refused the request (a 4xx other than 429:
	// a bad key, a bad request); retrying cannot help.
	ErrRejected = errors.New("search: request rejected")
)

// ContentLimit is how many characters of a result's content the model sees.
const ContentLimit = 300

// Format is the text a model gets for a response (seed 001 §2): the answer
// as "Summary: …", then each result as "- [title](url)" and its content cut
// to ContentLimit characters on the next line. The score is not shown: the
// model does not need the service's internal ranking.
func Format(r Response) string {
	var parts []string
	if a := strings.TrimSpace(r.Answer); a != "" {
		parts = append(parts, "Summary: "+a+"\n")
	}
	for _, res := range r.Results {
		parts = append(parts, fmt.Sprintf("- [%s](%s)\n  %s", res.Title, res.URL, cut(res.Content, ContentLimit)))
	}
	return strings.Join(parts, "\n")
}

// cut keeps the first n characters (runes, not bytes: a Chinese snippet is
// never split inside a character).
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
