package offlinemodel

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// The stand-in reads the teacher's words with the keyword heuristics below.
// They live here only: the product never routes by keywords.

// lang is the language the stand-in answers in: the user's.
type lang int

const (
	en lang = iota
	zh
)

// detectLang answers in Chinese when the text has any Han character.
func detectLang(s string) lang {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return zh
		}
	}
	return en
}

func (l lang) pick(zhText, enText string) string {
	if l == zh {
		return zhText
	}
	return enText
}

func (l lang) code() string { return l.pick("zh", "en") }

// matches reports whether s matches pattern.
func matches(pattern, s string) bool { return compiled(pattern).MatchString(s) }

func submatch(pattern, s string) []string { return compiled(pattern).FindStringSubmatch(s) }

// patterns holds the stand-in's patterns compiled, each on its first use:
// compiling them again for every request was a quarter of the memory an
// answer allocated. It stays bounded: every pattern is a literal of this
// package (never built from a request), and a *regexp.Regexp is safe for
// concurrent use and never changes.
var patterns sync.Map // pattern → *regexp.Regexp

func compiled(pattern string) *regexp.Regexp {
	if re, ok := patterns.Load(pattern); ok {
		return re.(*regexp.Regexp)
	}
	re, _ := patterns.LoadOrStore(pattern, regexp.MustCompile(pattern))
	return re.(*regexp.Regexp)
}

// containsAny reports whether s contains one of words (s lower-cased by the caller).
func containsAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// classMention finds a class named like "1A", "Form 1B" or "1A 班" and
// returns it normalised ("1A"), or "".
func classMention(s string) string {
	if m := submatch(`\b(\d{1,2}[A-H])\b`, s); m != nil {
		return m[1]
	}
	if m := submatch(`(?i)\b(?:form|class)\s*(\d{1,2}[a-h])\b`, s); m != nil {
		return strings.ToUpper(m[1])
	}
	return ""
}

// className is how the answer names a class the teacher mentioned.
func className(l lang, class string) string {
	return l.pick(class+" 班", "class "+class)
}

// numberWord parses "5", "五", "十二", "两", "five".
func numberWord(s string) (int, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, true
	}
	words := map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
		"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "a few": 3, "several": 5}
	if n, ok := words[strings.ToLower(s)]; ok {
		return n, true
	}
	digits := map[rune]int{'一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9, '几': 3}
	rs := []rune(s)
	switch {
	case len(rs) == 1 && rs[0] == '十':
		return 10, true
	case len(rs) == 1:
		n, ok := digits[rs[0]]
		return n, ok
	case len(rs) == 2 && rs[0] == '十':
		n, ok := digits[rs[1]]
		return 10 + n, ok
	case len(rs) == 2 && rs[1] == '十':
		n, ok := digits[rs[0]]
		return n * 10, ok
	case len(rs) == 3 && rs[1] == '十':
		a, ok1 := digits[rs[0]]
		b, ok2 := digits[rs[2]]
		return a*10 + b, ok1 && ok2
	}
	return 0, false
}

// questionCount finds how many questions the teacher asks for; 0 if not said.
func questionCount(s string) int {
	patterns := []string{
		`(\d+|[一二两三四五六七八九十几]+)\s*(?:道|题|个(?:题|小题|问题))`,
		`(?i)\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|a few|several)[\s-]+(?:more\s+)?(?:[a-z/-]+\s+){0,3}(?:questions?|items?|mcqs?|problems?|exercises?)\b`,
		`(?i)\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+more\b`,
		`(?i)\banother\s+(\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b`,
	}
	for _, p := range patterns {
		if m := submatch(p, s); m != nil {
			if n, ok := numberWord(m[1]); ok {
				return n
			}
		}
	}
	return 0
}

// Question types of generate_quiz_questions.
const (
	singleChoice   = "single_choice"
	multipleChoice = "multiple_choice"
	trueFalse      = "true_false"
	fillBlank      = "fill_blank"
	shortAnswer    = "short_answer"
)

// questionType reads the question type; an English "multiple-choice
// question" has one right answer, so it is single_choice, and
// multiple_choice is kept for "select all that apply".
func questionType(s string) string {
	if t, ok := questionTypeIn(s); ok {
		return t
	}
	return singleChoice
}

// questionTypeIn reports the question type s names, if any.
func questionTypeIn(s string) (string, bool) {
	l := strings.ToLower(s)
	switch {
	case containsAny(l, "多选", "multiple-answer", "multiple answer", "select all", "multi-select"):
		return multipleChoice, true
	case containsAny(l, "判断", "true/false", "true-false", "true or false"):
		return trueFalse, true
	case containsAny(l, "填空", "fill-in", "fill in the blank", "fill-the-blank", "gap-fill", "cloze"):
		return fillBlank, true
	case containsAny(l, "简答", "问答题", "short-answer", "short answer", "open-ended", "open question"):
		return shortAnswer, true
	case containsAny(l, "单选", "选择题", "multiple-choice", "multiple choice", "mcq"):
		return singleChoice, true
	}
	return "", false
}

func difficulty(s string) string {
	l := strings.ToLower(s)
	switch {
	case containsAny(l, "简单", "基础", "容易", "easy", "basic", "simple"):
		return "easy"
	case containsAny(l, "难", "挑战", "拔高", "hard", "difficult", "challenging", "advanced"):
		return "hard"
	}
	return "medium"
}

// gradeMention finds a grade ("初二", "八年级", "Grade 8", "Year 7"), or "".
func gradeMention(s string) string {
	if m := submatch(`(初[一二三]|高[一二三]|[一二三四五六七八九]年级)`, s); m != nil {
		return m[1]
	}
	if m := submatch(`(?i)\b((?:grade|year)\s*\d{1,2})\b`, s); m != nil {
		return m[1]
	}
	return ""
}

// subjectOf names the subject of a topic in the answer's language.
func subjectOf(l lang, text string) string {
	if t, ok := findTopic(text); ok {
		return l.pick(t.subjectZh, t.subjectEn)
	}
	low := strings.ToLower(text)
	subjects := []struct {
		zh, en string
		words  []string
	}{
		{"物理", "Physics", []string{"物理", "力", "运动", "电路", "physics", "force", "motion", "energy", "circuit"}},
		{"化学", "Chemistry", []string{"化学", "元素", "分子", "反应", "chemistry", "element", "molecule", "reaction"}},
		{"生物", "Biology", []string{"生物", "细胞", "植物", "biology", "cell", "plant"}},
		{"数学", "Mathematics", []string{"数学", "方程", "函数", "几何", "分数", "math", "equation", "function", "geometry", "fraction", "algebra"}},
		{"英语", "English", []string{"英语", "语法", "时态", "单词", "english", "grammar", "tense", "vocabulary"}},
		{"语文", "Chinese", []string{"语文", "古诗", "作文", "文言文", "chinese", "poem"}},
		{"历史", "History", []string{"历史", "朝代", "history", "war", "revolution"}},
		{"地理", "Geography", []string{"地理", "气候", "河流", "geography", "climate", "river"}},
	}
	for _, sub := range subjects {
		if containsAny(low, sub.words...) {
			return l.pick(sub.zh, sub.en)
		}
	}
	return l.pick("综合", "General")
}

// skill is a language skill the weakness analysis can look at.
type skill struct{ key, zh, en string }

func skillMention(s string) (skill, bool) {
	low := strings.ToLower(s)
	skills := []struct {
		skill
		words []string
	}{
		{skill{"grammar", "语法", "grammar"}, []string{"语法", "grammar"}},
		{skill{"vocabulary", "词汇", "vocabulary"}, []string{"词汇", "单词", "vocabulary", "vocab"}},
		{skill{"reading", "阅读", "reading"}, []string{"阅读", "reading"}},
		{skill{"writing", "写作", "writing"}, []string{"写作", "作文", "writing"}},
		{skill{"listening", "听力", "listening"}, []string{"听力", "listening"}},
		{skill{"speaking", "口语", "speaking"}, []string{"口语", "speaking"}},
	}
	for _, sk := range skills {
		if containsAny(low, sk.words...) {
			return sk.skill, true
		}
	}
	return skill{}, false
}

// topicOf finds what a generation request is about: a known topic, or the
// words after 关于 / about / on, or before 的…题. It returns "" when the
// request names no topic ("帮我给班上出一份练习").
func topicOf(l lang, s string) string {
	if t, ok := findTopic(s); ok {
		return l.pick(t.zh, t.en)
	}
	patterns := []string{
		`「([^」]+)」`,
		`关于\s*([^，。？！,.?!的]+)`,
		`对\s*([^，。？！,.?!的]+?)\s*的(?:理解|掌握|认识|运用)`,
		`(?:道|个|份|套|些)\s*([^，。？！,.?!]+?)\s*(?:的)?(?:单选题|多选题|选择题|判断题|填空题|简答题|问答题|练习题|复习题|习题|题目|测验|小测|练习|试卷|题|课件|PPT|ppt|幻灯片|教案|讲稿|讲义|学案|文档|互动|网页|动画|(?i:word|pdf))`,
		`把\s*([^，。？！,.?!]+?)\s*(?:做成|导出|转成|转为|存为|生成|写成)`,
		`(?:出|做|生成|编|准备|设计)\s*(?:一些|一份|一套|几道)?\s*([^，。？！,.?!\d一二两三四五六七八九十几]+?)\s*(?:的)?(?:单选题|多选题|选择题|判断题|填空题|简答题|问答题|练习题|复习题|习题|题目|测验|小测|试卷|课件|PPT|ppt|幻灯片|教案|讲稿|讲义)`,
		`(?i)\b(?:demonstrat(?:e|es|ing)|show(?:s|ing)?|simulat(?:e|es|ing)|illustrat(?:e|es|ing))\s+(?:the\s+|how\s+)?([^.?!,;]+?)(?:\s+for\b|\s+to\b|[.?!,;]|$)`,
		`(?i)\b(?:about|on|covering|regarding)\s+(?:the\s+topic\s+of\s+|the\s+)?([^.?!,;]+?)(?:\s+for\b|\s+at\b|\s+with\b|\s+in\s+\d|[.?!,;]|$)`,
	}
	for _, p := range patterns {
		if m := submatch(p, s); m != nil {
			if t := cleanTopic(m[1]); t != "" {
				return t
			}
		}
	}
	return ""
}

// cleanTopic trims filler around a topic and rejects words that are not one.
func cleanTopic(t string) string {
	t = stripFormat(t)
	t = strings.TrimSuffix(strings.TrimSpace(t), "问") // "问题" is a question, not a quiz
	for _, f := range []string{"一些", "有关", "关于", "相关", "几道", "一份", "一套", "给", "帮我", "我们", "班上", "的", "刚才", "上面", "这份", "那份", "这个", "那个"} {
		t = strings.TrimSpace(strings.TrimPrefix(strings.TrimSuffix(t, f), f))
	}
	low := strings.ToLower(t)
	notTopics := []string{"", "它", "这些", "班上", "学生", "我的班", "班级", "这个", "那个", "it", "this", "that", "my class", "the class",
		"my students", "class", "them", "medium difficulty", "easy", "hard"}
	// Kinds of assessment are what is made, not what it is about ("出一份期中
	// 考试试卷" names no topic).
	notTopics = append(notTopics, "期中考试", "期末考试", "期中", "期末", "考试", "月考", "周测", "单元测试", "单元测验", "测验", "小测",
		"试卷", "练习", "作业", "家庭作业", "复习", "期中复习", "期末复习", "随堂练习", "课堂练习", "midterm", "midterm exam", "final exam",
		"exam", "test", "quiz", "worksheet", "homework", "revision", "review", "practice", "unit test")
	for _, n := range notTopics {
		if low == n {
			return ""
		}
	}
	if matches(`^\d+[A-H]\s*班?$`, t) || len([]rune(t)) > 40 {
		return ""
	}
	return t
}

// Format and container phrases around a topic: what the teacher wants it
// delivered as ("as a Word document", "做成 PDF", "的互动网页") and the verb
// of a demonstration ("演示自由落体", "showing free fall") are not the topic.
const (
	formatWord  = `(?:word|pdf|docx?|pptx?|powerpoint|html|excel|markdown|printable|editable|interactive|web|online|a4)`
	formatNoun  = `(?:documents?|docs?|files?|formats?|versions?|slides?|slide ?decks?|decks?|presentations?|pages?|webpages?|handouts?|worksheets?|sheets?|simulations?|animations?)`
	enFormat    = `(?i)\s*(?:,\s*)?\b(?:as|in|into|to|on|for|using|with)\s+(?:an?\s+|the\s+)?(?:` + formatWord + `(?:\s+` + formatNoun + `)?|` + formatNoun + `)\s*$`
	enFormatAdj = `(?i)\s+(?:word|pdf|docx?|pptx?|html)\s*$`
	zhFormat    = `(?i)\s*[，,（(]?\s*(?:并|然后)?\s*(?:做成|导出为|导出成|导出|转成|转为|存为|生成|写成|用|以|按)?\s*(?:一份|一个|一套)?\s*(?:(?:word|pdf|docx?|pptx?|html|excel)\s*(?:文档|文件|格式|版本|版|课件)?|文档|文件|格式|课件|幻灯片|互动网页|互动页面|网页|页面|动画|练习题|练习|习题|作业|测验|教案|讲稿|讲义|学案)\s*[）)]?\s*$`
	demoVerb    = `(?i)^(?:用来|用于|可以|能)?\s*(?:演示|展示|模拟|讲解|介绍|说明|体验|探究)\s*|^(?:demonstrat(?:e|es|ing)|show(?:s|ing)?|simulat(?:e|es|ing)|explain(?:s|ing)?|illustrat(?:e|es|ing))\s+`
)

// stripFormat removes format and container phrases and a demonstration verb
// from a topic, repeatedly ("fractions as a Word document" → "fractions";
// "演示自由落体" → "自由落体"; "分数加减法的Word文档" → "分数加减法").
func stripFormat(t string) string {
	for range 4 {
		before := t
		t = strings.TrimSpace(t)
		t = compiled(enFormat).ReplaceAllString(t, "")
		t = compiled(enFormatAdj).ReplaceAllString(t, "")
		t = compiled(`(?:做成|导出为|导出成|导出|转成|转为|存为|写成|另存为)\s*$`).ReplaceAllString(t, "")
		t = compiled(zhFormat).ReplaceAllString(t, "")
		t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), "的"))
		t = compiled(demoVerb).ReplaceAllString(t, "")
		if t == before {
			break
		}
	}
	return strings.TrimSpace(t)
}

// isFollowUpMore reports a request for more of the same ("再出 3 道", "3 more").
func isFollowUpMore(s string) bool {
	return matches(`再(出|来|生成|做|编)`, s) ||
		matches(`(?i)\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+more\b|\bmore questions\b|\banother\s+\w+`, s)
}

// teacherWords is what the teacher asks, without the material they quote:
// a block between "---" lines, and a source named as such ("根据这份讲义",
// "based on this handout"). Words inside quoted material are no request,
// whatever they say.
func teacherWords(s string) string {
	s = compiled(`(?s)(^|\n)\s*-{3,}\s*\n.*?(\n\s*-{3,}\s*(\n|$)|$)`).ReplaceAllString(s, "\n")
	s = compiled(`根据(这份|这篇|这个|下面的?|以下的?)?(讲义|文档|资料|课件|教案|材料|文章)`).ReplaceAllString(s, "")
	return compiled(`(?i)\b(based on|from|using) (this|these|the following|my) (handout|document|notes|text|material)s?\b`).ReplaceAllString(s, "")
}

// refersBack is a request about what the conversation was about: "make 3
// questions on it".
func refersBack(s string) bool {
	return matches(`(?i)\b(on|about|for) (it|this|that|this topic|that topic)\b|(关于|针对)(它|这个|这个知识点)`, s)
}

func wantsSimpler(s string) bool {
	low := strings.ToLower(s)
	return containsAny(low, "简单", "通俗", "听不懂", "没懂", "不明白", "simpler", "simply", "easier", "eli5", "plain words", "don't understand")
}

// historyTopic finds the latest topic in the earlier-turns summary, and the
// line it was found on (which may also say the question type or grade).
func historyTopic(l lang, history string) (string, string) {
	lines := strings.Split(history, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		// An apology is about a failure, not a topic ("…not available on
		// this server"): the topic is in the teacher's words and the notes.
		if strings.HasPrefix(lines[i], "Assistant:") && containsAny(strings.ToLower(lines[i]), "(failed)", "抱歉", "sorry") {
			continue
		}
		if t := topicOf(l, lines[i]); t != "" {
			return t, lines[i]
		}
	}
	return "", ""
}

// Requests the scenarios tell apart.

func wantsQuiz(c *call) bool {
	s := teacherWords(c.user)
	zhVerb := matches(`出|生成|编|准备|设计|布置|来几|做一|制作|弄一`, s)
	zhNoun := matches(`选择题|判断题|填空题|简答题|问答题|练习题|复习题|习题|题目|测验|小测|练习|试卷|道题|(\d+|[一二两三四五六七八九十几]+)\s*道`, s)
	enVerb := matches(`(?i)\b(create|make|generate|write|give me|prepare|design|set|draft|build)\b`, s)
	enNoun := matches(`(?i)\b(questions?|quiz(zes)?|worksheets?|exercises?|tests?|mcqs?|practice)\b`, s)
	if namesContentFormat(s) {
		return false // questions on a page, in a deck or a document: content
	}
	if _, _, ok := quizFollowUp(c); ok {
		return true
	}
	return (zhVerb && zhNoun) || (enVerb && enNoun) || (isFollowUpMore(s) && c.history != "") || answersQuizClarify(c)
}

// answersClarify reports a short reply to any question back: a pick of
// one of its choices.
func answersClarify(c *call) bool {
	return strings.Contains(lastTurn(c.history), "Assistant: (asked)") && len([]rune(strings.TrimSpace(c.user))) <= 30
}

// answersQuizClarify reports a short reply to the practice clarify the
// last turn asked (a class, or a topic, picked from its options).
func answersQuizClarify(c *call) bool {
	last := lastTurn(c.history)
	asked := strings.Contains(last, "Assistant: (asked)") && containsAny(last, "出练习", "的练习", "练习是给", "想练", "the practice", "practice for")
	return asked && len([]rune(strings.TrimSpace(c.user))) <= 30
}

// namesContentFormat reports a request for a file or page format, which
// makes it a content request even when it mentions questions.
func namesContentFormat(s string) bool {
	return matches(`(?i)ppt|课件|幻灯片|演示文稿|教案|讲稿|讲义|互动|网页|闪卡|\b(slides?|presentation|powerpoint|lesson plan|docx|word document|pdf|interactive|web ?page|html|flashcards?)\b`, s)
}

func wantsContent(c *call) bool {
	s := teacherWords(c.user)
	zhNoun := matches(`(?i)ppt|课件|幻灯片|演示文稿|教案|讲稿|讲义|学案|文档|互动|网页|动画|小游戏|闪卡|pdf`, s)
	zhVerb := matches(`做|出|生成|制作|准备|设计|写|弄|帮我|导出|转成|转为|存为`, s)
	enNoun := matches(`(?i)\b(slides?|slide deck|decks?|presentation|powerpoint|pptx?|outline|lesson plan|lecture notes|handout|document|docx|pdf|interactive|web ?page|html|flashcards?|simulation|animation)\b`, s)
	// "Then an interactive page on …" goes on from the last request.
	enVerb := matches(`(?i)\b(create|make|generate|write|prepare|design|draft|build|turn|export|convert|save)\b|^\s*(then|and|also|next|plus)\b`, s)
	confirm := isConfirmation(s) && awaitsOutline(c.history)
	_, revised := revisedOutline(c)
	return (zhNoun && zhVerb) || (enNoun && enVerb) || confirm || revised
}

// wantsAnalysis is a request for an analysis page of a class's results.
func wantsAnalysis(s string) bool {
	low := strings.ToLower(s)
	analysis := containsAny(low, "分析", "报告", "看板", "analysis", "analyse", "analyze", "report", "dashboard")
	data := classMention(s) != "" || containsAny(low, "成绩", "分数", "grades", "scores", "results", "marks")
	return analysis && data
}

func isDataQuestion(s string) bool {
	// Students as the audience of an explanation are no data to look up.
	low := strings.NewReplacer("给学生", "", "向学生", "", "跟学生", "", "to students", "", "to my students", "").Replace(strings.ToLower(teacherWords(s)))
	return classMention(s) != "" || containsAny(low, "我的班", "哪些班", "几个班", "班级", "学生", "成绩", "分数", "作业", "提交",
		"平均分", "考试", "评分标准", "my class", "classes", "student", "grades", "score", "marks", "assignment", "submission",
		"homework", "rubric", "my documents", "my files", "我的文档", "我的资料")
}

func isSmalltalk(s string) bool {
	t := strings.ToLower(strings.TrimSpace(s))
	if len([]rune(t)) > 30 {
		return false
	}
	return matches(`^(你好|您好|嗨|哈喽|早上好|下午好|晚上好|早安|晚安|谢谢|多谢|感谢|再见|拜拜|你是谁|你能做什么|辛苦了)`, t) ||
		matches(`^(hi|hello|hey|thanks|thank you|good (morning|afternoon|evening)|bye|goodbye|who are you|what can you do|how are you)\b`, t)
}

// isVague is a message with nothing actionable: "帮我弄一下", "help me with that".
func isVague(s string) bool {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimRight(t, "。.!！?？~ ")
	return matches(`^(请|麻烦)?(你)?(帮我|帮忙|帮帮我)?(弄|搞|处理|做|看|整)?(一下|下)?(吧|呀|啊|呗)?$`, t) ||
		matches(`^(please\s+)?(can you\s+|could you\s+)?(help|do)(\s+me)?(\s+with)?(\s+(that|this|it))?(\s+please)?$`, t) ||
		t == "那个" || t == "这个" || t == "嗯"
}
