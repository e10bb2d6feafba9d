// Package blueprint holds the models of the Build runtime (seed 004 §1): the
// Blueprint a planner writes for a data-analysis page, the Page a build
// produces from it, the PatchPlan that re-composes parts of a page, and the
// records the build steps pass to each other by claim check.
//
// A Blueprint has three layers:
//
//   - DataContract: the inputs the teacher may pick (a class, an assignment)
//     and the data bindings, each one call of a data tool with arguments
//     that are literals or references ($input.class, $data.class.assignments,
//     $item.assignmentId inside a forEach binding, $context.key);
//   - ComputeGraph: deterministic statistics over the bound data (stats,
//     distribution, ranking, breakdown), computed by package
//     blueprint/compute, never by a model;
//   - UIComposition: tabs of blocks of six component types; each block shows
//     one compute result and has slots that the model writes.
//
// This package is a leaf (it imports only apperr and scores), so that the edge can
// decode and validate a blueprint before it starts a build; the steps that
// run one live in the sub-packages compute, build and plan.
//
// JSON is camelCase, decoded strictly: an unknown field is a BLUEPRINT_ERROR,
// so that a planner's typo is caught before a build, not during it.
package blueprint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/scores"
)

// Blueprint is an executable plan of a data-analysis page.
type Blueprint struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Version      int    `json:"version"`
	Language     string `json:"language,omitempty"`
	SourcePrompt string `json:"sourcePrompt,omitempty"`
	CreatedAt    string `json:"createdAt,omitempty"`

	DataContract  DataContract  `json:"dataContract"`
	ComputeGraph  ComputeGraph  `json:"computeGraph"`
	UIComposition UIComposition `json:"uiComposition"`

	// PageSystemPrompt is the context every slot writer gets (the page's
	// purpose and audience); optional.
	PageSystemPrompt string `json:"pageSystemPrompt,omitempty"`
}

// DataContract is layer A: what the teacher picks and what data is fetched.
type DataContract struct {
	Inputs   []Input   `json:"inputs"`
	Bindings []Binding `json:"bindings"`
}

// Input types.
const (
	InputClass      = "class"
	InputAssignment = "assignment"
	InputStudent    = "student"
	InputText       = "text"
)

// Input is a choice the teacher may need to make before a build.
type Input struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Label    string `json:"label"`
	Required bool   `json:"required"`
	// DependsOn names the input this one is chosen within (an assignment
	// within a class).
	DependsOn string `json:"dependsOn,omitempty"`
	// Value is the planned choice: the planner resolves the teacher's
	// mention to an id. The build's context overrides it.
	Value string `json:"value,omitempty"`
	// Subject is, on a class input, the subject the teacher asked about,
	// in the data service's English name ("Mathematics"); empty when the
	// request names none. A class that teaches another subject is used as
	// it is and the teacher is told (a SUBSTITUTED notice).
	Subject string `json:"subject,omitempty"`
}

// Binding is one data requirement: a data tool and its arguments.
type Binding struct {
	ID       string `json:"id"`
	ToolName string `json:"toolName"`
	// Args are the tool's arguments: literals, or references
	// ($input.<id>, $context.<key>, $data.<binding>.<path>, $item.<path>).
	Args map[string]string `json:"args"`
	// ForEach, when set, is a $data reference to a list: the tool is
	// called once per element, which $item refers to, and the binding's
	// data is the list of the results.
	ForEach     string `json:"forEach,omitempty"`
	Description string `json:"description,omitempty"`
	// Optional bindings may fail without failing the build.
	Optional bool `json:"optional,omitempty"`
}

// ComputeGraph is layer B: deterministic computations over the data.
type ComputeGraph struct {
	Nodes []ComputeNode `json:"nodes"`
}

// Compute operations.
const (
	OpStats        = "stats"        // count, mean, median, std dev, min, max, percentiles, pass rate
	OpDistribution = "distribution" // histogram over bins
	OpRanking      = "ranking"      // top and bottom N
	OpBreakdown    = "breakdown"    // the stats of each group (student, assignment, skill)
)

// Metrics a compute node reads from each submission.
const (
	MetricPercent = "percent" // score / maxScore × 100
	MetricScore   = "score"   // the raw score
	// The skill sub-scores of language subjects (percent).
	MetricGrammar    = "grammar"
	MetricVocabulary = "vocabulary"
	MetricReading    = "reading"
	MetricWriting    = "writing"
)

// Units of a compute node (Per).
const (
	PerStudent    = "student"    // each student's mean over their submissions is one value
	PerSubmission = "submission" // each submission is one value
)

// Groupings of a breakdown.
const (
	GroupStudent    = "student"
	GroupAssignment = "assignment"
	GroupSkill      = "skill"
)

// ComputeNode is one computation; its result is ComputeResults[ID].
type ComputeNode struct {
	ID string `json:"id"`
	Op string `json:"op"`
	// Source is the binding whose submissions are computed over.
	Source string `json:"source"`
	// Metric is MetricPercent when empty.
	Metric string `json:"metric,omitempty"`
	// Per is PerStudent when empty (breakdown ignores it).
	Per string `json:"per,omitempty"`
	// GroupBy is required by a breakdown.
	GroupBy string `json:"groupBy,omitempty"`
	// PassMark is the pass threshold in the metric's unit (60 when nil).
	PassMark *float64 `json:"passMark,omitempty"`
	// Bins are the edges of a distribution, ascending; the last bin
	// includes its upper edge (default 0, 60, 70, 80, 90, 100).
	Bins []float64 `json:"bins,omitempty"`
	// Limit is the N of a ranking's top and bottom N (default 5).
	Limit       int    `json:"limit,omitempty"`
	Description string `json:"description,omitempty"`
}

// DefaultPassMark is the pass threshold when a node sets none: the
// product's one default (shared/scores).
const DefaultPassMark = scores.DefaultPassMark

// DefaultBins are the distribution edges when a node sets none.
func DefaultBins() []float64 { return []float64{0, 60, 70, 80, 90, 100} }

// DefaultLimit is the N of a ranking that sets none.
const DefaultLimit = 5

// UIComposition is layer C: the page's tabs of blocks.
type UIComposition struct {
	// Layout is "tabs" or "single_page".
	Layout string `json:"layout"`
	Tabs   []Tab  `json:"tabs"`
}

// Layouts.
const (
	LayoutTabs       = "tabs"
	LayoutSinglePage = "single_page"
)

// Tab is a group of blocks.
type Tab struct {
	ID     string  `json:"id"`
	Label  string  `json:"label"`
	Blocks []Block `json:"blocks"`
}

// The six component types of a block.
const (
	KPIGrid        = "kpi_grid"
	Chart          = "chart"
	Table          = "table"
	Markdown       = "markdown"
	InsightList    = "insight_list"
	SuggestionList = "suggestion_list"
)

// ComponentTypes returns the six component types.
func ComponentTypes() []string {
	return []string{KPIGrid, Chart, Table, Markdown, InsightList, SuggestionList}
}

// Slot keys: the block fields the model writes (SLOT_DELTA.slotKey).
const (
	SlotContent = "content"
	SlotCaption = "caption"
)

// Block is one component of the page.
type Block struct {
	ID            string `json:"id"`
	ComponentType string `json:"componentType"`
	Title         string `json:"title,omitempty"`
	// Variant styles the block: bar, line, pie or radar for a chart;
	// default, insight, warning or success for markdown.
	Variant string `json:"variant,omitempty"`
	// DataBinding is the compute node the block shows (kpi_grid, chart,
	// table).
	DataBinding string `json:"dataBinding,omitempty"`
	// Context names the compute nodes the slot writer reads; by default
	// the DataBinding, or every node when the block has none.
	Context []string `json:"context,omitempty"`
	Slots   []Slot   `json:"slots,omitempty"`
}

// Slot is a block field the model writes.
type Slot struct {
	Key string `json:"key"`
	// Prompt tells the writer what to write.
	Prompt string `json:"prompt"`
}

// Blocks returns every block of the composition in page order.
func (b Blueprint) Blocks() []Block {
	var out []Block
	for _, t := range b.UIComposition.Tabs {
		out = append(out, t.Blocks...)
	}
	return out
}

// Block returns the block with id.
func (b Blueprint) Block(id string) (Block, bool) {
	for _, t := range b.UIComposition.Tabs {
		for _, bl := range t.Blocks {
			if bl.ID == id {
				return bl, true
			}
		}
	}
	return Block{}, false
}

// Node returns the compute node with id.
func (b Blueprint) Node(id string) (ComputeNode, bool) {
	for _, n := range b.ComputeGraph.Nodes {
		if n.ID == id {
			return n, true
		}
	}
	return ComputeNode{}, false
}

// Parse decodes a blueprint strictly: malformed JSON, an unknown field or
// trailing data is a BLUEPRINT_ERROR. It does not Validate.
func Parse(raw []byte) (Blueprint, error) {
	var bp Blueprint
	if err := decodeStrict(raw, &bp); err != nil {
		return bp, apperr.Wrap(err, apperr.BlueprintError, "the blueprint is not valid JSON of the Blueprint shape: %s", jsonProblem(err)).
			WithDetails(Details{Problems: []Problem{{Path: "", Message: jsonProblem(err)}}})
	}
	return bp, nil
}

func decodeStrict(raw []byte, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return errors.New("empty")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the object")
	}
	return nil
}

// jsonProblem says in a few words what is wrong with JSON.
func jsonProblem(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("malformed JSON at byte %d", syntax.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "malformed JSON (it ends too early)"
	case errors.As(err, &typ):
		return fmt.Sprintf("field %q must be %s", typ.Field, typ.Type.String())
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return strings.TrimPrefix(err.Error(), "json: ")
	default:
		return err.Error()
	}
}

// Problem is one reason a blueprint is refused.
type Problem struct {
	// Path locates the problem, e.g. "uiComposition.tabs[0].blocks[2].dataBinding".
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Details is the Details of a BLUEPRINT_ERROR.
type Details struct {
	Problems []Problem `json:"problems"`
}
