package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/session"
)

// The claim checks of one turn, kept in session.Records under these keys so
// that the state machine's payload carries only ids.
func historyKey(turnID string, attempt int) string {
	return fmt.Sprintf("turn/%s/history/%d", turnID, attempt)
}

func toolKeyPrefix(turnID string, attempt int) string {
	return fmt.Sprintf("turn/%s/tool/%d/", turnID, attempt)
}

func toolKey(turnID string, attempt int, callID string) string {
	return toolKeyPrefix(turnID, attempt) + callID
}

func finalKey(turnID string, attempt int) string {
	return fmt.Sprintf("turn/%s/final/%d", turnID, attempt)
}

// toolRecord is the stored outcome of one tool call.
type toolRecord struct {
	Name    string   `json:"name"`
	Status  string   `json:"status"`
	Output  string   `json:"output"`
	Emitted []string `json:"emitted,omitempty"`
	Memory  string   `json:"memory,omitempty"`
}

// finalRecord is the stored final_result (or chat reply) of one attempt.
type finalRecord struct {
	Result FinalResult `json:"result"`
	// TextID is the id of the text part the message was (or will be) sent as.
	TextID      string `json:"textId"`
	TextEmitted bool   `json:"textEmitted"`
	Malformed   string `json:"malformed,omitempty"`
}

func putJSON(ctx context.Context, r session.Records, sessionID, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("agent: encode %s: %w", key, err)
	}
	if err := r.PutRecord(ctx, sessionID, key, b); err != nil {
		return fmt.Errorf("agent: store %s: %w", key, err)
	}
	return nil
}

// getJSON reads a record; found is false for a missing key.
func getJSON(ctx context.Context, r session.Records, sessionID, key string, v any) (found bool, err error) {
	b, err := r.GetRecord(ctx, sessionID, key)
	if errors.Is(err, session.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("agent: load %s: %w", key, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("agent: decode %s: %w", key, err)
	}
	return true, nil
}

func (a *Agent) loadHistory(ctx context.Context, sessionID, turnID string, attempt int) ([]llm.Message, bool, error) {
	var h []llm.Message
	ok, err := getJSON(ctx, a.Store, sessionID, historyKey(turnID, attempt), &h)
	return h, ok, err
}

func (a *Agent) saveHistory(ctx context.Context, sessionID, turnID string, attempt int, h []llm.Message) error {
	return putJSON(ctx, a.Store, sessionID, historyKey(turnID, attempt), h)
}

// attemptTools returns the tool records of one attempt: what was called and
// which events it emitted, the inputs of validate_terminal_state.
func (a *Agent) attemptTools(ctx context.Context, sessionID, turnID string, attempt int) (map[string]toolRecord, error) {
	recs, err := a.Store.ListRecords(ctx, sessionID, toolKeyPrefix(turnID, attempt))
	if err != nil {
		return nil, fmt.Errorf("agent: list tool records: %w", err)
	}
	out := make(map[string]toolRecord, len(recs))
	prefix := toolKeyPrefix(turnID, attempt)
	for _, r := range recs {
		var tr toolRecord
		if err := json.Unmarshal(r.Value, &tr); err != nil {
			return nil, fmt.Errorf("agent: decode %s: %w", r.Key, err)
		}
		out[r.Key[len(prefix):]] = tr
	}
	return out, nil
}

// evidence is what an attempt's tool calls emitted and whether one of them
// was an artifact tool.
func (a *Agent) evidence(recs map[string]toolRecord) Evidence {
	ev := Evidence{Emitted: map[string]bool{}}
	for _, r := range recs {
		ev.ArtifactToolCalled = ev.ArtifactToolCalled || a.Tools.IsArtifact(r.Name)
		for _, e := range r.Emitted {
			ev.Emitted[e] = true
		}
	}
	return ev
}
