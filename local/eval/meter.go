package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Usage is a count of tokens.
type Usage struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
	Calls      int `json:"calls"`
}

func (u *Usage) add(o Usage) {
	u.Prompt += o.Prompt
	u.Completion += o.Completion
	u.Calls += o.Calls
}

// Meter is a reverse proxy in front of the model's chat-completions API that
// counts the tokens each answer reports (the product asks for usage in
// streams) and attributes them to the turn whose message is the request's
// last user message. It stands between the product and the outside world,
// so it sees exactly what the provider bills.
type Meter struct {
	upstream string
	client   *http.Client
	// Rewrite, when set, changes each request body before it goes upstream:
	// a test uses it to play a model that misbehaves (a synthetic regression).
	Rewrite func(body []byte) []byte

	mu           sync.Mutex
	turns        map[string][]*Usage
	total        Usage
	unattributed Usage
}

// NewMeter returns a Meter forwarding to upstream (the base URL the product
// would otherwise use, e.g. https://api.openai.com/v1).
func NewMeter(upstream string) *Meter {
	return &Meter{upstream: strings.TrimRight(upstream, "/"), client: &http.Client{}, turns: map[string][]*Usage{}}
}

// Track starts counting for a turn with this message; the returned function
// stops and returns the count.
func (m *Meter) Track(message string) func() Usage {
	u := &Usage{}
	m.mu.Lock()
	m.turns[message] = append(m.turns[message], u)
	m.mu.Unlock()
	return func() Usage {
		m.mu.Lock()
		defer m.mu.Unlock()
		l := m.turns[message]
		for i, x := range l {
			if x == u {
				m.turns[message] = append(l[:i:i], l[i+1:]...)
				break
			}
		}
		if len(m.turns[message]) == 0 {
			delete(m.turns, message)
		}
		return *u
	}
}

// Totals returns every token counted, and those no turn claimed (calls whose
// last user message is not a turn's, such as a tool's own model call).
func (m *Meter) Totals() (total, unattributed Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total, m.unattributed
}

func (m *Meter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		http.Error(w, "read request", http.StatusBadRequest)
		return
	}
	if m.Rewrite != nil {
		body = m.Rewrite(body)
	}
	key := lastUser(body)
	req, err := http.NewRequestWithContext(r.Context(), r.Method, m.upstream+r.URL.Path, bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req.URL.RawQuery = r.URL.RawQuery
	for k, v := range r.Header {
		if k != "Content-Length" && k != "Accept-Encoding" {
			req.Header[k] = v
		}
	}
	resp, err := m.client.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		if k != "Content-Length" {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(resp.StatusCode)
	var u Usage
	fl, _ := w.(http.Flusher)
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			_, _ = w.Write(line)
			if fl != nil && bytes.HasPrefix(line, []byte("data:")) {
				fl.Flush()
			}
			u.add(usageIn(line))
		}
		if err != nil {
			break
		}
	}
	m.count(key, u)
}

func (m *Meter) count(key string, u Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.total.add(u)
	if l := m.turns[key]; len(l) > 0 {
		l[0].add(u)
		return
	}
	for k, l := range m.turns {
		if k != "" && strings.Contains(key, k) && len(l) > 0 {
			l[0].add(u)
			return
		}
	}
	m.unattributed.add(u)
}

// usageIn reads the usage of a stream's data line or of a whole JSON answer.
func usageIn(line []byte) Usage {
	line = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(line), []byte("data:")))
	if !bytes.Contains(line, []byte(`"usage"`)) {
		return Usage{}
	}
	var v struct {
		Usage *struct {
			Prompt     int `json:"prompt_tokens"`
			Completion int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(line, &v) != nil || v.Usage == nil {
		return Usage{}
	}
	return Usage{Prompt: v.Usage.Prompt, Completion: v.Usage.Completion, Calls: 1}
}

// lastUser returns the content of the request's last user message.
func lastUser(body []byte) string {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			var s string
			_ = json.Unmarshal(req.Messages[i].Content, &s)
			return s
		}
	}
	return ""
}

// AppendToUser returns a Rewrite that appends s to the last user message of
// every request: with an offline marker such as " [[offline:skip-tools]]" it
// turns the offline model into one that misbehaves on every call.
func AppendToUser(s string) func([]byte) []byte {
	return func(body []byte) []byte {
		var req map[string]any
		if json.Unmarshal(body, &req) != nil {
			return body
		}
		msgs, _ := req["messages"].([]any)
		for i := len(msgs) - 1; i >= 0; i-- {
			m, _ := msgs[i].(map[string]any)
			if c, ok := m["content"].(string); ok && m["role"] == "user" {
				m["content"] = c + s
				break
			}
		}
		out, err := json.Marshal(req)
		if err != nil {
			return body
		}
		return out
	}
}
