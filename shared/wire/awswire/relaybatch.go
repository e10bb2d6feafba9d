package awswire

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
)

// relayBatch relays a DynamoDB stream batch one session at a time and
// reports, for each session whose relay failed, its first record as a
// batch item failure (template.yaml: FunctionResponseTypes
// [ReportBatchItemFailures]). Lambda then checkpoints before the lowest
// failed record and retries from there, bisecting and finally sending the
// failing records to the on-failure destination: one session whose posts
// fail cannot make the shard's other sessions wait forever or lose their
// events (a session relayed again posts from its own cursor, so a retried
// record posts nothing twice).
func relayBatch(ctx context.Context, relay func(context.Context, events.DynamoDBEvent) error, batch events.DynamoDBEvent, logger *slog.Logger) events.DynamoDBEventResponse {
	var order []string
	bySession := map[string][]events.DynamoDBEventRecord{}
	for _, rec := range batch.Records {
		key := ""
		if pk, ok := rec.Change.Keys["PK"]; ok && pk.DataType() == events.DataTypeString {
			key = pk.String()
		}
		if _, ok := bySession[key]; !ok {
			order = append(order, key)
		}
		bySession[key] = append(bySession[key], rec)
	}
	resp := events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{}}
	for _, key := range order {
		recs := bySession[key]
		if err := relay(ctx, events.DynamoDBEvent{Records: recs}); err != nil {
			logger.ErrorContext(ctx, "relay of a session's events failed; its records are retried", "stream", key, "err", err)
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: recs[0].Change.SequenceNumber})
		}
	}
	return resp
}
