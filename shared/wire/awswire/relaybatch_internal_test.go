package awswire

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

// TestRelayBatch checks that a stream batch is relayed session by session
// and that only the failed sessions' first records come back as batch item
// failures (Lambda then retries from the lowest one, and bisects).
func TestRelayBatch(t *testing.T) {
	rec := func(pk, seq string) events.DynamoDBEventRecord {
		return events.DynamoDBEventRecord{EventName: "INSERT", Change: events.DynamoDBStreamRecord{SequenceNumber: seq,
			Keys: map[string]events.DynamoDBAttributeValue{"PK": events.NewStringAttribute(pk)}}}
	}
	batch := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{
		rec("STREAM#template:a", "1"), rec("STREAM#template:bad", "2"), rec("STREAM#template:a", "3"),
		rec("STREAM#template:b", "4"), rec("STREAM#template:bad", "5"),
	}}
	tests := []struct {
		name     string
		fail     string
		wantSeqs []string
	}{
		{"all relayed", "", []string{}},
		{"one session fails", "STREAM#template:bad", []string{"2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var relayed [][]string
			relay := func(_ context.Context, b events.DynamoDBEvent) error {
				var seqs []string
				for _, r := range b.Records {
					seqs = append(seqs, r.Change.SequenceNumber)
				}
				relayed = append(relayed, seqs)
				if b.Records[0].Change.Keys["PK"].String() == tt.fail {
					return errors.New("post failed")
				}
				return nil
			}
			resp := relayBatch(context.Background(), relay, batch, slog.New(slog.NewTextHandler(io.Discard, nil)))
			var got []string
			for _, f := range resp.BatchItemFailures {
				got = append(got, f.ItemIdentifier)
			}
			if got == nil {
				got = []string{}
			}
			if !slices.Equal(got, tt.wantSeqs) {
				t.Errorf("failures %v, want %v", got, tt.wantSeqs)
			}
			// Each session once, with its records in order, the others
			// relayed whatever one session did.
			want := [][]string{{"1", "3"}, {"2", "5"}, {"4"}}
			if len(relayed) != len(want) {
				t.Fatalf("relayed %v, want %v", relayed, want)
			}
			for i := range want {
				if !slices.Equal(relayed[i], want[i]) {
					t.Errorf("relayed %v, want %v", relayed, want)
				}
			}
		})
	}
}
