package offlinemodel

import (
	"encoding/json"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/prompts"
)

var dataToolNames = []string{"get_class_detail", "get_assignment_submissions", "get_student_grades", "get_teacher_classes"}

func plannerRequest(msg string) openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{
		Model:          "offline-standard",
		Messages:       []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: prompts.Planner}, user(msg)},
		ResponseFormat: &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject},
	}
}

func TestPlannerWritesAValidBlueprint(t *testing.T) {
	cases := []struct {
		msg, class, name string
		skills           bool
	}{
		{"分析 1A 班英语成绩", "1A", "1A 班英语成绩分析", true},
		{"Analyse the results of class 1B", "1B", "Class 1B results analysis", false},
		{"analyse 1X english scores", "1X", "Class 1X English results", true},
		{"帮我做一个成绩分析页面", "", "班级成绩分析", false},
	}
	s, c := start(t, Options{})
	for _, tc := range cases {
		t.Run(tc.msg, func(t *testing.T) {
			bothModes(t, func(t *testing.T, stream bool) {
				r := complete(t, c, plannerRequest(tc.msg), stream)
				bp, err := blueprint.Parse([]byte(r.content))
				if err != nil {
					t.Fatal(err)
				}
				if err := blueprint.Validate(bp, dataToolNames); err != nil {
					t.Fatal(err)
				}
				if bp.Name != tc.name || bp.DataContract.Inputs[0].Value != tc.class {
					t.Errorf("name %q class %q", bp.Name, bp.DataContract.Inputs[0].Value)
				}
				_, hasSkills := bp.Node("bySkill")
				if hasSkills != tc.skills {
					t.Errorf("skill breakdown %v, want %v", hasSkills, tc.skills)
				}
				types := map[string]bool{}
				for _, b := range bp.Blocks() {
					types[b.ComponentType] = true
				}
				if len(types) != 6 {
					t.Errorf("component types %v: want all six", types)
				}
			})
		})
	}
	if got := s.Requests()[0].Kind; got != KindPlanner {
		t.Errorf("kind %q", got)
	}
	// A corrected attempt plans from the teacher's request, not the complaint.
	req := plannerRequest("分析 1A 班英语成绩")
	req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: "assistant", Content: "{}"},
		user("The blueprint was refused: name: is required"))
	r := complete(t, c, req, false)
	if bp, err := blueprint.Parse([]byte(r.content)); err != nil || bp.DataContract.Inputs[0].Value != "1A" {
		t.Errorf("correction: %v %+v", err, bp.DataContract.Inputs)
	}
}

// writerData is a class's compute results as blueprint/compute writes them.
const writerData = `{
 "scoreStats":{"metric":"percent","per":"student","count":35,"mean":66.66607,"median":65.6875,"stdDev":13.0166,"min":40.3125,"max":95.375,
   "p25":58.75,"p75":77,"p90":83.625,"passMark":60,"passCount":24,"passRate":0.685714},
 "scoreDistribution":{"metric":"percent","per":"student","count":35,"bins":[{"label":"0–59","count":11},{"label":"60–69","count":9},
   {"label":"70–79","count":8},{"label":"80–89","count":5},{"label":"90–100","count":2}]},
 "byAssignment":{"metric":"percent","groupBy":"assignment","passMark":60,"groups":[{"key":"a1","label":"Grammar Quiz","mean":66.9,"passRate":0.7},
   {"key":"a2","label":"Writing Task","mean":61.2,"passRate":0.55}]},
 "bySkill":{"metric":"skill","groupBy":"skill","passMark":60,"groups":[{"key":"grammar","label":"grammar","mean":58.3,"passRate":0.4},
   {"key":"reading","label":"reading","mean":71.9,"passRate":0.8}]},
 "studentRanking":{"metric":"percent","per":"student","count":35,"top":[{"rank":1,"studentName":"Chan Tai Man","value":95.375}],
   "bottom":[{"rank":35,"studentName":"Lee Siu Ming","value":40.3125}]}}`

func writerRequestFor(t *testing.T, blockType, slot, lang, change string) openai.ChatCompletionRequest {
	t.Helper()
	return writerRequestOf(t, writerData, blockType, slot, lang, change)
}

func writerRequestOf(t *testing.T, computed, blockType, slot, lang, change string) openai.ChatCompletionRequest {
	t.Helper()
	var data map[string]json.RawMessage
	if err := json.Unmarshal([]byte(computed), &data); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"page": "1A", "dataSource": "Form 1A · English",
		"block": map[string]string{"id": "b", "type": blockType}, "slot": slot, "instruction": "write", "language": lang,
		"change": change, "data": data})
	return openai.ChatCompletionRequest{Model: "offline-standard", Stream: true, Messages: []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: prompts.Writer}, user(string(body))}}
}

// A class whose skills are half a point apart has no weak spot: no block
// of its page may call one skill the weak one or ask for drills on it (a
// teacher's first hour found "语法是短板" for a 0.5-point gap), nor one of
// four assignments within a point of each other the hardest; the summary
// does not repeat its block's heading.
func TestWriterCallsNoWeakSpotForAnEvenClass(t *testing.T) {
	even := strings.NewReplacer(`"mean":71.9,"passRate":0.8`, `"mean":58.8,"passRate":0.45`,
		`"mean":61.2,"passRate":0.55`, `"mean":65.9,"passRate":0.68`).Replace(writerData)
	if strings.Count(even, "58.8,") != 1 || strings.Count(even, "65.9,") != 1 {
		t.Fatal("the fixture's reading skill or writing task moved")
	}
	_, c := start(t, Options{})
	cases := []struct {
		blockType, slot, lang string
		want, not             []string
	}{
		{"markdown", "content", "zh-CN", []string{"平均得分率 66.7%"}, []string{"最弱的技能", "### 分析总结"}},
		{"markdown", "content", "en", []string{"mean 66.7%"}, []string{"Weakest skill", "### Summary"}},
		{"insight_list", "content", "zh-CN", []string{"各项技能相近", "各项作业难度相近"}, []string{"短板", "最难"}},
		{"table", "caption", "zh-CN", []string{"各项作业表现相近"}, []string{"最弱", "表现最好"}},
		{"suggestion_list", "content", "zh-CN", []string{"- [high] 辅导未及格"}, []string{"针对语法"}},
		{"suggestion_list", "content", "en", []string{"- [low]"}, []string{"Targeted grammar"}},
	}
	for _, tc := range cases {
		t.Run(tc.blockType+"/"+tc.lang, func(t *testing.T) {
			got := complete(t, c, writerRequestOf(t, even, tc.blockType, tc.slot, tc.lang, ""), true).content
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("%q says %q for a 0.5-point gap", got, n)
				}
			}
		})
	}
}

func TestWriterUsesTheNumbers(t *testing.T) {
	cases := []struct {
		blockType, slot, lang, change string
		contains                      []string
	}{
		{"markdown", "content", "zh-CN", "", []string{"Form 1A · English 共 35 名学生", "66.7%", "65.7%", "24 人", "68.6%", "「Writing Task」", "语法（58.3%）"}},
		{"markdown", "content", "en", "", []string{"35 students, mean 66.7%", "Weakest skill: grammar (58.3%)"}},
		{"insight_list", "content", "en", "", []string{"- Overall level: mean 66.7%, pass rate 68.6%.", "- grammar is the weak spot", "Chan Tai Man at 95.4%"}},
		{"suggestion_list", "content", "zh-CN", "", []string{"- [high] 针对语法", "- [high] 辅导未及格的 11 名学生", "- [low]"}},
		{"chart", "caption", "en", "", []string{"0–59 band (11)"}},
		{"table", "caption", "zh-CN", "", []string{"「Grammar Quiz」表现最好（66.9%）"}},
		{"markdown", "content", "zh-CN", "请写得更简短", []string{"66.7%"}},
		{"markdown", "content", "en", "mention the parents' evening", []string{"(Adjusted as asked: mention the parents' evening)"}},
	}
	s, c := start(t, Options{})
	full := complete(t, c, writerRequestFor(t, "markdown", "content", "zh-CN", ""), true).content
	for _, tc := range cases {
		t.Run(tc.blockType+"/"+tc.lang+"/"+tc.change, func(t *testing.T) {
			r := complete(t, c, writerRequestFor(t, tc.blockType, tc.slot, tc.lang, tc.change), true)
			if strings.Join(r.deltas, "") != r.content || len(r.deltas) < 2 {
				t.Errorf("the text must stream: %d deltas", len(r.deltas))
			}
			for _, want := range tc.contains {
				if !strings.Contains(r.content, want) {
					t.Errorf("%q lacks %q", r.content, want)
				}
			}
			if strings.Contains(tc.change, "简短") && len(r.content) >= len(full) {
				t.Errorf("a shorter text was asked for: %q", r.content)
			}
		})
	}
	if got := s.Requests()[0].Kind; got != KindWriter {
		t.Errorf("kind %q", got)
	}
}
