// Package i18n decides which language a teacher reads and holds every
// message the product itself writes to a teacher (errors, notices, the
// closing words of a failed turn or page), in Chinese and English. A message
// is in one language, never "中文。English" glued together: the language is
// decided once, by one rule (Of), from the request's tag or else from what
// the teacher wrote.
package i18n

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/insightedge/insightedge/shared/apperr"
)

// Lang is a language the product writes its own messages in.
type Lang int

// The languages of the catalogue.
const (
	English Lang = iota
	Chinese
)

// Of is the one language rule: a BCP 47 tag decides when given (zh, zh-CN,
// zh-Hant... are Chinese; any other tag is English); without a tag, the
// teacher's own text decides (any Han character makes it Chinese); with
// neither, the product speaks Chinese, the language of the seeds' users.
func Of(tag string, sample ...string) Lang {
	if tag = strings.TrimSpace(tag); tag != "" {
		if IsChineseTag(tag) {
			return Chinese
		}
		return English
	}
	written := false
	for _, s := range sample {
		if HasHan(s) {
			return Chinese
		}
		written = written || strings.TrimSpace(s) != ""
	}
	if written {
		return English
	}
	return Chinese
}

// IsChineseTag reports whether the BCP 47 tag names Chinese.
func IsChineseTag(tag string) bool {
	t := strings.ToLower(strings.TrimSpace(tag))
	return t == "zh" || strings.HasPrefix(t, "zh-") || strings.HasPrefix(t, "zh_")
}

// HasHan reports whether s contains a Han (Chinese) character.
func HasHan(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
}

// Clip shortens s to at most n runes for display, marking a cut with "…".
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// Tag is the language's BCP 47 tag.
func (l Lang) Tag() string {
	if l == Chinese {
		return "zh-CN"
	}
	return "en-US"
}

// Pick returns zh for Chinese, en otherwise: for the few texts that are
// labels of a document rather than messages of the catalogue.
func (l Lang) Pick(zh, en string) string {
	if l == Chinese {
		return zh
	}
	return en
}

// Pair is a short text in both languages, for texts that belong to one
// component (a tool's progress line) rather than to the catalogue.
type Pair struct{ ZH, EN string }

// In returns the text in l.
func (p Pair) In(l Lang) string { return l.Pick(p.ZH, p.EN) }

// Msg names a message of the catalogue.
type Msg int

// The catalogue's messages.
const (
	// ServiceUnavailable: the turn could not be run at all.
	ServiceUnavailable Msg = iota
	// TurnTimedOut, TurnDataUnavailable, TurnAIUnavailable: a failed turn.
	TurnTimedOut
	TurnDataUnavailable
	TurnAIUnavailable
	// TurnNotVerified: validation gave up on the answer.
	TurnNotVerified
	// PlanFailed, PlanRephrase: the page could not be planned.
	PlanFailed
	PlanRephrase
	// PlanAmbiguous, PlanNotFound take the teacher's mention (%s).
	PlanAmbiguous
	PlanNotFound
	// BuildNotice takes the request (%s): a build request without a plan.
	BuildNotice
	// PageFailed, PageTimedOut, PageDataFailed, PageAIUnavailable: a failed page.
	PageFailed
	PageTimedOut
	PageDataFailed
	PageAIUnavailable
	// PageServiceUnavailable: the build could not start or went silent.
	PageServiceUnavailable
	// Interrupted: the process running the turn, build or run died; it was
	// closed when that was found.
	Interrupted
	// PageComposing, PageTextUnavailable: the compose phase.
	PageComposing
	PageTextUnavailable
	// ToolArgsRetry: a tool's arguments were malformed and the model retries.
	ToolArgsRetry
	// NoticeMockFallback, NoticeMockConfigured: data-notice MOCK_DATA, after
	// a failure of the data service / with USE_MOCK_DATA.
	NoticeMockFallback
	NoticeMockConfigured
	// NoticeStale takes the list's age in minutes (%d): STALE_DATA.
	NoticeStale
	// NoticeIncomplete takes the missing fields (%s); NoticeIncompleteDropped
	// also the number of records left out (%d): INCOMPLETE_DATA.
	NoticeIncomplete
	NoticeIncompleteDropped
	// NoticeLeftOut takes what the statistics leave out (%s): UNGRADED_WORK.
	NoticeLeftOut
	// Ungraded and NoMaxScore take a number of submissions (%d).
	Ungraded
	NoMaxScore
	// The research flow's progress (seed 001 §6): ResearchSearching,
	// ResearchNoResults and ResearchSearchFailed take the query (%s),
	// ResearchFound the number of results and the query (%d, %s).
	ResearchBuilding
	ResearchDrafting
	ResearchSearching
	ResearchFound
	ResearchNoResults
	ResearchSearchFailed
	ResearchChecking
	ResearchCorrecting
	// The research flow's failures: ResearchRejected takes the first
	// problem (%s), ResearchRequestLimit the limit (%d).
	ResearchNoStructure
	ResearchRejected
	ResearchNoMilestones
	ResearchRequestLimit
	ResearchFailed
	ResearchAIUnavailable
	ResearchTimedOut
	ResearchInterrupted
	// StrictNotice, StrictNoResult, StrictToolError: strict mode's reply when
	// the answer did not rest on a tool (seed 003 §4.3: no tool.end, the last
	// tool.end empty, the last tool.end error).
	StrictNotice
	StrictNoResult
	StrictToolError
	// GuideShown: the guide_user tool's progress line.
	GuideShown
	// ToolUnavailable takes what the tool does for the teacher (%s, a
	// tools.Tool.Thing, never the tool's name): a tool that failed.
	// ToolStepFailed is the same for a tool that names no thing.
	ToolUnavailable
	ToolStepFailed
	// ToolNothingFound: a lookup found nothing that matches.
	ToolNothingFound
	// ToolDataFailed, ToolDataUnavailable: a data tool's DATA_ERROR and
	// SERVICE_UNAVAILABLE.
	ToolDataFailed
	ToolDataUnavailable
	// PDFUnavailable: data-notice PDF_UNAVAILABLE, the same document was
	// made as .docx instead.
	PDFUnavailable
	// RefineNotice takes the blocks a patch plan changes (%s); RebuildNotice
	// the page's name, what changes and its number of blocks (%s, %s, %d).
	RefineNotice
	RebuildNotice
	// The template report agent (seed 002). ReportPlanSummary takes the
	// template's title and the number of sections (%s, %d);
	// ReportGivenSections the number (%d); ReportObjective a section's title
	// and place (%s, %s); ReportIgnoredIDs the ids and the number of
	// sections (%v, %d); ReportConfirm the number and the plan summary
	// (%d, %s); ReportRetry the attempt, why and the delay (%d, %s, %s);
	// ReportReady the title, written, all and the path (%s, %d, %d, %s);
	// ReportConfirmTimeout the wait (%s); ReportAgentError the cause (%s).
	// ReportNoTemplate, ReportNoKnowledgeBase, ReportTemplateUnreadable and
	// ReportTemplateNoHeadings take the name the teacher gave or the
	// template's (%s); ReportBackendMissing and ReportBackendFailed the id
	// or file the backend was asked for (%s).
	ReportPlanFallback
	ReportIgnoredIDs
	ReportPlanSummary
	ReportGivenSections
	ReportObjective
	ReportConfirm
	ReportRetry
	ReportSectionCancelled
	ReportSectionFailed
	ReportReady
	ReportDeclined
	ReportConfirmTimeout
	ReportAgentError
	ReportNoTemplate
	ReportNoKnowledgeBase
	ReportTemplateUnreadable
	ReportTemplateNoHeadings
	ReportBackendMissing
	ReportBackendFailed
	numMsgs
)

var catalogue = [numMsgs][2]string{
	ServiceUnavailable:     {"The service is temporarily unavailable; please try again.", "服务暂时不可用，请稍后再试。"},
	TurnTimedOut:           {"The request timed out; please try again.", "处理超时，请稍后再试。"},
	TurnDataUnavailable:    {"The data service is unavailable; please try again.", "数据服务暂时无法获取数据，请稍后再试。"},
	TurnAIUnavailable:      {"The AI service is temporarily unavailable; please try again.", "AI 服务暂时不可用，请稍后再试。"},
	TurnNotVerified:        {"Sorry, the result could not be verified; please try again or rephrase your request.", "抱歉，这次没能完成您要的内容（结果未通过校验），请稍后重试或换个说法。"},
	PlanFailed:             {"The page could not be planned; please try again.", "任务规划失败，请稍后再试。"},
	PlanRephrase:           {"The page could not be planned; please rephrase and try again.", "任务规划失败，请换个说法再试。"},
	PlanAmbiguous:          {"“%s” matches several options; which one do you mean?", "「%s」对应多个选项，您指的是哪一个？"},
	PlanNotFound:           {"Nothing matches “%s”; did you mean one of these?", "没有找到「%s」，您是指以下哪一个？"},
	BuildNotice:            {"This request builds a data-analysis page; use the Build button to generate it. (%s)", "这是一个数据分析页面的请求：请使用「生成页面」按钮来构建它。（%s）"},
	PageFailed:             {"The page could not be built; please try again.", "页面生成失败，请稍后再试。"},
	PageTimedOut:           {"Building the page timed out; please try again.", "页面生成超时，请稍后再试。"},
	PageDataFailed:         {"The data could not be fetched; please try again.", "数据获取失败，请稍后再试。"},
	PageAIUnavailable:      {"The AI service is temporarily unavailable; please try again.", "AI 服务暂时不可用，请稍后再试。"},
	PageServiceUnavailable: {"The page service is temporarily unavailable; please try again.", "页面生成服务暂时不可用，请稍后再试。"},
	Interrupted:            {"This was interrupted because the service restarted; please try again.", "服务重启，本次处理已中断，请重试。"},
	PageComposing:          {"Composing the page…", "正在生成页面…"},
	PageTextUnavailable:    {"(The text could not be written just now; the numbers are not affected.)", "（AI 文字暂时无法生成，以上数据不受影响。）"},
	ToolArgsRetry:          {"The tool's arguments were invalid; retrying.", "参数有误，正在重试。"},
	NoticeMockFallback:     {"The data service is unavailable: this is sample data, not your classes' real data.", "数据服务暂时不可用，以下为示例数据，并非您班级的真实数据。"},
	NoticeMockConfigured:   {"This is sample data (no data service is connected), not your classes' real data.", "当前使用示例数据（未连接数据服务），以下并非您班级的真实数据。"},
	NoticeStale:            {"The data service is unavailable: this class list was saved %d minutes ago and may be out of date.", "数据服务暂时不可用，班级列表是 %d 分钟前保存的，可能不是最新。"},
	NoticeIncomplete:       {"Some records from the data service are incomplete (missing: %s).", "数据服务返回的部分记录不完整（缺少：%s）。"},
	NoticeIncompleteDropped: {"Some records from the data service are incomplete (missing: %s); %d unusable records were left out.",
		"数据服务返回的部分记录不完整（缺少：%s），%d 条记录无法使用，已略去。"},
	NoticeLeftOut:         {"The statistics leave out: %s.", "统计未包括：%s。"},
	Ungraded:              {"%d not graded yet", "%d 份未评分"},
	NoMaxScore:            {"%d without a max score", "%d 份缺少满分"},
	ResearchBuilding:      {"Building the timeline skeleton…", "正在构建时间线骨架…"},
	ResearchDrafting:      {"Listing the key milestones from what is known…", "正在根据已有知识列出关键里程碑…"},
	ResearchSearching:     {"Searching: %s", "正在搜索：%s"},
	ResearchFound:         {"Found %d results: %s", "找到 %d 条结果：%s"},
	ResearchNoResults:     {"No results: %s", "没有搜索结果：%s"},
	ResearchSearchFailed:  {"Search failed: %s", "搜索失败：%s"},
	ResearchChecking:      {"Checking the milestones' dates, significance and sources…", "正在检查里程碑的日期、重要度和来源…"},
	ResearchCorrecting:    {"The milestones failed the checks; correcting them…", "里程碑未通过检查，正在修正…"},
	ResearchNoStructure:   {"The model gave no structured milestones.", "模型没有给出结构化的里程碑结果。"},
	ResearchRejected:      {"The milestones failed the checks again (%s); stopped.", "里程碑多次未通过检查（%s），已停止。"},
	ResearchNoMilestones:  {"No reliable milestones were found for this topic; try a more specific one.", "没有找到这个主题可靠的里程碑，请换一个更具体的主题。"},
	ResearchRequestLimit:  {"Stopped after %d model requests without a timeline.", "已达到 %d 次模型请求的上限，仍未得到时间线。"},
	ResearchFailed:        {"The timeline could not be built; please try again.", "时间线生成失败，请稍后再试。"},
	ResearchAIUnavailable: {"The AI service is temporarily unavailable; please try again.", "AI 服务暂时不可用，请稍后再试。"},
	ResearchTimedOut:      {"Building the timeline timed out; please try again.", "时间线生成超时，请稍后再试。"},
	ResearchInterrupted:   {"The timeline run was interrupted; please start the research again.", "时间线生成中断，请重新发起研究。"},
	StrictNotice: {"Strict mode: I only answer from your data and tools, and this request did not get that far. Tell me which class, student, assignment or document you mean (for example “show the submissions of class 1A”), or ask me to create a quiz or slides.",
		"严格模式：我只依据你的数据和工具结果作答，这次没有形成可靠的依据。请告诉我具体的班级、学生、作业或文档（例如「查看 1A 班的作业提交」），或者让我出题、制作课件。"},
	StrictNoResult: {"Strict mode (no results): the lookup worked but found nothing that matches. Try another class, assignment or keyword, or loosen the conditions.",
		"严格模式（无结果）：查询成功，但没有找到匹配的数据。可以换一个班级、作业或关键词，或者放宽条件再试。"},
	StrictToolError: {"Strict mode (tool error): looking up your data failed. Please try again, simplify the request, or name the class or assignment exactly.",
		"严格模式（工具出错）：查询数据时出错了。请稍后重试、简化需求，或直接给出准确的班级或作业名称。"},
	GuideShown:          {"Suggested what to ask next", "已给出下一步建议"},
	ToolUnavailable:     {"%s is not available right now; please try again later.", "%s暂不可用，请稍后再试。"},
	ToolStepFailed:      {"This step did not work this time; please try again later.", "这一步暂时没有成功，请稍后再试。"},
	ToolNothingFound:    {"Nothing in your data matches this; please check the name or choose from the list.", "没有找到匹配的数据，请核对名称或从列表中选择。"},
	ToolDataFailed:      {"The data could not be fetched: the data service did not return usable data. Please try again later.", "数据获取失败：数据服务这次没有返回可用的数据，请稍后再试。"},
	ToolDataUnavailable: {"The data service is temporarily unavailable; please try again later.", "数据服务暂时不可用，请稍后再试。"},
	PDFUnavailable:      {"PDF export is not available right now, so the same document was made as a Word file (.docx).", "PDF 导出暂不可用，已为您生成内容相同的 Word 文档（.docx）。"},
	RefineNotice:        {"I will change %s on the page; the page is updated in place.", "好的，我将修改页面中的「%s」，页面会在原处更新。"},
	RebuildNotice:       {"I revised the page %q: it %s, %d blocks in all. Build it again to see the change.", "已重新规划页面「%s」：%s，共 %d 个区块。确认后点击「生成页面」重新生成即可查看。"},
	ReportPlanFallback:  {"The planner submitted no usable plan; tasks follow the template's sections.", "规划器未提交可用计划，已按模板章节生成任务。"},
	ReportIgnoredIDs:    {"ignored task ids the template does not have: %v (it has %d sections)", "已忽略模板中不存在的任务编号：%v（模板共 %d 个章节）"},
	ReportPlanSummary:   {"Write %[2]d sections following the template %[1]q", "按模板「%s」撰写 %d 个章节"},
	ReportGivenSections: {"Write the %d given sections", "按指定任务撰写 %d 个章节"},
	ReportObjective: {"Write the section %q (%s) following the template fragment's guidance, from the knowledge base's data, without repeating the heading.",
		"按模板撰写「%s」一节（位置：%s），依据知识库中的数据，遵循模板片段中的提示，不重复标题。"},
	ReportConfirm:          {"The plan has %d sections: %s. Confirm to start writing.", "计划共 %d 个章节：%s。确认后开始撰写。"},
	ReportRetry:            {"attempt %d failed (%s); retrying in %s.", "第 %d 次撰写失败（%s），%s 后重试。"},
	ReportSectionCancelled: {"*(This section was cancelled and not written.)*", "*（本节已取消，未撰写。）*"},
	ReportSectionFailed:    {"*(This section could not be written.)*", "*（本节未能生成。）*"},
	ReportReady:            {"The report %q is ready: %d of %d sections written, saved at %s.", "报告《%s》已生成：%d/%d 个章节已撰写，保存在 %s。"},
	ReportDeclined: {"The plan was not confirmed, so no report was written. Send user.replan to plan again, or user.solve_tasks to pick sections.",
		"计划未获确认，未撰写报告。可发送 user.replan 重新规划，或 user.solve_tasks 指定章节。"},
	ReportConfirmTimeout: {"No confirmation within %s; the run stopped.", "等待确认超时（%s），流程已停止。"},
	// The seed's wording (002: "Agent execution error: ..."), in the session's language.
	ReportAgentError:         {"Agent execution error: %s", "报告生成出错：%s"},
	ReportNoTemplate:         {"no template is named %q", "没有名为“%s”的模板"},
	ReportNoKnowledgeBase:    {"no knowledge base is named %q", "没有名为“%s”的知识库"},
	ReportTemplateUnreadable: {"the template %q could not be read", "模板“%s”无法读取"},
	ReportTemplateNoHeadings: {"the template %q has no headings to write", "模板“%s”中没有可撰写的标题"},
	ReportBackendMissing:     {"the template backend has no %s", "模板服务中找不到 %s"},
	ReportBackendFailed:      {"the template backend failed on %s", "模板服务暂时无法提供 %s"},
}

// Text returns message m in l, formatted with args when it takes any.
func (l Lang) Text(m Msg, args ...any) string {
	if m < 0 || m >= numMsgs {
		return ""
	}
	s := catalogue[m][l]
	if len(args) > 0 {
		return fmt.Sprintf(s, args...)
	}
	return s
}

// Subject says what failed: a conversation turn or a page build.
type Subject int

// The subjects of Failure.
const (
	Turn Subject = iota
	Page
)

// Failure is the message for a failure of subject with code, or a timeout.
func (l Lang) Failure(subject Subject, code apperr.Code, timedOut bool) string {
	data := code == apperr.DataError || code == apperr.ServiceUnavailable
	switch {
	case subject == Turn && timedOut:
		return l.Text(TurnTimedOut)
	case subject == Turn && data:
		return l.Text(TurnDataUnavailable)
	case subject == Turn:
		return l.Text(TurnAIUnavailable)
	case timedOut:
		return l.Text(PageTimedOut)
	case data:
		return l.Text(PageDataFailed)
	case code == apperr.AIError:
		return l.Text(PageAIUnavailable)
	default:
		return l.Text(PageFailed)
	}
}

// MaxTagLen bounds a language tag wherever one enters (a request's
// language, a Blueprint's).
const MaxTagLen = 16

// ValidTag reports whether tag is empty or shaped like a BCP 47 tag ("en",
// "zh-CN", "zh-Hant-HK") of at most MaxTagLen characters: the one rule for
// every language field a client sends.
func ValidTag(tag string) bool {
	if tag == "" {
		return true
	}
	if len(tag) > MaxTagLen {
		return false
	}
	for i, sub := range strings.Split(tag, "-") {
		if len(sub) == 0 || len(sub) > 8 || i == 0 && len(sub) < 2 {
			return false
		}
		for _, c := range sub {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}
