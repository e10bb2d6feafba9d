package offlinemodel

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/workflow"
)

// Follow-ups on a built page (seed 004 §1.3.1). The router sees the page
// (prompts.PageHeader) and tells a change of wording or style (refine)
// from a change of structure (rebuild) and from a question (chat); the
// page editor (prompts.EditorHeader) turns a refine into a PatchPlan; the
// planner revises the current blueprint (prompts.CurrentBlueprintHeader)
// for a rebuild; the chat path answers a question from the page's data
// summary. Keyword heuristics, as everywhere in the stand-in.

// KindEditor is the page editor's call.
const KindEditor Kind = "editor"

// Words of structural changes and of changes to what is there.
var (
	addWords    = []string{"加一个", "加个", "加一张", "再加", "添加", "增加", "新增", "加上", "add ", "add a", "include a", "insert"}
	removeWords = []string{"去掉", "删除", "删掉", "移除", "remove", "delete", "drop "}
	blockNouns  = []string{"图", "表", "区块", "板块", "模块", "部分", "chart", "graph", "table", "block", "section", "panel"}
	changeWords = []string{"改", "简短", "简洁", "精简", "短一点", "短一些", "详细", "具体", "换成", "换为", "重写", "润色", "口语",
		"rewrite", "shorter", "concise", "briefer", "more detail", "longer", "change", "rename", "switch", "turn the", "make the"}
)

// followUpIntent is the router's decision on a follow-up: rebuild, refine,
// or "" to route as any message (a question, a new page, small talk).
func followUpIntent(c *call) workflow.Intent {
	low := strings.ToLower(c.user)
	switch {
	case wantsAnalysis(c.user) && classMention(c.user) != "":
		return "" // a page about a class: a new build
	case containsAny(low, addWords...) && containsAny(low, blockNouns...), containsAny(low, removeWords...):
		return workflow.IntentRebuild
	case containsAny(low, changeWords...) && !isQuestion(c.user):
		return workflow.IntentRefine
	}
	return ""
}

func isQuestion(s string) bool {
	t := strings.TrimSpace(s)
	return strings.HasSuffix(t, "?") || strings.HasSuffix(t, "？") || containsAny(t, "吗", "为什么", "怎么", "什么", "哪")
}

// mentions reports whether s names a block by its title, or by the title's
// head before a parenthesis ("学生排名" for "学生排名（前后五名）").
func mentions(s, title string) bool {
	if title == "" {
		return false
	}
	head, _, _ := strings.Cut(title, "（")
	head, _, _ = strings.Cut(head, " (")
	head = strings.TrimSpace(head)
	return strings.Contains(s, title) || head != "" && strings.Contains(strings.ToLower(s), strings.ToLower(head))
}

// pageAnswer answers a question about the page from what the router and
// the chat path were shown of it: its title and data summary.
func pageAnswer(c *call) string {
	title, summary := "", ""
	for _, line := range strings.Split(c.page, "\n") {
		if v, ok := strings.CutPrefix(line, "Title: "); ok {
			title = v
		}
		if v, ok := strings.CutPrefix(line, "Data summary: "); ok {
			summary = v
		}
	}
	if f := pageFigures(c.lang, c.user, summary); f != "" {
		return f
	}
	var b strings.Builder
	if title != "" {
		b.WriteString(c.lang.pick("关于页面「"+title+"」：", "About the page \""+title+"\": "))
	}
	if summary != "" {
		b.WriteString(c.lang.pick("页面给出的数据摘要是——"+summary+"。", "its data summary says: "+summary+". "))
	}
	b.WriteString(c.lang.pick(
		"\n\n页面上的数字由计算图从数据服务的提交记录统计得出，不是模型编写的；文字部分是在这些数字上写的解读。"+
			"如果想换个角度看，可以说「把分析总结改得更简短」（原地修改），或「加一个按作业的对比图」（重新规划页面）。",
		"\n\nThe numbers on the page are computed from the data service's submissions, not written by the model; the text "+
			"interprets them. To see it differently, ask me to \"make the summary shorter\" (changed in place) or to \"add a "+
			"chart by assignment\" (the page is planned again)."))
	return b.String()
}

// editorRequest is the page editor's user message (plan.Refine).
type editorRequest struct {
	Request  string `json:"request"`
	Language string `json:"language"`
	Page     struct {
		Title  string `json:"title"`
		Blocks []struct {
			ID            string   `json:"id"`
			ComponentType string   `json:"componentType"`
			Title         string   `json:"title"`
			Variant       string   `json:"variant"`
			Slots         []string `json:"slots"`
		} `json:"blocks"`
	} `json:"page"`
}

// Words that name a kind of block.
var blockKindWords = map[string][]string{
	blueprint.Markdown:       {"总结", "摘要", "概述", "summary", "overview", "narrative"},
	blueprint.SuggestionList: {"建议", "suggestion", "recommendation", "action"},
	blueprint.InsightList:    {"发现", "洞察", "finding", "insight"},
	blueprint.Chart:          {"图", "chart", "graph"},
	blueprint.Table:          {"表", "table", "排名", "ranking"},
	blueprint.KPIGrid:        {"指标", "kpi", "key figure"},
}

var chartVariants = map[string][]string{
	"pie":   {"饼图", "饼状", "pie"},
	"line":  {"折线", "line"},
	"bar":   {"柱状", "条形", "bar"},
	"radar": {"雷达", "radar"},
}

// chartStyles reads the chart styles a request names: the one it changes
// to (after "换成", "改成", "改为", "变成", "to", "into", or the only one
// named) and the one it changes from (named before that).
func chartStyles(low string) (from, to string) {
	type hit struct {
		at      int
		variant string
	}
	var hits []hit
	for v, words := range chartVariants {
		for _, w := range words {
			if at := strings.Index(low, w); at >= 0 {
				hits = append(hits, hit{at, v})
			}
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return a.at - b.at })
	switch len(hits) {
	case 0:
		return "", ""
	case 1:
		return "", hits[0].variant
	}
	return hits[0].variant, hits[len(hits)-1].variant
}

// editorReply is a PatchPlan for the request: the blocks it names by title
// (or by kind), restyled when it names a chart style or a new title,
// recomposed with the request as the instruction otherwise; a structural
// request is a rebuild.
func editorReply(c *call) reply {
	var req editorRequest
	if err := json.Unmarshal([]byte(c.user), &req); err != nil {
		return textReply(`{"scope":"rebuild","instructions":[]}`)
	}
	low := strings.ToLower(req.Request)
	if containsAny(low, addWords...) && containsAny(low, blockNouns...) {
		return textReply(`{"scope":"rebuild","instructions":[]}`)
	}
	type target struct {
		id, typ, variant string
		hasText          bool
	}
	from, to := chartStyles(low)
	var named, byKind []target
	for _, b := range req.Page.Blocks {
		hasText := len(b.Slots) > 0
		t := target{b.ID, b.ComponentType, b.Variant, hasText}
		switch {
		case mentions(req.Request, b.Title), strings.Contains(req.Request, b.ID):
			named = append(named, t)
		case containsAny(low, blockKindWords[b.ComponentType]...) && (hasText || b.ComponentType == blueprint.Chart):
			byKind = append(byKind, t)
		}
	}
	// "the chart": the chart in the style named first ("把雷达图换成…"),
	// else the first that is not already in the style asked for, else the
	// first block of the kind.
	byKind = slices.DeleteFunc(byKind, func(t target) bool {
		return t.typ == blueprint.Chart && to != "" && (t.variant == to || from != "" && t.variant != from)
	})
	targets := named
	if len(targets) == 0 && len(byKind) > 0 {
		targets = byKind[:1]
	}
	variant := to
	newTitle := ""
	if m := submatch(`(?:标题改为|标题改成|改名为|rename (?:it )?to)\s*[「"“]?([^」"”]+)`, req.Request); m != nil {
		newTitle = strings.TrimSpace(m[1])
	}
	plan := blueprint.PatchPlan{Scope: blueprint.ScopePatch, Instructions: []blueprint.PatchInstruction{}}
	for _, t := range targets {
		switch {
		case variant != "" && t.typ == blueprint.Chart:
			plan.Instructions = append(plan.Instructions, blueprint.PatchInstruction{Op: blueprint.OpRestyle, BlockID: t.id, Variant: variant})
		case newTitle != "":
			plan.Instructions = append(plan.Instructions, blueprint.PatchInstruction{Op: blueprint.OpRestyle, BlockID: t.id, Title: newTitle})
		case t.hasText:
			plan.Instructions = append(plan.Instructions, blueprint.PatchInstruction{Op: blueprint.OpRecompose, BlockID: t.id, Prompt: req.Request})
		}
	}
	if len(plan.Instructions) == 0 {
		return textReply(`{"scope":"rebuild","instructions":[]}`)
	}
	return textReply(mustJSON(plan))
}

// currentBlueprint reads the blueprint a rebuild revises, if the planner
// was given one.
func currentBlueprint(c *call) (blueprint.Blueprint, bool) {
	for _, m := range c.req.Messages {
		content := strings.TrimSpace(string(m.Content))
		rest, ok := strings.CutPrefix(content, prompts.CurrentBlueprintHeader)
		if m.Role != "system" || !ok {
			continue
		}
		raw, _, _ := strings.Cut(strings.TrimSpace(rest), "\n")
		var bp blueprint.Blueprint
		if json.Unmarshal([]byte(raw), &bp) == nil {
			return bp, true
		}
	}
	return blueprint.Blueprint{}, false
}

// revisedBlueprint applies the teacher's change to the current blueprint:
// a comparison chart by assignment or by skill is added (with its
// breakdown when the blueprint has none), named blocks are removed.
func revisedBlueprint(l lang, bp blueprint.Blueprint, request string) blueprint.Blueprint {
	low := strings.ToLower(request)
	if containsAny(low, removeWords...) {
		for ti := range bp.UIComposition.Tabs {
			tab := &bp.UIComposition.Tabs[ti]
			tab.Blocks = slices.DeleteFunc(tab.Blocks, func(b blueprint.Block) bool { return mentions(request, b.Title) })
		}
		bp.UIComposition.Tabs = slices.DeleteFunc(bp.UIComposition.Tabs, func(t blueprint.Tab) bool { return len(t.Blocks) == 0 })
		return bp
	}
	group, variant := blueprint.GroupAssignment, "bar"
	title := l.pick("各作业得分率对比", "Assignments compared")
	if containsAny(low, "技能", "skill") {
		group, variant, title = blueprint.GroupSkill, "radar", l.pick("各技能得分率对比", "Skills compared")
	}
	if containsAny(low, "学生", "student") {
		group, variant, title = blueprint.GroupStudent, "bar", l.pick("学生得分率对比", "Students compared")
	}
	node := ""
	for _, n := range bp.ComputeGraph.Nodes {
		if n.Op == blueprint.OpBreakdown && n.GroupBy == group {
			node = n.ID
			break
		}
	}
	if node == "" {
		source := ""
		for _, n := range bp.ComputeGraph.Nodes {
			source = n.Source
			break
		}
		if source == "" {
			return bp // nothing to compute from: the structure stays
		}
		node = uniqueID(bp, "by"+strings.ToUpper(group[:1])+group[1:])
		bp.ComputeGraph.Nodes = append(bp.ComputeGraph.Nodes, blueprint.ComputeNode{ID: node, Op: blueprint.OpBreakdown, Source: source, GroupBy: group})
	}
	block := blueprint.Block{ID: uniqueID(bp, group+"Chart"), ComponentType: blueprint.Chart, Variant: variant, Title: title, DataBinding: node,
		Slots: []blueprint.Slot{{Key: blueprint.SlotCaption, Prompt: l.pick("用一句话指出差距最大的两项。", "Name the two furthest apart in one sentence.")}}}
	// Beside the blocks that show the same numbers, else on the last tab.
	tabs := bp.UIComposition.Tabs
	at := len(tabs) - 1
	for i, t := range tabs {
		if slices.ContainsFunc(t.Blocks, func(b blueprint.Block) bool { return b.DataBinding == node }) {
			at = i
			break
		}
	}
	if at < 0 {
		return bp
	}
	tabs[at].Blocks = append(tabs[at].Blocks, block)
	return bp
}

// uniqueID is base, or base with a number, unused in bp.
func uniqueID(bp blueprint.Blueprint, base string) string {
	used := map[string]bool{}
	for _, in := range bp.DataContract.Inputs {
		used[in.ID] = true
	}
	for _, b := range bp.DataContract.Bindings {
		used[b.ID] = true
	}
	for _, n := range bp.ComputeGraph.Nodes {
		used[n.ID] = true
	}
	for _, t := range bp.UIComposition.Tabs {
		used[t.ID] = true
		for _, b := range t.Blocks {
			used[b.ID] = true
		}
	}
	id := base
	for i := 2; used[id] && i < 100; i++ {
		id = fmt.Sprintf("%s%d", base, i)
	}
	return id
}
