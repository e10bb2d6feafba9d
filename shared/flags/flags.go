// Package flags holds the operator's switches (issue 28): the rollout of
// the unified agent (`agent_unified_v2_enabled`, seed 000 §7.8) and one
// switch per capability an operator turns off without a deploy when a
// model regresses. The switches are one JSON document; a Source reads
// them (a file locally, an SSM parameter in AWS, both through Cached).
// A missing key is on: an empty document, or none, is today's product.
package flags

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
)

// Capability names a capability with a switch of its own.
type Capability string

// The capabilities an operator can pause.
const (
	// Tools are the agent's tools: off, a turn is answered on the chat path.
	Tools Capability = "tools"
	// PageBuilds are interactive pages (the build path and /api/page/*).
	PageBuilds Capability = "page_builds"
	// Research is the research timeline (POST /api/research).
	Research Capability = "research"
	// TemplateReports are the template reports (sessions and the socket).
	TemplateReports Capability = "template_reports"
	// FileGeneration are the tools that make files (data-file-ready).
	FileGeneration Capability = "file_generation"
)

// Capabilities lists every capability, in the document's order.
var Capabilities = []Capability{Tools, PageBuilds, Research, TemplateReports, FileGeneration}

// Switches are the values of the switches at one moment.
type Switches struct {
	// UnifiedV2 is the rollout of the unified agent.
	UnifiedV2 Rollout `json:"agent_unified_v2_enabled"`
	// Paused are the capabilities switched off.
	Paused map[Capability]bool `json:"-"`
}

// Rollout is who gets the unified agent: the teachers named, and a
// stable share of the others (Percent of the teachers, by a hash of their
// id, so that a teacher's path does not change from turn to turn).
type Rollout struct {
	Percent  int      `json:"percent"`
	Teachers []string `json:"teachers,omitempty"`
}

// Default is every switch on and the unified agent for every teacher.
func Default() Switches { return Switches{UnifiedV2: Rollout{Percent: 100}} }

// On reports whether c is switched on.
func (s Switches) On(c Capability) bool { return !s.Paused[c] }

// Enabled reports whether teacher is in the rollout.
func (r Rollout) Enabled(teacher string) bool {
	if r.Percent >= 100 || slices.Contains(r.Teachers, teacher) {
		return true
	}
	return r.Percent > 0 && Bucket(teacher) < r.Percent
}

// Bucket is teacher's place in the rollout, 0 to 99: a rollout of n
// percent takes the teachers whose bucket is below n, so raising n only
// adds teachers.
func Bucket(teacher string) int {
	h := fnv.New32a()
	h.Write([]byte(teacher))
	return int(h.Sum32() % 100)
}

// document is the switches' JSON form: the rollout, and each capability
// as a boolean (false pauses it).
type document struct {
	UnifiedV2       *Rollout `json:"agent_unified_v2_enabled"`
	Tools           *bool    `json:"tools"`
	PageBuilds      *bool    `json:"page_builds"`
	Research        *bool    `json:"research"`
	TemplateReports *bool    `json:"template_reports"`
	FileGeneration  *bool    `json:"file_generation"`
}

func (d *document) switches() map[Capability]*bool {
	return map[Capability]*bool{Tools: d.Tools, PageBuilds: d.PageBuilds, Research: d.Research,
		TemplateReports: d.TemplateReports, FileGeneration: d.FileGeneration}
}

// Parse reads a switches document, e.g.
//
//	{"agent_unified_v2_enabled": {"percent": 20, "teachers": ["t-1"]},
//	 "research": false}
//
// Keys left out are on; an unknown key is an error (a misspelt switch
// would otherwise be silently ignored).
func Parse(raw []byte) (Switches, error) {
	s := Default()
	if len(bytes.TrimSpace(raw)) == 0 {
		return s, nil
	}
	var d document
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return s, fmt.Errorf("flags: %w", err)
	}
	if d.UnifiedV2 != nil {
		if d.UnifiedV2.Percent < 0 || d.UnifiedV2.Percent > 100 {
			return s, fmt.Errorf("flags: agent_unified_v2_enabled.percent %d: want 0 to 100", d.UnifiedV2.Percent)
		}
		s.UnifiedV2 = *d.UnifiedV2
	}
	for c, on := range d.switches() {
		if on != nil && !*on {
			if s.Paused == nil {
				s.Paused = map[Capability]bool{}
			}
			s.Paused[c] = true
		}
	}
	return s, nil
}

// Source gives the switches as they are now. It never fails: a source
// that cannot read them gives the last values it read (or Default).
type Source interface {
	Switches(ctx context.Context) Switches
}

// Static is a Source whose switches never change.
type Static Switches

// Switches returns s.
func (s Static) Switches(context.Context) Switches { return Switches(s) }

// Read returns src's switches; a nil src is Default.
func Read(ctx context.Context, src Source) Switches {
	if src == nil {
		return Default()
	}
	return src.Switches(ctx)
}
