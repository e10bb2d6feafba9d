// Package infra embeds the workflow definitions, so that the local
// interpreter runs the very files template.yaml deploys.
package infra

import _ "embed"

// ConversationASL is statemachines/conversation.asl.json.
//
//go:embed statemachines/conversation.asl.json
var ConversationASL []byte

// BuildASL is statemachines/build.asl.json.
//
//go:embed statemachines/build.asl.json
var BuildASL []byte

// ResearchASL is statemachines/research.asl.json.
//
//go:embed statemachines/research.asl.json
var ResearchASL []byte

// TemplateASL is statemachines/template.asl.json (seed 002, Standard).
//
//go:embed statemachines/template.asl.json
var TemplateASL []byte
