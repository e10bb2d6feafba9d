// Package blueprinttest provides blueprints for the tests of the packages
// that build, patch and store them.
package blueprinttest

import "github.com/insightedge/insightedge/shared/blueprint"

// Analysis is a class-results analysis over every assignment of one class:
// the class detail, each assignment's submissions, statistics, a
// distribution, rankings, per-assignment and per-skill breakdowns, and one
// block of every component type. class is the planned value of the class
// input (an id or a mention).
func Analysis(class string) blueprint.Blueprint {
	pass := 60.0
	return blueprint.Blueprint{
		ID: "bp-test-analysis", Name: "班级成绩分析", Description: "A class's results over its assignments",
		Version: 1, Language: "zh-CN", SourcePrompt: "分析 1A 班英语成绩",
		DataContract: blueprint.DataContract{
			Inputs: []blueprint.Input{{ID: "class", Type: blueprint.InputClass, Label: "班级", Required: true, Value: class}},
			Bindings: []blueprint.Binding{
				{ID: "classInfo", ToolName: "get_class_detail", Args: map[string]string{"classId": "$input.class"}},
				{ID: "submissions", ToolName: "get_assignment_submissions", Args: map[string]string{"assignmentId": "$item.assignmentId"},
					ForEach: "$data.classInfo.assignments"},
			},
		},
		ComputeGraph: blueprint.ComputeGraph{Nodes: []blueprint.ComputeNode{
			{ID: "scoreStats", Op: blueprint.OpStats, Source: "submissions", PassMark: &pass},
			{ID: "scoreDistribution", Op: blueprint.OpDistribution, Source: "submissions"},
			{ID: "studentRanking", Op: blueprint.OpRanking, Source: "submissions", Limit: 5},
			{ID: "byAssignment", Op: blueprint.OpBreakdown, Source: "submissions", GroupBy: blueprint.GroupAssignment},
			{ID: "bySkill", Op: blueprint.OpBreakdown, Source: "submissions", GroupBy: blueprint.GroupSkill},
		}},
		UIComposition: blueprint.UIComposition{Layout: blueprint.LayoutTabs, Tabs: []blueprint.Tab{
			{ID: "overview", Label: "概览", Blocks: []blueprint.Block{
				{ID: "kpis", ComponentType: blueprint.KPIGrid, Title: "关键指标", DataBinding: "scoreStats"},
				{ID: "distribution", ComponentType: blueprint.Chart, Title: "得分率分布", Variant: "bar", DataBinding: "scoreDistribution",
					Slots: []blueprint.Slot{{Key: blueprint.SlotCaption, Prompt: "One sentence on the shape of the distribution."}}},
				{ID: "summary", ComponentType: blueprint.Markdown, Title: "分析总结", Variant: "insight",
					Context: []string{"scoreStats", "byAssignment"},
					Slots:   []blueprint.Slot{{Key: blueprint.SlotContent, Prompt: "Summarise the class's results in a short paragraph."}}},
			}},
			{ID: "details", Label: "明细", Blocks: []blueprint.Block{
				{ID: "assignments", ComponentType: blueprint.Table, Title: "各项作业", DataBinding: "byAssignment"},
				{ID: "students", ComponentType: blueprint.Table, Title: "学生排名", DataBinding: "studentRanking"},
				{ID: "skills", ComponentType: blueprint.Chart, Title: "技能表现", Variant: "radar", DataBinding: "bySkill"},
				{ID: "insights", ComponentType: blueprint.InsightList, Title: "主要发现", Context: []string{"bySkill", "studentRanking"},
					Slots: []blueprint.Slot{{Key: blueprint.SlotContent, Prompt: "Three findings, one per line."}}},
				{ID: "actions", ComponentType: blueprint.SuggestionList, Title: "教学建议", Context: []string{"scoreStats", "bySkill"},
					Slots: []blueprint.Slot{{Key: blueprint.SlotContent, Prompt: "Three teaching suggestions, one per line, with a priority."}}},
			}},
		}},
		PageSystemPrompt: "You are an educational data analyst. Use only the numbers given.",
	}
}

// Page returns the page skeleton bp lays out: its tabs and blocks, without
// content, as a build of bp produces them.
func Page(bp blueprint.Blueprint) blueprint.Page {
	page := blueprint.Page{Layout: "tabs"}
	for _, tab := range bp.UIComposition.Tabs {
		pt := blueprint.PageTab{ID: tab.ID, Label: tab.Label}
		for _, b := range tab.Blocks {
			pt.Blocks = append(pt.Blocks, blueprint.PageBlock{ID: b.ID, Type: b.ComponentType})
		}
		page.Tabs = append(page.Tabs, pt)
	}
	return page
}
