// Package sample is the sample turn of events/*.json and what the edge
// stores before it starts that turn's workflow: the state the sample
// events expect to find in the table (create-table -sample, the tests).
package sample

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/eventlog"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/session"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Turn is the turn of the sample events in events/.
var Turn = workflow.Turn{SessionID: "conv-sample", TurnID: "turn-sample", TeacherID: "t-001",
	MessageID: "msg-sample", Message: "出 5 道牛顿第一定律的选择题", Language: "zh"}

// Seed does what the edge does before it starts the sample turn's
// workflow: the session, the running turn, and the start chunk of its
// stream. A session or turn that exists is left as it is.
func Seed(ctx context.Context, tbl *dynamostore.Table) error {
	turn := Turn
	ss := tbl.Sessions()
	err := ss.CreateSession(ctx, session.Session{ID: turn.SessionID, TeacherID: turn.TeacherID, Kind: "conversation",
		ExpiresAt: time.Now().Add(24 * time.Hour).Truncate(time.Second)})
	if err != nil && !errors.Is(err, session.ErrExists) {
		return fmt.Errorf("sample session: %w", err)
	}
	if _, err := ss.GetTurn(ctx, turn.SessionID, turn.TurnID); err == nil {
		return nil
	}
	if _, err := ss.BeginTurn(ctx, session.Turn{SessionID: turn.SessionID, ID: turn.TurnID, Message: turn.Message, MessageID: turn.MessageID}); err != nil {
		return fmt.Errorf("sample turn: %w", err)
	}
	start, err := protocol.MarshalChunk(protocol.Start{MessageID: turn.MessageID,
		MessageMetadata: &protocol.MessageMetadata{ConversationID: turn.SessionID, TurnID: turn.TurnID}})
	if err != nil {
		return err
	}
	if _, err := tbl.Events().Append(ctx, workflow.TurnStream(turn.TurnID), eventlog.Event{Data: start}); err != nil {
		return fmt.Errorf("sample stream: %w", err)
	}
	return nil
}
