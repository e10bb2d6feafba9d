package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Target is the product under test: the base URL of its API (the local
// server, or a deployed stack's stream Function URL).
type Target struct {
	BaseURL string
	// Headers are sent with every request (e.g. Authorization for a deployed stack).
	Headers map[string]string
	Client  *http.Client
}

// Options bound and observe a run.
type Options struct {
	// Parallel is how many cases run at once (default 4).
	Parallel int
	// TurnTimeout bounds one turn (default 5m).
	TurnTimeout time.Duration
	// Progress is told about each finished case (may be nil).
	Progress func(done, total int, r CaseResult)
	// Meter, when set, attributes the model's tokens to turns.
	Meter *Meter
}

// TurnResult is one judged turn.
type TurnResult struct {
	Message       string      `json:"message"`
	Status        int         `json:"status"`
	Path          string      `json:"path"`
	Chunks        []string    `json:"chunks"`
	Text          string      `json:"text"`
	Parts         []string    `json:"parts,omitempty"`
	ToolCalls     int         `json:"toolCalls"`
	ToolErrors    int         `json:"toolErrors"`
	ValidateRetry bool        `json:"validateRetry"`
	Clarify       int         `json:"clarify"`
	Claimed       bool        `json:"claimed"`
	FalsePromise  bool        `json:"falsePromise"`
	QuizQuestions int         `json:"quizQuestions,omitempty"`
	Files         []FileCheck `json:"files,omitempty"`
	TotalMS       float64     `json:"totalMs"`
	FirstTextMS   float64     `json:"firstTextMs"` // -1: no text
	Tokens        Usage       `json:"tokens"`
	Protocol      []string    `json:"protocol,omitempty"`
	Failures      []string    `json:"failures,omitempty"`
	raw           []byte
}

// CaseResult is one judged case.
type CaseResult struct {
	ID       string       `json:"id"`
	Scene    string       `json:"scene"`
	Language string       `json:"language"`
	Mode     string       `json:"mode,omitempty"`
	Tags     []string     `json:"tags,omitempty"`
	Pass     bool         `json:"pass"`
	Turns    []TurnResult `json:"turns"`
}

// Run runs every case against t, opts.Parallel at a time, and returns the
// results in the order of cases.
func Run(ctx context.Context, t Target, cases []Case, opts Options) []CaseResult {
	if opts.Parallel <= 0 {
		opts.Parallel = 4
	}
	if opts.TurnTimeout <= 0 {
		opts.TurnTimeout = 5 * time.Minute
	}
	if t.Client == nil {
		t.Client = &http.Client{}
	}
	out := make([]CaseResult, len(cases))
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range min(opts.Parallel, max(1, len(cases))) {
		wg.Go(func() {
			for i := range jobs {
				out[i] = runCase(ctx, t, cases[i], opts)
				mu.Lock()
				done++
				if opts.Progress != nil {
					opts.Progress(done, len(cases), out[i])
				}
				mu.Unlock()
			}
		})
	}
	for i := range cases {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out
}

func runCase(ctx context.Context, t Target, c Case, opts Options) CaseResult {
	r := CaseResult{ID: c.ID, Scene: c.Scene, Language: c.Language, Mode: c.Mode, Tags: c.Tags, Pass: true}
	conv := ""
	for _, turn := range c.Turns {
		tr, id := runTurn(ctx, t, c, turn, conv, opts)
		r.Turns = append(r.Turns, tr)
		if len(tr.Failures) > 0 {
			r.Pass = false
		}
		if id == "" || tr.Status != http.StatusOK {
			break // a follow-up without its conversation would test something else
		}
		conv = id
	}
	if len(r.Turns) < len(c.Turns) {
		r.Pass = false
	}
	return r
}

func runTurn(ctx context.Context, t Target, c Case, turn Turn, conv string, opts Options) (TurnResult, string) {
	tr := TurnResult{Message: turn.Message, FirstTextMS: -1}
	ctx, cancel := context.WithTimeout(ctx, opts.TurnTimeout)
	defer cancel()
	body := map[string]any{"message": turn.Message, "language": c.Language}
	if conv != "" {
		body["conversationId"] = conv
	}
	if c.Mode != "" {
		body["mode"] = c.Mode
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(t.BaseURL, "/")+"/api/conversation/stream", bytes.NewReader(b))
	if err != nil {
		tr.Failures = append(tr.Failures, err.Error())
		return tr, ""
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range t.Headers {
		req.Header.Set(k, v)
	}
	var tokens func() Usage
	if opts.Meter != nil {
		tokens = opts.Meter.Track(turn.Message)
	}
	start := time.Now()
	resp, err := t.Client.Do(req)
	if err != nil {
		if tokens != nil {
			tokens()
		}
		tr.Failures = append(tr.Failures, fmt.Sprintf("request: %v", err))
		return tr, ""
	}
	defer resp.Body.Close()
	tr.Status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		e, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
		if tokens != nil {
			tokens()
		}
		tr.Failures = append(tr.Failures, fmt.Sprintf("status %d: %s", resp.StatusCode, clip(strings.TrimSpace(string(e)), 200)))
		return tr, ""
	}
	rec, err := readStream(resp.Body, start)
	if tokens != nil {
		tr.Tokens = tokens()
	}
	if err != nil {
		tr.Failures = append(tr.Failures, err.Error())
	}
	tr.raw = rec.Raw
	tr.TotalMS = ms(rec.Total)
	if rec.FirstText >= 0 {
		tr.FirstTextMS = ms(rec.FirstText)
	}
	o := observe(rec, c.Language)
	tr.Path, tr.Chunks, tr.Text = o.Path, o.Types, o.Text
	for p := range o.Parts {
		tr.Parts = append(tr.Parts, p)
	}
	slices.Sort(tr.Parts)
	tr.ToolCalls, tr.ToolErrors, tr.ValidateRetry, tr.Clarify = o.ToolCalls, o.ToolErrors, o.ValidateRetry, o.Clarify
	tr.Claimed, tr.FalsePromise, tr.QuizQuestions, tr.Protocol = o.Claimed, o.FalsePromise, o.QuizQuestions, o.Protocol
	tr.Failures = append(tr.Failures, judge(o, turn.Expect)...)
	tr.Failures = append(tr.Failures, checkFiles(ctx, t, o, turn.Expect, &tr)...)
	return tr, resp.Header.Get("X-Conversation-Id")
}

// checkFiles opens every announced file and matches them with the expected ones.
func checkFiles(ctx context.Context, t Target, o observed, e Expect, tr *TurnResult) []string {
	var fails []string
	mention := map[string][]string{}
	for _, f := range e.Files {
		mention[f.Type] = append(mention[f.Type], f.Mention...)
	}
	have := map[string]bool{}
	for _, a := range o.Files {
		fc := checkFile(ctx, t.Client, t.BaseURL, a, t.Headers, mention[a.Type])
		tr.Files = append(tr.Files, fc)
		have[a.Type] = true
		switch {
		case !fc.Opens:
			fails = append(fails, fmt.Sprintf("the %s file does not open: %s", a.Type, fc.Note))
		case !fc.Mentions:
			fails = append(fails, fmt.Sprintf("the %s file: %s", a.Type, fc.Note))
		}
	}
	for _, f := range e.Files {
		if !have[f.Type] {
			fails = append(fails, fmt.Sprintf("no %s file announced", f.Type))
		}
	}
	return fails
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
