package offlinemodel

import (
	"cmp"
	"strings"

	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/prompts"
)

// The page planner (prompts.PlannerHeader): a Blueprint for a request to
// analyse a class's results, over the data tools of the mock data service —
// the class detail, then every assignment's submissions — with statistics,
// a distribution, a ranking, per-assignment (and, for an English request,
// per-skill) breakdowns, and one block of each component type. The class
// input carries the class as the teacher named it; the product resolves it.

// Kinds of the Build runtime's calls.
const (
	KindPlanner Kind = "planner"
	KindWriter  Kind = "writer"
)

func plannerReply(c *call) reply {
	msg := firstUser(c)
	l := detectLang(msg)
	if bp, ok := currentBlueprint(c); ok {
		if bp.Language == "en" {
			l = en
		}
		return textReply(mustJSON(revisedBlueprint(l, bp, msg)))
	}
	return textReply(mustJSON(plannedBlueprint(l, msg, pickedClass(c))))
}

// pickedClass is the class the teacher picked from a question back, as
// the product's note names it ("- classId: class-hk-f1a (Form 1A ·
// English)" → "1A"), or "".
func pickedClass(c *call) string {
	for _, m := range c.req.Messages {
		note := sectionIn(string(m.Content), prompts.PlannerPickedHeader)
		if m.Role != "system" || note == "" {
			continue
		}
		for _, line := range strings.Split(note, "\n") {
			if label, ok := strings.CutPrefix(strings.TrimSpace(line), "- classId:"); ok {
				if _, name, ok := strings.Cut(label, "("); ok {
					return classMention(name)
				}
			}
		}
	}
	return ""
}

// firstUser is the teacher's request: the first user message (a corrected
// attempt appends the product's complaint as a later one).
func firstUser(c *call) string {
	for _, m := range c.req.Messages {
		if m.Role == "user" {
			return stripMarkers(string(m.Content))
		}
	}
	return c.user
}

// plannerMention is the class the request names, as written: "1A", or a
// class no school has ("1X"), which the product will then report unknown.
func plannerMention(msg string) string {
	if c := classMention(msg); c != "" {
		return c
	}
	if m := submatch(`\b(\d{1,2}[A-Za-z])\b`, msg); m != nil {
		return strings.ToUpper(m[1])
	}
	return ""
}

// subjectWords are the words that name a subject, by its data-service name.
var subjectWords = []struct {
	subject string
	words   []string
}{
	{"English", []string{"英语", "英文", "english", "grammar", "语法", "vocabulary", "词汇", "reading", "阅读", "writing", "写作"}},
	{"Mathematics", []string{"数学", "math"}},
	{"Physics", []string{"物理", "physics"}},
	{"Chinese Language", []string{"中文", "语文", "chinese"}},
}

// askedSubject is the subject an analysis request names (its data-service name), or "".
func askedSubject(low string) string {
	for _, s := range subjectWords {
		if containsAny(low, s.words...) {
			return s.subject
		}
	}
	return ""
}

func plannedBlueprint(l lang, msg, picked string) blueprint.Blueprint {
	class := cmp.Or(picked, plannerMention(msg))
	low := strings.ToLower(msg)
	english := askedSubject(low) == "English"
	name := l.pick("班级成绩分析", "Class results analysis")
	if class != "" {
		name = l.pick(class+" 班成绩分析", "Class "+class+" results analysis")
		if english {
			name = l.pick(class+" 班英语成绩分析", "Class "+class+" English results")
		}
	}
	nodes := []blueprint.ComputeNode{
		{ID: "scoreStats", Op: blueprint.OpStats, Source: "submissions", Metric: blueprint.MetricPercent, Per: blueprint.PerStudent},
		{ID: "scoreDistribution", Op: blueprint.OpDistribution, Source: "submissions", Metric: blueprint.MetricPercent,
			Bins: blueprint.DefaultBins()},
		{ID: "studentRanking", Op: blueprint.OpRanking, Source: "submissions", Limit: 5},
		{ID: "byAssignment", Op: blueprint.OpBreakdown, Source: "submissions", GroupBy: blueprint.GroupAssignment},
	}
	narrative := []string{"scoreStats", "byAssignment"}
	details := []blueprint.Block{
		{ID: "assignmentTable", ComponentType: blueprint.Table, Title: l.pick("各项作业表现", "Results by assignment"), DataBinding: "byAssignment",
			Slots: []blueprint.Slot{{Key: blueprint.SlotCaption, Prompt: l.pick("用一句话指出最强和最弱的作业。", "Name the strongest and the weakest assignment in one sentence.")}}},
	}
	if english {
		nodes = append(nodes, blueprint.ComputeNode{ID: "bySkill", Op: blueprint.OpBreakdown, Source: "submissions", GroupBy: blueprint.GroupSkill})
		narrative = append(narrative, "bySkill")
		details = append(details, blueprint.Block{ID: "skillChart", ComponentType: blueprint.Chart, Variant: "radar",
			Title: l.pick("各项技能得分率", "Mean by skill"), DataBinding: "bySkill"})
	}
	in := blueprint.Input{ID: "class", Type: blueprint.InputClass, Label: l.pick("班级", "Class"), Required: true, Value: class,
		Subject: askedSubject(low)}
	return blueprint.Blueprint{
		ID: "bp-offline", Name: name, Version: 1, Language: l.pick("zh-CN", "en"), SourcePrompt: msg,
		Description: l.pick("全班各项作业的得分率统计、分布、排名与教学建议。", "Scores across the class's assignments: statistics, distribution, ranking and teaching suggestions."),
		DataContract: blueprint.DataContract{
			Inputs: []blueprint.Input{in},
			Bindings: []blueprint.Binding{
				{ID: "classInfo", ToolName: toolClassDetail, Args: map[string]string{"classId": "$input.class"},
					Description: l.pick("班级、学生与作业", "The class, its students and assignments")},
				{ID: "submissions", ToolName: toolSubmissions, Args: map[string]string{"assignmentId": "$item.assignmentId"},
					ForEach: "$data.classInfo.assignments", Description: l.pick("每项作业的提交", "Each assignment's submissions")},
			},
		},
		ComputeGraph: blueprint.ComputeGraph{Nodes: nodes},
		UIComposition: blueprint.UIComposition{Layout: blueprint.LayoutTabs, Tabs: []blueprint.Tab{
			{ID: "overview", Label: l.pick("概览", "Overview"), Blocks: []blueprint.Block{
				{ID: "kpis", ComponentType: blueprint.KPIGrid, Title: l.pick("关键指标", "Key figures"), DataBinding: "scoreStats"},
				{ID: "distribution", ComponentType: blueprint.Chart, Variant: "bar", Title: l.pick("得分率分布", "Score distribution"),
					DataBinding: "scoreDistribution", Slots: []blueprint.Slot{{Key: blueprint.SlotCaption,
						Prompt: l.pick("用一句话描述分布的形状。", "Describe the shape of the distribution in one sentence.")}}},
				{ID: "summary", ComponentType: blueprint.Markdown, Variant: "insight", Title: l.pick("分析总结", "Summary"),
					Context: narrative, Slots: []blueprint.Slot{{Key: blueprint.SlotContent,
						Prompt: l.pick("总结全班成绩：平均水平、及格情况、最强与最弱的作业。", "Summarise the class's results: the level, the pass rate, the strongest and weakest assignments.")}}},
			}},
			{ID: "details", Label: l.pick("明细", "Details"), Blocks: details},
			{ID: "students", Label: l.pick("学生与建议", "Students & actions"), Blocks: []blueprint.Block{
				{ID: "ranking", ComponentType: blueprint.Table, Title: l.pick("学生排名（前后五名）", "Top and bottom five"), DataBinding: "studentRanking"},
				{ID: "insights", ComponentType: blueprint.InsightList, Title: l.pick("主要发现", "Key findings"),
					Context: append([]string{"studentRanking"}, narrative...), Slots: []blueprint.Slot{{Key: blueprint.SlotContent,
						Prompt: l.pick("写 3 条有数据支撑的发现。", "Write three findings, each backed by a number.")}}},
				{ID: "actions", ComponentType: blueprint.SuggestionList, Title: l.pick("教学建议", "Teaching suggestions"),
					Context: narrative, Slots: []blueprint.Slot{{Key: blueprint.SlotContent,
						Prompt: l.pick("写 3 条可执行的教学建议，标出优先级。", "Write three actionable teaching suggestions with a priority.")}}},
			}},
		}},
		PageSystemPrompt: l.pick("你是教育数据分析师，只使用给出的数字。", "You are an educational data analyst; use only the numbers given."),
	}
}
