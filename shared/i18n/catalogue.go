package i18n

// Msg names a message of the catalogue.
type Msg int

// The catalogue's messages. A message is a format (fmt) in both languages;
// the comment above a group says which arguments its messages take. The
// zero Msg, None, is no message: its text is "".
const (
	None Msg = iota
	// ServiceUnavailable: the turn could not be run at all.
	ServiceUnavailable
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
	// RefineUnchanged takes the blocks already as the teacher asked (%s).
	RefineUnchanged
	RebuildNotice
	// The template report agent (seed 002). ReportPlanSummary takes the
	// template's title and the number of sections (%s, %d);
	// ReportGivenSections the number (%d); ReportObjective a section's title
	// and place (%s, %s); ReportIgnoredIDs the ids and the number of
	// sections (%v, %d); ReportConfirm the number and the plan summary
	// (%d, %s); ReportRetry the attempt, why and the delay (%d, %s, %s);
	// ReportReady the title, written and all (%s, %d, %d);
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

	// PageFetching, PageComputing: a page build's data and compute phases.
	PageFetching
	PageComputing
	// EntityNotFound takes the teacher's mention (%s): a page's data names
	// a class, student... that matches nothing (PlanAmbiguous and
	// PlanNotFound when it matches several or comes with suggestions).
	EntityNotFound
	// RebuildAdds and RebuildRemoves take the blocks' names (%s): the parts
	// of RebuildNotice's change; RebuildAdjusts is the change without them.
	RebuildAdds
	RebuildRemoves
	RebuildAdjusts
	// ListSeparator joins the items of a list ("a、b"), ClauseSeparator the
	// clauses of a sentence ("adds a; removes b"), CountSeparator the counts
	// of what statistics leave out.
	ListSeparator
	ClauseSeparator
	CountSeparator
	// The page's labels (a chart's series, a table's headers, a KPI's
	// label). LabelMeanOf takes a skill's name (%s).
	LabelCount
	LabelMedian
	LabelMin
	LabelMax
	LabelPassRate
	LabelPassRateAt
	LabelStdDev
	LabelRank
	LabelStudent
	LabelStudents
	LabelSubmissions
	LabelAssignment
	LabelSkill
	LabelMeanScore
	LabelMeanPercent
	LabelMeanOf
	// The English skills' names (Skill), and the whole of them.
	SkillOverall
	SkillGrammar
	SkillVocabulary
	SkillReading
	SkillWriting

	// The school subjects, by the data service's English names (Lang.Subject).
	SubjectEnglish
	SubjectMathematics
	SubjectPhysics
	SubjectChineseLanguage
	// The data tools (shared/tools/datatools): the progress lines while
	// each runs (…Running) and what they do for the teacher (DataThing).
	DataClassesRunning
	DataClassRunning
	DataGradesRunning
	DataSubmissionsRunning
	DataDocumentsRunning
	DataRubricRunning
	DataRubricsRunning
	DataWeaknessRunning
	DataErrorsRunning
	DataThing
	// The data tools' results: DataClasses, DataErrors, DataDocuments and
	// DataRubrics take a number (%d); DataClass the class's name and its
	// numbers of students and assignments (%s, %d, %d); DataSubmissions the
	// number and what the statistics leave out (%d, %s: a DataLeftOut or
	// ""); DataGrades the student's name, the number and the same (%s, %d,
	// %s); DataRubric the rubric's title (%s); DataWeakness the class's name,
	// the number of students and the skill's name (%s, %d, %s).
	DataClasses
	DataClass
	DataSubmissions
	DataGrades
	DataErrors
	DataDocuments
	DataRubrics
	DataRubric
	DataWeakness
	// DataLeftOut takes what the statistics leave out (%s: Ungraded and
	// NoMaxScore joined by CountSeparator).
	DataLeftOut
	// The field names of the data contract, for NoticeIncomplete.
	FieldClassID
	FieldClassName
	FieldClassGrade
	FieldClassSubject
	FieldClassStudentCount
	FieldClassTeacher
	FieldClassOtherTeacher
	FieldStudentID
	FieldStudentName
	FieldAssignmentID
	FieldAssignmentTitle
	FieldAssignmentMaxScore
	FieldSubmissionStudentID
	FieldSubmissionStudentName
	FieldSubmissionScore
	FieldSubmissionMaxScore
	FieldSubmissionAssignmentID
	FieldSubmissionAssignmentTitle
	// The generation tools (shared/tools/gentools, quiz, guide): progress
	// lines (…Running) and what they do for the teacher (…Thing).
	OutlineRunning
	OutlineThing
	SlidesRunning
	SlidesThing
	DocxRunning
	DocxThing
	PDFRunning
	PDFThing
	InteractiveRunning
	InteractiveThing
	HTMLRunning
	HTMLThing
	QuizRunning
	QuizThing
	GuideRunning
	// The generation tools' results: OutlineReady and QuizReady take a
	// number (%d), SlidesReady and FileReady a file's name (%s),
	// InteractiveReady the page's title (%s).
	OutlineReady
	SlidesReady
	FileReady
	InteractiveReady
	QuizReady
	// A document's labels: its kind (KindLessonPlan, KindLectureNotes,
	// KindHomework) and a homework sheet's fields to fill in.
	KindLessonPlan
	KindLectureNotes
	KindHomework
	FieldName
	FieldClass
	FieldDate
	// PlanNotice takes the page's name, its numbers of data sources,
	// computations and blocks, and PlanNoticeScope or "" (%s, %d, %d, %d,
	// %s); PlanNoticeScope the data's names (%s): a page planned.
	PlanNotice
	PlanNoticeScope
	// PlanOtherSubject takes the class, the subject asked about and the
	// class's own subject (%s, %s, %s): a class used for another subject.
	PlanOtherSubject
	// A document's page numbers: PageNumber takes the page's (%d),
	// PageNumberOf the page's and the count's (%s, %s: Word fields);
	// FieldSeparator parts a field's name from its blank ("Name: ___").
	PageNumber
	PageNumberOf
	FieldSeparator
	// The interactive page's controls and footer (shared/office/htmlpage).
	UIFlipHint
	UIShowAll
	UIHideAll
	UIShuffle
	UICard
	UIScore
	UIRetry
	UICorrect
	UIWrong
	UIExplanation
	UIShowAnswer
	UIPrev
	UINext
	UIStepOf
	UIDone
	UIAnswer
	UIFooter
	// The report's file tools (shared/report/vfs): progress lines.
	ListTemplatesRunning
	ListFilesRunning
	ReadFileRunning
	SplitTreeRunning
	// issue 30: the template report's system.error (a backend down, an
	// internal failure). ReportSystemError takes the cause (%s).
	ReportSystemError
	ReportInternalError
	// issue 26: fair use. A RATE_LIMITED refusal, by limit; each takes the
	// limit (%d) and the wait in seconds (%d).
	LimitConcurrentTurns
	LimitTurnsPerMinute
	LimitBuildsPerHour
	LimitResearchPerDay
	LimitReportsPerDay
	LimitTokensPerDay
	LimitSchoolTokensPerDay
	// issue 24: SocketEventTooLarge takes the event's seq (%d): an event
	// larger than a WebSocket message, not posted to the socket.
	SocketEventTooLarge
	// issue 31: quiz exports (shared/office/quizexport, the export_quiz
	// tool). QuizTrue and QuizFalse are a true/false question's options;
	// the Paper* texts label the printable paper; PaperSubtitle takes the
	// number of questions (%d). ExportReady takes the files' names, listed,
	// and the number of questions exported (%s, %d); ExportLeftOut and ExportConverted a
	// question's number and an ExportReason* (%d, %s); ExportNotice the
	// notes, listed (%s).
	QuizTrue
	QuizFalse
	PaperQuestions
	PaperAnswerKey
	PaperSubtitle
	PaperColNumber
	PaperColAnswer
	PaperColExplanation
	ExportQuizRunning
	ExportQuizThing
	ExportReady
	ExportNoQuiz
	ExportLeftOut
	ExportConverted
	ExportNotice
	ExportReasonOpen
	ExportReasonOptions
	ExportReasonLong
	ExportReasonManual
	ExportReasonNoAnswer
	QuizTitle
	// issue 28: rollout and kill switches, safety flags. Paused* say a
	// capability is paused by the operators (data-notice CAPABILITY_PAUSED);
	// Declined is the answer to a request the router flagged harmful, with
	// DeclinedGuide and DeclinedSuggest* as its guide; Privacy is the
	// STUDENT_PRIVACY notice.
	PausedTools
	PausedPageBuilds
	PausedResearch
	PausedTemplateReports
	PausedFileGeneration
	Declined
	DeclinedGuide
	DeclinedSuggestData
	DeclinedSuggestQuiz
	DeclinedSuggestLesson
	Privacy
	// issue 28: a data tool's AUTH_ERROR, the data service's 403: the
	// teacher may not see that data (seed 004 §5.2), which is neither an
	// outage nor "not found".
	ToolDataForbidden
	// issue 29: ToolNotRun ends the progress of a tool call shown while
	// the model wrote it, when the round ended without running it.
	ToolNotRun
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
	RefineUnchanged:     {"Nothing was changed: %s already looks the way you asked. Say which block to change, and into what.", "页面没有改动：「%s」已经是你要的样子。请说明要改哪一块、改成什么。"},
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
	ReportReady:            {"The report %q is ready: %d of %d sections written; download it with the links below.", "报告《%s》已生成：%d/%d 个章节已撰写，可用下方的链接下载。"},
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

	PageFetching:  {"Fetching the data…", "正在获取数据…"},
	PageComputing: {"Computing the statistics…", "正在计算统计数据…"},

	EntityNotFound: {"Nothing matches “%s”.", "没有找到「%s」。"},

	RebuildAdds:    {"adds %s", "新增%s"},
	RebuildRemoves: {"removes %s", "移除%s"},
	RebuildAdjusts: {"adjusts the existing blocks", "调整已有区块"},

	ListSeparator:   {", ", "、"},
	ClauseSeparator: {"; ", "，"},
	CountSeparator:  {", ", "，"},

	LabelCount:       {"Count", "人数"},
	LabelMedian:      {"Median", "中位数"},
	LabelMin:         {"Min", "最低"},
	LabelMax:         {"Max", "最高"},
	LabelPassRate:    {"Pass rate", "及格率"},
	LabelPassRateAt:  {"Pass rate (≥ %s)", "及格率（≥ %s）"},
	LabelStdDev:      {"Std dev", "标准差"},
	LabelRank:        {"Rank", "排名"},
	LabelStudent:     {"Student", "学生"},
	LabelStudents:    {"Students", "学生人数"},
	LabelSubmissions: {"Submissions", "提交数"},
	LabelAssignment:  {"Assignment", "作业"},
	LabelSkill:       {"Skill", "技能"},
	LabelMeanScore:   {"Mean score", "平均分"},
	LabelMeanPercent: {"Mean (%%)", "平均得分率"},
	LabelMeanOf:      {"Mean %s", "平均%s"},

	SkillOverall:    {"overall", "整体"},
	SkillGrammar:    {"grammar", "语法"},
	SkillVocabulary: {"vocabulary", "词汇"},
	SkillReading:    {"reading", "阅读"},
	SkillWriting:    {"writing", "写作"},

	SubjectEnglish:         {"English", "英语"},
	SubjectMathematics:     {"Mathematics", "数学"},
	SubjectPhysics:         {"Physics", "物理"},
	SubjectChineseLanguage: {"Chinese Language", "中文"},

	DataClassesRunning:     {"Fetching the classes…", "正在获取班级数据…"},
	DataClassRunning:       {"Fetching the class…", "正在获取班级详情…"},
	DataGradesRunning:      {"Fetching the student's grades…", "正在获取学生成绩…"},
	DataSubmissionsRunning: {"Fetching the submissions…", "正在获取作业提交…"},
	DataDocumentsRunning:   {"Searching your documents…", "正在搜索教学文档…"},
	DataRubricRunning:      {"Fetching the rubric…", "正在获取评分标准…"},
	DataRubricsRunning:     {"Listing the rubrics…", "正在获取评分标准列表…"},
	DataWeaknessRunning:    {"Analysing the students' weak points…", "正在分析学生薄弱项…"},
	DataErrorsRunning:      {"Fetching the student's common mistakes…", "正在获取学生常见错误…"},
	DataThing:              {"Looking up your data", "数据查询"},

	DataClasses:     {"%d classes", "已获取 %d 个班级"},
	DataClass:       {"%s: %d students, %d assignments", "已获取 %s 详情：%d 名学生，%d 项作业"},
	DataSubmissions: {"%d submissions%s", "已获取 %d 份提交%s"},
	DataGrades:      {"%[2]d grades for %[1]s%[3]s", "已获取 %s 的 %d 项成绩%s"},
	DataErrors:      {"%d error patterns", "已获取 %d 种常见错误"},
	DataDocuments:   {"%d documents", "找到 %d 份文档"},
	DataRubrics:     {"%d rubrics", "已获取 %d 个评分标准"},
	DataRubric:      {"Rubric: %s", "已获取评分标准：%s"},
	DataWeakness:    {"%s: %d students ranked by %s", "已分析 %s %d 名学生的%s表现"},
	DataLeftOut:     {" (%s: not in the statistics)", "（%s，未计入统计）"},

	FieldClassID:                   {"class id", "班级编号"},
	FieldClassName:                 {"class name", "班级名称"},
	FieldClassGrade:                {"grade", "年级"},
	FieldClassSubject:              {"subject", "科目"},
	FieldClassStudentCount:         {"number of students", "学生人数"},
	FieldClassTeacher:              {"teacher", "任课教师"},
	FieldClassOtherTeacher:         {"another teacher's class", "其他教师的班级"},
	FieldStudentID:                 {"student id", "学生编号"},
	FieldStudentName:               {"student name", "学生姓名"},
	FieldAssignmentID:              {"assignment id", "作业编号"},
	FieldAssignmentTitle:           {"assignment title", "作业名称"},
	FieldAssignmentMaxScore:        {"assignment max score", "作业满分"},
	FieldSubmissionStudentID:       {"submission's student id", "提交的学生编号"},
	FieldSubmissionStudentName:     {"submission's student name", "提交的学生姓名"},
	FieldSubmissionScore:           {"score", "分数"},
	FieldSubmissionMaxScore:        {"submission's max score", "提交的满分"},
	FieldSubmissionAssignmentID:    {"submission's assignment id", "提交的作业编号"},
	FieldSubmissionAssignmentTitle: {"submission's assignment title", "提交的作业名称"},

	OutlineRunning:     {"Drafting the outline…", "正在拟定课件提纲…"},
	OutlineThing:       {"The slide outline", "课件提纲"},
	SlidesRunning:      {"Making the slides…", "正在生成课件…"},
	SlidesThing:        {"Making slides", "课件生成"},
	DocxRunning:        {"Writing the document…", "正在撰写文稿…"},
	DocxThing:          {"Making Word documents", "Word 文档生成"},
	PDFRunning:         {"Making the PDF…", "正在生成 PDF…"},
	PDFThing:           {"PDF export", "PDF 导出"},
	InteractiveRunning: {"Making the interactive page…", "正在制作互动网页…"},
	InteractiveThing:   {"Making interactive pages", "互动网页制作"},
	HTMLRunning:        {"Making the page…", "正在制作网页…"},
	HTMLThing:          {"Making web pages", "网页制作"},
	QuizRunning:        {"Writing questions…", "正在出题…"},
	QuizThing:          {"Writing questions", "出题"},
	GuideRunning:       {"Preparing suggestions…", "正在整理建议…"},

	OutlineReady:     {"Outline ready (%d slides): please confirm", "提纲已生成（%d 页），请确认"},
	SlidesReady:      {"Slides ready: %s", "课件已生成：%s"},
	FileReady:        {"File ready: %s", "文件已生成：%s"},
	InteractiveReady: {"Interactive page ready: %s", "互动网页已生成：%s"},
	QuizReady:        {"Questions ready: %d", "已生成 %d 道题"}, // quality pass: "1 questions ready" read wrong

	KindLessonPlan:   {"Lesson plan", "教案"},
	KindLectureNotes: {"Lecture notes", "讲稿"},
	KindHomework:     {"Homework", "课后作业"},
	FieldName:        {"Name", "姓名"},
	FieldClass:       {"Class", "班级"},
	FieldDate:        {"Date", "日期"},

	PlanNotice: {"I planned the page %q: %d data sources, %d computations and %d blocks%s. Use Build to generate it.",
		"已为您规划页面「%s」：%d 个数据来源、%d 项计算、%d 个区块%s。点击「生成页面」即可查看。"},
	PlanNoticeScope: {", for %s", "，数据范围：%s"},
	PlanOtherSubject: {"%s has no %s results: the page analyses its %s results instead.",
		"%s 没有%s科的成绩，页面分析的是该班的%s成绩。"},

	PageNumber:     {"Page %d", "第 %d 页"},
	PageNumberOf:   {"Page %s of %s", "第 %s 页，共 %s 页"},
	FieldSeparator: {": ", "："},

	UIFlipHint:    {"Click a card to flip it, or Tab to it and press Space", "点击卡片翻面，或用 Tab 选中后按空格键"},
	UIShowAll:     {"Flip all", "全部翻开"},
	UIHideAll:     {"Hide all", "全部合上"},
	UIShuffle:     {"Shuffle", "打乱顺序"},
	UICard:        {"Card", "卡片"},
	UIScore:       {"Score", "得分"},
	UIRetry:       {"Try again", "重新作答"},
	UICorrect:     {"Correct!", "回答正确！"},
	UIWrong:       {"Not quite: the answer is", "再想想：正确答案是"},
	UIExplanation: {"Explanation", "解析"},
	UIShowAnswer:  {"Show answer", "显示答案"},
	UIPrev:        {"Back", "上一步"},
	UINext:        {"Next", "下一步"},
	UIStepOf:      {"Step", "步骤"},
	UIDone:        {"Done", "完成"},
	UIAnswer:      {"Answer", "答案"},
	UIFooter:      {"Made with InsightEdge; works offline", "本页由 InsightEdge 生成，可离线使用"},

	ListTemplatesRunning: {"Listing the templates", "正在列出模板"},
	ListFilesRunning:     {"Listing the files", "正在列出文件"},
	ReadFileRunning:      {"Reading a file", "正在读取文件"},
	SplitTreeRunning:     {"Reading the template's structure", "正在解析模板结构"},

	// issue 30: the template report's system.error.
	ReportSystemError:   {"System error: %s", "系统错误：%s"},
	ReportInternalError: {"the report service failed internally, please try again", "报告服务内部出错，请稍后重试"},
	// issue 26: fair use.
	LimitConcurrentTurns:    {"You already have %d conversations running. Please wait for one to finish (about %d s) and try again.", "你已有 %d 个对话正在进行，请等其中一个完成（约 %d 秒）后再试。"},
	LimitTurnsPerMinute:     {"You have sent %d messages this minute. Please try again in %d s.", "你这一分钟已发送 %d 条消息，请 %d 秒后再试。"},
	LimitBuildsPerHour:      {"You have built %d pages this hour. Please try again in %d s.", "你这一小时已生成 %d 个页面，请 %d 秒后再试。"},
	LimitResearchPerDay:     {"You have started %d research timelines today. Please try again in %d s.", "你今天已发起 %d 次研究时间线，请 %d 秒后再试。"},
	LimitReportsPerDay:      {"You have started %d template reports today. Please try again in %d s.", "你今天已发起 %d 份模板报告，请 %d 秒后再试。"},
	LimitTokensPerDay:       {"You have used today's AI budget (%d tokens). It renews in %d s.", "你今天的 AI 用量（%d tokens）已用完，将于 %d 秒后恢复。"},
	LimitSchoolTokensPerDay: {"Your school has used today's AI budget (%d tokens). It renews in %d s.", "你所在学校今天的 AI 用量（%d tokens）已用完，将于 %d 秒后恢复。"},
	// issue 24
	SocketEventTooLarge: {"Event %d is too large for the socket; read it from the session's event stream", "事件 %d 过大，无法通过 WebSocket 发送，请从会话的事件流读取"},
	// issue 31: quiz exports
	QuizTrue:             {"True", "正确"},
	QuizFalse:            {"False", "错误"},
	PaperQuestions:       {"Questions", "试题"},
	PaperAnswerKey:       {"Answer key", "答案与解析"},
	PaperSubtitle:        {"%d questions", "共 %d 题"},
	PaperColNumber:       {"No.", "题号"},
	PaperColAnswer:       {"Answer", "答案"},
	PaperColExplanation:  {"Explanation", "解析"},
	ExportQuizRunning:    {"Exporting the quiz", "正在导出测验"},
	ExportQuizThing:      {"Quiz export", "测验导出"},
	ExportReady:          {"The quiz is exported: %s (%d questions).", "测验已导出：%s（%d 道题）。"},
	ExportNoQuiz:         {"There is no quiz in this conversation to export yet.", "本对话中还没有可导出的测验。"},
	ExportLeftOut:        {"question %d was left out: %s", "第 %d 题未导出：%s"},
	ExportConverted:      {"question %d was adapted: %s", "第 %d 题已调整：%s"},
	ExportNotice:         {"Not every question fits this format as it is: %s.", "部分题目无法按原样导出：%s。"},
	ExportReasonOpen:     {"this format holds choice questions only", "该格式只支持选择题"},
	ExportReasonOptions:  {"it has more options than this format holds", "选项数超过该格式的上限"},
	ExportReasonLong:     {"a text was shortened to the template's length limit", "文字超出模板长度限制，已截短"},
	ExportReasonManual:   {"it is an open question, to be graded by hand", "为主观题，需人工批改"},
	ExportReasonNoAnswer: {"its answer matches no option, so it is exported as an open question", "答案与选项不对应，已按主观题导出"},
	QuizTitle:            {"Quiz", "测验"},
	// issue 28: rollout and kill switches, safety flags
	PausedTools:           {"Tools are paused for now: this answer uses no class data and makes no files.", "工具功能暂时暂停：本次回答不查询班级数据，也不生成文件。"},
	PausedPageBuilds:      {"Building pages is paused for now. Please try again later.", "页面生成功能暂时暂停，请稍后再试。"},
	PausedResearch:        {"Research timelines are paused for now. Please try again later.", "研究时间线功能暂时暂停，请稍后再试。"},
	PausedTemplateReports: {"Template reports are paused for now. Please try again later.", "模板报告功能暂时暂停，请稍后再试。"},
	PausedFileGeneration:  {"Making files is paused for now: this answer comes without files.", "文件生成功能暂时暂停：本次回答不生成文件。"},
	Declined:              {"I can't help with this request: it could harm pupils or others.", "抱歉，这个请求可能对学生或他人造成伤害，我无法提供帮助。"},
	DeclinedGuide:         {"I can help with your teaching: class data, quizzes, lesson materials and pages.", "我可以协助您的教学工作：班级数据分析、测验、教学材料和互动页面。"},
	DeclinedSuggestData:   {"Show the latest results of my class", "查看我班级最近的成绩"},
	DeclinedSuggestQuiz:   {"Make a 10-question quiz on fractions", "出一份 10 道题的分数测验"},
	DeclinedSuggestLesson: {"Draft a lesson plan on photosynthesis", "写一份光合作用的教案"},
	Privacy:               {"This request is about a pupil's private information: the answer leaves out what the task does not need.", "该请求涉及学生的个人隐私信息：回答将略去与任务无关的内容。"},
	// issue 28
	ToolDataForbidden: {"You do not have permission to see this data: the data service shows a teacher only their own classes and students.",
		"您没有权限查看这些数据：数据服务只向教师开放其本人任教班级和学生的数据。"},
	// issue 29
	ToolNotRun: {"Not needed for this answer", "本次回答无需此步骤"},
}

// skills are the messages that name the English skills (Lang.Skill).
var skills = map[string]Msg{
	"overall": SkillOverall, "grammar": SkillGrammar, "vocabulary": SkillVocabulary,
	"reading": SkillReading, "writing": SkillWriting,
}

var subjects = map[string]Msg{
	"english": SubjectEnglish, "mathematics": SubjectMathematics, "physics": SubjectPhysics,
	"chinese language": SubjectChineseLanguage,
}
