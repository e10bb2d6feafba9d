// Package scale is the scale model of issue 25 (docs/scale.md): its test
// drives a few hundred turns over 200 conversations through the product's
// own code on the local DynamoDB (dynalite), counts the reads and writes
// by partition key (dynamotest.Meter), holds them to a budget per turn and
// to a spread (no key takes more than 2 % of the writes), and prints the
// per-turn counts docs/scale.md and docs/cost.md are derived from.
//
// The graph is the AWS one in one process: the edge (the stream
// function's routes, its relay polling the event log) and the workflow's
// steps (the conversation workflow run from its ASL definition) each on
// their own store and DynamoDB client, as the stream function and the
// task functions are; every worker has an edge of its own, so its relay
// polls for its one stream as a Lambda instance does. The model is the
// offline stand-in (local/offlinemodel) over HTTP.
package scale
