package offlinemodel

import (
	"fmt"
	"strings"

	"github.com/insightedge/insightedge/shared/office/quizexport"
	"github.com/insightedge/insightedge/shared/tools/gentools"
)

// Quiz exports (issue 31): "导出为 Moodle 格式", "export this quiz for
// Canvas", "做成 Kahoot", "再做成 Kahoot" call export_quiz with the format
// the teacher named; the answer says what was exported and, from the
// tool's teacherMessage, what was left out.

const toolExport = gentools.ExportQuiz

// exportFormats are the words that name a format, in the order they are
// tried (Moodle XML before Moodle's other words, paper last).
var exportFormats = []struct {
	format  quizexport.Format
	pattern string
	zh, en  string
}{
	{quizexport.GIFT, `(?i)\bgift\b`, "GIFT 格式（Moodle）", "GIFT (Moodle)"},
	{quizexport.MoodleXML, `(?i)moodle`, "Moodle XML", "Moodle XML"},
	{quizexport.QTI21, `(?i)\bqti\b|canvas|blackboard|schoology|brightspace|\blms\b|学习平台|教学平台`, "QTI 2.1 题库包", "a QTI 2.1 package"},
	{quizexport.Kahoot, `(?i)kahoot`, "Kahoot 表格", "a Kahoot spreadsheet"},
	{quizexport.Quizizz, `(?i)quizizz|wayground`, "Quizizz 表格", "a Quizizz spreadsheet"},
	{quizexport.Paper, `(?i)试卷|打印|纸质|\b(paper|printable|print(ed)?)\b`, "可打印的试卷（Word 和 PDF）", "a printable paper (Word and PDF)"},
}

// exportFormat is the format the teacher's words name, or "".
func exportFormat(s string) quizexport.Format {
	for _, f := range exportFormats {
		if matches(f.pattern, s) {
			return f.format
		}
	}
	return ""
}

// wantsExport is a request to export a quiz: an export verb and a format,
// or a platform named with "for" ("export this quiz for Canvas"). A paper
// asked for without an earlier quiz is a new quiz, not an export.
func wantsExport(c *call) bool {
	s := teacherWords(c.user)
	f := exportFormat(s)
	if f == "" {
		return false
	}
	verb := matches(`(?i)导出|做成|转成|转为|转换|生成|存为|弄成|换成|导入|\b(export|convert|turn|make|save|import|for)\b`, s)
	if f == quizexport.Paper && !containsAny(c.history, "quiz questions generated") {
		return false
	}
	return verb
}

func exportName(l lang, f quizexport.Format) string {
	for _, e := range exportFormats {
		if e.format == f {
			return l.pick(e.zh, e.en)
		}
	}
	return string(f)
}

// exportScenario exports the conversation's latest quiz.
type exportScenario struct{ format quizexport.Format }

func (s *exportScenario) next(st *agentState) action {
	l := st.c.lang
	if !st.c.offers(toolExport) {
		return answer(l.pick("抱歉，这次对话里没有可用的导出工具，我没法导出测验。", "Sorry, the export tool isn't available in this conversation, so I can't export the quiz."))
	}
	last := st.lastCall(toolExport)
	if last == nil {
		return callTool(st.c, toolExport, map[string]any{"format": string(s.format)})
	}
	return finish(s.finish(st))
}

func (s *exportScenario) finish(st *agentState) finalResult {
	l := st.c.lang
	last := st.lastCall(toolExport)
	if last == nil {
		return finalResult{Status: statusAnswer, Message: l.pick("我还没有导出测验。需要的话，我现在就导出为"+exportName(l, s.format)+"。",
			"I haven't exported the quiz yet. I can export it as "+exportName(l, s.format)+" now.")}
	}
	if !last.answered || last.failed {
		return finalResult{Status: statusAnswer, Message: toolFailedMessage(l, last)}
	}
	out, _ := st.need(toolExport, nil)
	note, _ := out["teacherMessage"].(string)
	switch status, _ := out["status"].(string); status {
	case "ready":
	case "nothing_exported":
		return finalResult{Status: statusAnswer, Message: strings.TrimSpace(note + " " +
			l.pick("所以这次没有生成文件。导出为 QTI、Moodle XML、GIFT 或试卷可以保留所有题型。", "So no file was made. QTI, Moodle XML, GIFT or a printable paper keep every kind of question."))}
	default:
		return finalResult{Status: statusAnswer, Message: strings.TrimSpace(note + " " +
			l.pick("可以先让我出一份测验，例如「出 5 道牛顿第一定律的选择题」，再导出。", "You can ask me for a quiz first, e.g. \"5 questions on Newton's first law\", then export it."))}
	}
	var files []string
	for _, f := range list(out, "files") {
		if name, ok := f.(string); ok {
			files = append(files, name)
		}
	}
	n, _ := num(out, "exported")
	msg := l.pick(
		fmt.Sprintf("已把测验导出为%s：%s，共 %d 道题，可以直接下载导入。", exportName(l, s.format), strings.Join(files, "、"), int(n)),
		fmt.Sprintf("I've exported the quiz as %s: %s, %d questions, ready to download and import.", exportName(l, s.format), strings.Join(files, ", "), int(n)))
	if note != "" {
		msg += l.pick("注意：", " Note: ") + note
	}
	return finalResult{Status: statusArtifact, Message: msg, Artifacts: []string{"file"}}
}

func (s *exportScenario) artifact() string { return "file" }

func (s *exportScenario) describe(l lang) string {
	return l.pick("导出为"+exportName(l, s.format)+"的测验", "the quiz as "+exportName(l, s.format))
}

func (s *exportScenario) inline(l lang) string { return "" }
