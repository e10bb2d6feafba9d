package offlinemodel

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Follow-ups on the conversation's latest quiz, as a teacher writes them
// after seeing it: "再加两道题", "把第三题改成填空题", "换成英文", "难一点".
// Each is a new call of the quiz tool built from the quiz's note in the
// history summary; the answer says what was done, never more.

// editKind is what a follow-up asks of the latest quiz.
type editKind int

const (
	editMore      editKind = iota + 1 // more questions of the same kind
	editRetype                        // one question in another type
	editTranslate                     // the quiz in another language
	editLevel                         // the quiz at another difficulty
)

// quizEdit is a follow-up on the latest quiz.
type quizEdit struct {
	kind       editKind
	index      int    // editRetype: the question's number, from 1
	qtype      string // editRetype: the type it becomes
	language   lang   // editTranslate: the language it goes into
	difficulty string // editLevel: the new level
	// topic is the quiz's topic as the teacher saw it (the spec's topic may
	// be its name in another language).
	topic string
}

const numeral = `(\d+|[一二两三四五六七八九十]+|one|two|three|four|five|six|seven|eight|nine|ten)`

// quizEditOf reads a follow-up on a quiz; ok is false for anything else.
func quizEditOf(s string) (quizEdit, bool) {
	s = strings.TrimSpace(teacherWords(s))
	low := strings.ToLower(s)
	if m := submatch(`第\s*`+numeral+`\s*(?:道)?(?:题|小题)\s*(?:改成|改为|换成|变成|改写成|换为)(.+)`, s); m != nil {
		return retypeEdit(m[1], m[2])
	}
	if m := submatch(`(?i)\b(?:make|change|turn|convert|rewrite|switch)\s+(?:question|q|number|no\.?)\s*#?`+numeral+`\b\s*(?:in)?(?:to)?\s*(.+)`, s); m != nil {
		return retypeEdit(m[1], m[2])
	}
	if m := submatch(`(?:再|多|还要|另外)(?:加|添|补|出|来)?\s*`+numeral+`\s*(?:道|个)`, s); m != nil {
		return quizEdit{kind: editMore}, true
	}
	if matches(`(?i)^(?:please\s+)?add\s+`+numeral+`\s+(?:more\s+)?(?:questions?)?`, low) {
		return quizEdit{kind: editMore}, true
	}
	if m := submatch(`(?:换成|改成|翻译成|译成|变成|改为|用)\s*(英文|英语|中文|汉语)`, s); m != nil {
		return quizEdit{kind: editTranslate, language: map[bool]lang{true: en, false: zh}[m[1] == "英文" || m[1] == "英语"]}, true
	}
	if m := submatch(`(?i)\b(?:translate|put|switch|change|turn|rewrite|give me|make)\b.*\b(?:in|into|to)\s+(english|chinese)\b`, s); m != nil {
		return quizEdit{kind: editTranslate, language: map[bool]lang{true: en, false: zh}[strings.EqualFold(m[1], "english")]}, true
	}
	switch {
	case matches(`(?:简单|容易|基础)(?:一)?(?:点|些)|降低难度`, s), matches(`(?i)\b(?:easier|simpler|less difficult)\b`, low):
		return quizEdit{kind: editLevel, difficulty: "easy"}, true
	case matches(`难(?:一)?(?:点|些)|提高难度|加大难度`, s), matches(`(?i)\b(?:harder|more difficult|more challenging|tougher)\b`, low):
		return quizEdit{kind: editLevel, difficulty: "hard"}, true
	}
	return quizEdit{}, false
}

func retypeEdit(num, rest string) (quizEdit, bool) {
	n, ok := numberWord(num)
	t, named := questionTypeIn(rest)
	if !ok || !named || n < 1 || n > maxQuestions {
		return quizEdit{}, false
	}
	return quizEdit{kind: editRetype, index: n, qtype: t}, true
}

// quizFollowUp is the edit a message asks of the conversation's latest
// quiz: only when there is one and the message names no other topic. A
// change of level or language is about the quiz only when the last turn
// made it ("简单一点" after an explanation asks for a simpler one).
func quizFollowUp(c *call) (quizEdit, quizNote, bool) {
	earlier, ok := earlierQuiz(c.history)
	if !ok || earlier.Topic == "" || topicOf(c.lang, c.user) != "" {
		return quizEdit{}, quizNote{}, false
	}
	e, ok := quizEditOf(c.user)
	if !ok {
		return quizEdit{}, quizNote{}, false
	}
	if (e.kind == editLevel || e.kind == editTranslate) && !strings.Contains(lastTurn(c.history), quizNoteLabel) {
		return quizEdit{}, quizNote{}, false
	}
	e.topic = topicIn(c.lang, earlier.Topic)
	return e, earlier, true
}

// editedSpec is the quiz tool's call for an edit of the earlier quiz. The
// questions stay in the quiz's language unless the edit changes it; a
// change of level or language applies to the last turn's questions.
func editedSpec(c *call, e quizEdit, earlier quizNote) quizSpec {
	quizLang := c.lang
	if n := len(earlier.Questions); n > 0 {
		quizLang = detectLang(earlier.Questions[n-1])
	}
	spec := quizSpec{Count: questionCount(c.user), QuestionType: cmp.Or(earlier.QuestionType, singleChoice),
		Difficulty: cmp.Or(earlier.Difficulty, "medium"), Language: quizLang, Grade: earlier.Grade, Avoid: earlier.Questions, edit: &e}
	switch e.kind {
	case editMore:
		if spec.Count == 0 {
			spec.Count = 3
		}
	case editRetype:
		spec.Count, spec.QuestionType = 1, e.qtype
	case editTranslate:
		spec.Count, spec.Language, spec.Avoid = lastQuizCount(c.history), e.language, nil
	case editLevel:
		spec.Count, spec.Difficulty = lastQuizCount(c.history), e.difficulty
	}
	spec.asked, spec.Count = spec.Count, max(1, min(spec.Count, maxQuestions))
	spec.Topic = topicIn(spec.Language, earlier.Topic)
	spec.Subject = subjectOf(spec.Language, spec.Topic)
	return spec
}

// topicIn names a topic in l when the stand-in knows it, else as given.
func topicIn(l lang, name string) string {
	if t, ok := findTopic(name); ok {
		return l.pick(t.zh, t.en)
	}
	return name
}

// lastQuizCount is how many questions the latest quiz turn gave: its note
// lists the conversation's questions so far, so the turn's are those past
// the previous note's (all of them when the lists do not continue, as after
// a quiz in another language); 5 when there is no note.
func lastQuizCount(history string) int {
	var notes [][]string
	for _, line := range strings.Split(history, "\n") {
		var n quizNote
		if raw, ok := producedJSON(line, quizNoteLabel); ok && json.Unmarshal(raw, &n) == nil {
			notes = append(notes, n.Questions)
		}
	}
	switch len(notes) {
	case 0:
		return 5
	case 1:
		return max(1, len(notes[0]))
	}
	last, prev := notes[len(notes)-1], notes[len(notes)-2]
	if len(last) > len(prev) && slices.Equal(last[:len(prev)], prev) {
		return len(last) - len(prev)
	}
	return max(1, len(last))
}

// editDone is the answer after an edit's questions are written: what was
// done, in the teacher's language.
func editDone(l lang, spec quizSpec) string {
	e := spec.edit
	level := difficultyName(l, spec.Difficulty)
	switch e.kind {
	case editRetype:
		return l.pick(
			fmt.Sprintf("上面是 1 道关于「%s」的%s，用来替换原来的第 %d 题，附答案和解析；其余题目保持不变。", e.topic, typeName(zh, spec.QuestionType, 1), e.index),
			fmt.Sprintf("Above is a new %s on %s to replace question %d, with the answer and an explanation; the other questions stay as they were.", typeName(en, spec.QuestionType, 1), e.topic, e.index))
	case editTranslate:
		into := e.language.pick(l.pick("中文", "Chinese"), l.pick("英文", "English"))
		return l.pick(
			fmt.Sprintf("已用%s把刚才的 %d 道关于「%s」的%s重新出了一遍（难度：%s），题型和数量不变，每道题都附有答案和解析。", into, spec.Count, e.topic, typeName(zh, spec.QuestionType, spec.Count), level),
			fmt.Sprintf("I've written the last %d %s on %s again in %s (%s difficulty), the same type and number, each with the answer and an explanation.", spec.Count, typeName(en, spec.QuestionType, spec.Count), e.topic, into, level))
	case editLevel:
		return l.pick(
			fmt.Sprintf("已按「%s」难度把刚才的 %d 道关于「%s」的%s重新出了一遍，每道题都附有答案和解析。", level, spec.Count, e.topic, typeName(zh, spec.QuestionType, spec.Count)),
			fmt.Sprintf("I've rewritten the last %d %s on %s at %s difficulty, each with the answer and an explanation.", spec.Count, typeName(en, spec.QuestionType, spec.Count), e.topic, level))
	}
	return l.pick(
		fmt.Sprintf("又为你出了 %d 道关于「%s」的%s（难度：%s），和前面的题目不重复，每道题都附有答案和解析。", spec.Count, e.topic, typeName(zh, spec.QuestionType, spec.Count), level),
		fmt.Sprintf("Here are %d more %s on %s (%s difficulty), none repeating the earlier ones, each with the answer and an explanation.", spec.Count, typeName(en, spec.QuestionType, spec.Count), e.topic, level))
}

// shortfall says why a quiz has fewer questions than the teacher asked
// for: one call writes at most maxQuestions, and a follow-up gives fewer
// rather than repeat one asked before. "" when nothing is missing.
func shortfall(l lang, spec quizSpec) string {
	asked := max(spec.asked, spec.Count)
	switch {
	case spec.mixed() || spec.Count >= asked:
		return ""
	case spec.asked > maxQuestions && spec.Count == maxQuestions:
		return l.pick(fmt.Sprintf("你要的是 %d 道，一次最多出 %d 道，这次先出了 %d 道；需要的话说「再出 %d 道」。", spec.asked, maxQuestions, spec.Count, spec.asked-spec.Count),
			fmt.Sprintf("You asked for %d; one go writes at most %d, so here are %d: say \"%d more\" for the rest.", spec.asked, maxQuestions, spec.Count, spec.asked-spec.Count))
	}
	return l.pick(fmt.Sprintf("你要的是 %d 道，但和前面不重复的题目只剩这 %d 道了；可以换一种题型或换个知识点继续出题。", asked, spec.Count),
		fmt.Sprintf("You asked for %d, but only %d more could be written without repeating earlier ones; try another question type or topic for more.", asked, spec.Count))
}
