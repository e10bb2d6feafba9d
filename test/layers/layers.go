// Package layers states the layers of this module's packages, from the
// mains down to the leaves, as data: docs/architecture.md's "Layers" table
// quotes it, and the tests of this package hold the imports, the docs and
// the one-place seams (the route middleware, the event appender, the socket
// dispatcher) to it.
package layers

// Module is this module's path.
const Module = "github.com/insightedge/insightedge"

// A Layer is a name and the packages in it, relative to Module. An entry
// holds its package and every package below it, unless a longer entry
// (in any layer) names that one: "shared/report" is a flow, and
// "shared/report/transport" is edge.
type Layer struct {
	Name     string
	Packages []string
}

// Layers are the layers from the top down. Imports point down only: a
// package may import its own layer and the layers below it, never one
// above.
var Layers = []Layer{
	// issue 27: sdk/internal/gen, the generator of the sdk's JSON Schemas.
	{"mains", []string{"functions", "local", "infra/cmd", "infra/images", "infra/sample", "test", "sdk"}},
	// The AWS clients that awswire assembles live beside it.
	{"wiring", []string{"shared/wire", "shared/wire/awswire", "shared/appschedule", "shared/sfnstart"}},
	{"flows", []string{"shared/agent", "shared/blueprint/plan", "shared/blueprint/build", "shared/blueprint/compute",
		"shared/blueprint/launch", "shared/apps", "shared/research", "shared/recovery", "shared/report/pipeline",
		"shared/report/control"}},
	{"edge", []string{"shared/edge", "shared/report/transport"}},
	{"tools", []string{"shared/tools", "shared/report/vfs"}},
	// shared/report is the report wing's vocabulary and its sessions' typed
	// store, as shared/session is the conversation's.
	{"stores", []string{"shared/eventlog", "shared/session", "shared/records", "shared/boltstore", "shared/dynamostore",
		"shared/blob", "shared/claimcheck", "shared/report",
		// issue 26: fair use, the limits' typed rules over the records and counters.
		"shared/limits"}},
	{"leaves", []string{"shared/protocol", "shared/llm", "shared/search", "shared/javaapi", "shared/office", "shared/auth",
		"shared/obs", "shared/workflow", "shared/apperr", "shared/i18n", "shared/prompts", "shared/blueprint",
		"shared/report/backend", "shared/report/mdtree", "shared/report/export", "infra", "shared/clock", "shared/scores",
		// Test helpers any test may use: golden files, expected errors, a
		// log buffer read while written.
		"shared/golden", "shared/errtest", "shared/syncbuf",
		// issue 28: the operator's rollout and capability switches.
		"shared/flags"}},
}

// Of returns the index in Layers (0 is the top) and the entry of the
// module package pkg (a path relative to Module), or -1 when no entry
// holds it.
func Of(pkg string) (layer int, entry string) {
	layer = -1
	for i, l := range Layers {
		for _, p := range l.Packages {
			if (pkg == p || len(pkg) > len(p) && pkg[:len(p)+1] == p+"/") && len(p) > len(entry) {
				layer, entry = i, p
			}
		}
	}
	return layer, entry
}
