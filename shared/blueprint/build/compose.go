package build

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/llm"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Compose is the compose phase: each block in page order between
// BLOCK_START and BLOCK_COMPLETE, its data rendered from the compute results
// and its slots written by the model as SLOT_DELTAs. A patch composes only
// the blocks it names: a restyle changes the block's title or variant with
// no model call, a recompose writes its slots again; the other blocks, the
// data and the results stay as the client sent them.
func (b *Builder) Compose(ctx context.Context, in workflow.BuildStepInput) (workflow.BuildStepOutput, error) {
	id := in.Build.BuildID
	req, todo, err := b.pending(ctx, id, blueprint.RecordPage, new(blueprint.Page))
	if err != nil || !todo {
		return ok, err
	}
	bp := req.Blueprint
	em := b.stream(id)
	if err := em.Emit(ctx, protocol.PagePhase{Phase: protocol.PhaseCompose,
		Message: i18n.Of(bp.Language).Text(i18n.PageComposing)}); err != nil {
		return workflow.BuildStepOutput{}, err
	}
	data, results, err := b.sources(ctx, id, req)
	if err != nil {
		return workflow.BuildStepOutput{}, err
	}
	page, targets := skeleton(bp, data), map[string]blueprint.PatchInstruction(nil)
	if req.Mode == blueprint.ModePatch {
		if req.Page == nil || req.Patch == nil {
			return b.fail(ctx, id, blueprint.Failure{Code: "BLUEPRINT_ERROR", Message: "a patch needs the page and the patch plan"})
		}
		page, targets = *req.Page, map[string]blueprint.PatchInstruction{}
		for _, ins := range req.Patch.Instructions {
			targets[ins.BlockID] = ins
		}
	}
	source, names := dataSource(data), knownNames(results)
	for _, block := range bp.Blocks() {
		ins, targeted := targets[block.ID]
		if targets != nil && !targeted {
			continue
		}
		pb := page.FindBlock(block.ID)
		if pb == nil {
			return b.fail(ctx, id, blueprint.Failure{Code: "BLUEPRINT_ERROR",
				Message: fmt.Sprintf("the page has no block %q; rebuild it", block.ID)})
		}
		if err := em.Emit(ctx, protocol.PageBlockStart{BlockID: block.ID, ComponentType: block.ComponentType}); err != nil {
			return workflow.BuildStepOutput{}, err
		}
		slots, extra := block.Slots, ""
		switch {
		case targets == nil:
			if err := render(pb, block, bp, results); err != nil {
				return b.fail(ctx, id, failureOf(err, bp.Language))
			}
		case ins.Op == blueprint.OpRestyle:
			*pb, slots = blueprint.ApplyStyle(*pb, ins), nil
		default:
			extra = ins.Prompt
		}
		for _, slot := range slots {
			text, err := b.writeSlot(ctx, em, bp, block, slot, extra, source, results)
			if err != nil {
				return workflow.BuildStepOutput{}, err
			}
			pb.SetSlot(slot.Key, text)
		}
		if len(slots) > 0 && (block.ComponentType == blueprint.InsightList || block.ComponentType == blueprint.SuggestionList) {
			pb.Items = parseItems(pb.Content, block.ComponentType == blueprint.SuggestionList, names)
		}
		if err := em.Emit(ctx, protocol.PageBlockComplete{BlockID: block.ID}); err != nil {
			return workflow.BuildStepOutput{}, err
		}
	}
	page.Meta.GeneratedAt = b.o.Now().UTC().Format(time.RFC3339)
	if err := b.put(ctx, id, blueprint.RecordPage, page); err != nil {
		return workflow.BuildStepOutput{}, err
	}
	return ok, nil
}

// skeleton is the page of bp with every block named and nothing filled in.
func skeleton(bp blueprint.Blueprint, data blueprint.DataContext) blueprint.Page {
	p := blueprint.Page{Meta: blueprint.PageMeta{PageTitle: bp.Name, Summary: bp.Description, BlueprintID: bp.ID,
		DataSource: dataSource(data), Notices: dataNotices(data)}, Layout: bp.UIComposition.Layout}
	for _, t := range bp.UIComposition.Tabs {
		pt := blueprint.PageTab{ID: t.ID, Label: t.Label, Blocks: []blueprint.PageBlock{}}
		for _, bl := range t.Blocks {
			pt.Blocks = append(pt.Blocks, blueprint.PageBlock{ID: bl.ID, Type: bl.ComponentType, Title: bl.Title, Variant: bl.Variant})
		}
		p.Tabs = append(p.Tabs, pt)
	}
	return p
}

// dataNotices are the notices the data tools put in their outputs
// ("dataNotices"), one per code, in the order of the bindings.
func dataNotices(data blueprint.DataContext) []protocol.Notice {
	var out []protocol.Notice
	seen := map[string]bool{}
	add := func(raw json.RawMessage) {
		var v struct {
			DataNotices []protocol.Notice `json:"dataNotices"`
		}
		if json.Unmarshal(raw, &v) != nil {
			return
		}
		for _, n := range v.DataNotices {
			if !seen[n.Code] {
				seen[n.Code] = true
				out = append(out, n)
			}
		}
	}
	for _, k := range blueprint.Keys(data) {
		raw := bytes.TrimSpace(data[k])
		switch {
		case len(raw) > 0 && raw[0] == '{':
			add(raw)
		case len(raw) > 0 && raw[0] == '[':
			var items []json.RawMessage
			if json.Unmarshal(raw, &items) == nil {
				for _, it := range items {
					add(it)
				}
			}
		}
	}
	return out
}

// dataSource names the classes the data is about ("Form 1A · English"),
// from any binding whose output has a class.
func dataSource(data blueprint.DataContext) string {
	var names []string
	for _, k := range blueprint.Keys(data) {
		if raw := bytes.TrimSpace(data[k]); len(raw) == 0 || raw[0] != '{' {
			continue // a list (a forEach binding's) names no class: not worth decoding
		}
		var v struct {
			Class struct {
				ClassID string `json:"classId"`
				Name    string `json:"name"`
				Subject string `json:"subject"`
			} `json:"class"`
		}
		if json.Unmarshal(data[k], &v) != nil || v.Class.Name == "" {
			continue
		}
		n := v.Class.Name
		if v.Class.Subject != "" {
			n += " · " + v.Class.Subject
		}
		names = append(names, n)
	}
	return strings.Join(names, "; ")
}

// writerRequest is the user message of a slot writer.
type writerRequest struct {
	Page        string                     `json:"page"`
	DataSource  string                     `json:"dataSource,omitempty"`
	Block       writerBlock                `json:"block"`
	Slot        string                     `json:"slot"`
	Instruction string                     `json:"instruction"`
	Change      string                     `json:"change,omitempty"`
	Language    string                     `json:"language"`
	Data        map[string]json.RawMessage `json:"data"`
}

type writerBlock struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Title string `json:"title,omitempty"`
}

// writeSlot has the model write one slot, streaming it as SLOT_DELTAs, and
// returns the text the client has. A model that fails leaves a short note
// in the slot rather than failing the page: its numbers are still right.
func (b *Builder) writeSlot(ctx context.Context, em emitter, bp blueprint.Blueprint, block blueprint.Block, slot blueprint.Slot,
	change, source string, results blueprint.ComputeResults) (string, error) {
	ctxNodes := block.Context
	if len(ctxNodes) == 0 && block.DataBinding != "" {
		ctxNodes = []string{block.DataBinding}
	}
	if len(ctxNodes) == 0 {
		ctxNodes = blueprint.Keys(results)
	}
	wr := writerRequest{Page: bp.Name, DataSource: source, Block: writerBlock{ID: block.ID, Type: block.ComponentType, Title: block.Title},
		Slot: slot.Key, Instruction: slot.Prompt, Change: change, Language: langOf(bp.Language), Data: map[string]json.RawMessage{}}
	for _, n := range ctxNodes {
		if r, ok := results[n]; ok {
			wr.Data[n] = r
		}
	}
	user, err := jsonOf(wr)
	if err != nil {
		return "", err
	}
	system := prompts.Writer
	if bp.PageSystemPrompt != "" {
		system += "\nAbout this page: " + bp.PageSystemPrompt + "\n"
	}
	w := &deltaWriter{em: em, blockID: block.ID, slotKey: slot.Key, every: b.o.FlushEvery, size: b.o.FlushSize, now: b.o.Now}
	_, err = b.model.Stream(ctx, llm.Request{Tier: b.o.Tier, MaxTokens: 1200, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: system},
		{Role: llm.RoleUser, Content: string(user)},
	}}, llm.Handler{OnContent: func(d string) error { return w.write(ctx, d) }})
	if isFault(ctx, err) {
		return "", err
	}
	if err != nil {
		b.o.Logger.WarnContext(ctx, "slot writer failed; the slot gets a note", "block", block.ID, "slot", slot.Key, "err", err)
		note := i18n.Of(bp.Language).Text(i18n.PageTextUnavailable)
		if len(w.text) > 0 {
			note = " " + note
		}
		if werr := w.write(ctx, note); werr != nil {
			return "", werr
		}
	}
	if err := w.flush(ctx); err != nil {
		return "", err
	}
	return string(w.text), nil
}

func langOf(l string) string {
	if i18n.Of(l) == i18n.Chinese {
		return "zh-CN"
	}
	return l
}

// deltaWriter coalesces a slot's deltas: a SLOT_DELTA every FlushEvery or
// FlushSize bytes, whichever comes first.
type deltaWriter struct {
	em               emitter
	blockID, slotKey string
	every            time.Duration
	size             int
	now              func() time.Time
	buf, text        []byte
	last             time.Time
}

func (w *deltaWriter) write(ctx context.Context, d string) error {
	if d == "" {
		return nil
	}
	w.buf = append(w.buf, d...)
	w.text = append(w.text, d...)
	if len(w.buf) >= w.size || w.now().Sub(w.last) >= w.every {
		return w.flush(ctx)
	}
	return nil
}

func (w *deltaWriter) flush(ctx context.Context) error {
	w.last = w.now()
	if len(w.buf) == 0 {
		return nil
	}
	ev := protocol.PageSlotDelta{BlockID: w.blockID, SlotKey: w.slotKey, DeltaText: string(w.buf)}
	w.buf = w.buf[:0]
	return w.em.Emit(ctx, ev)
}

// The list items' patterns, compiled on first use, not at start-up.
var (
	bullet   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(?:[-*•·]|\d+[.)、])\s*`) })
	priority = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[(high|medium|low|高|中|低)\]\s*`) })
	sep      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*(?:[:：]|\s[—–-]\s)\s*`) })
)

// parseItems reads the written lines of an insight_list or suggestion_list
// ("- Title: description", suggestions with "[high]" first) into items.
// Lines that are not list entries (a heading) are skipped; at most 10. The
// title ends at the first separator outside quotes, brackets and the names
// the page shows ("Reading Comprehension: The Lost Kite" stays whole).
func parseItems(text string, suggestions bool, names []string) []blueprint.ListItem {
	items := []blueprint.ListItem{}
	for _, line := range strings.Split(text, "\n") {
		if !bullet().MatchString(line) || len(items) == 10 {
			continue
		}
		line = strings.TrimSpace(bullet().ReplaceAllString(line, ""))
		line = strings.ReplaceAll(line, "**", "")
		var it blueprint.ListItem
		if suggestions {
			it.Priority = "medium"
			if m := priority().FindStringSubmatch(line); m != nil {
				it.Priority = map[string]string{"高": "high", "中": "medium", "低": "low"}[m[1]]
				if it.Priority == "" {
					it.Priority = m[1]
				}
				line = line[len(m[0]):]
			}
		}
		it.Title, it.Description = splitTitle(line, names)
		if it.Title != "" {
			items = append(items, it)
		}
	}
	return items
}

// splitTitle splits a list line at its first separator that stands outside
// every quoted or bracketed run and every known name.
func splitTitle(line string, names []string) (title, description string) {
	kept := keptSpans(line, names)
	for _, loc := range sep().FindAllStringIndex(line, -1) {
		if loc[0] > 0 && !within(kept, loc[0]) {
			return strings.TrimSpace(line[:loc[0]]), strings.TrimSpace(line[loc[1]:])
		}
	}
	return line, ""
}

// quotePairs open and close the runs a title never ends inside.
var quotePairs = map[rune]rune{'「': '」', '『': '』', '“': '”', '‘': '’', '《': '》', '"': '"', '(': ')', '（': '）'}

// keptSpans are the byte ranges [start, end) of line's quoted or bracketed
// runs (an unclosed one runs to the end) and of the known names in it.
func keptSpans(line string, names []string) [][2]int {
	var spans [][2]int
	for i, r := range line {
		closer, ok := quotePairs[r]
		if !ok || within(spans, i) {
			continue
		}
		start := i + utf8.RuneLen(r)
		end := len(line) // an unclosed run keeps the rest
		if at := strings.IndexRune(line[start:], closer); at >= 0 {
			end = start + at + utf8.RuneLen(closer)
		}
		spans = append(spans, [2]int{i, end})
	}
	for _, n := range names {
		for from := 0; n != "" && from < len(line); {
			at := strings.Index(line[from:], n)
			if at < 0 {
				break
			}
			spans = append(spans, [2]int{from + at, from + at + len(n)})
			from += at + len(n)
		}
	}
	return spans
}

func within(spans [][2]int, i int) bool {
	for _, s := range spans {
		if i >= s[0] && i < s[1] {
			return true
		}
	}
	return false
}

// knownNames are the labels the compute results carry (assignment titles,
// student and skill names, from breakdowns and rankings), the names a
// list line may quote.
func knownNames(results blueprint.ComputeResults) []string {
	var names []string
	for _, raw := range results {
		var r struct {
			Groups      []struct{ Label string } `json:"groups"`
			Top, Bottom []struct {
				StudentName string `json:"studentName"`
			}
		}
		if json.Unmarshal(raw, &r) != nil {
			continue
		}
		for _, g := range r.Groups {
			names = append(names, g.Label)
		}
		for _, e := range append(r.Top, r.Bottom...) {
			names = append(names, e.StudentName)
		}
	}
	return names
}
