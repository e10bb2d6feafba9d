package offlinemodel

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// The quiz writer (prompts.QuizHeader, JSON mode): the user message is a
// JSON object {"topic","count","questionType","difficulty","language",
// "subject","grade"}; the reply is {"questions":[…]} with exactly count
// questions (at most 20), streamed in small fragments like any content.

const maxQuestions = 20

// quizSpec is what to write: the quiz writer's input, and the arguments the
// agent gives generate_quiz_questions.
type quizSpec struct {
	Topic        string
	Count        int
	QuestionType string
	Difficulty   string
	Language     lang
	Subject      string
	Grade        string
	// Avoid are questions already given in the conversation: the new ones
	// differ from them, word for word and by stem.
	Avoid []string
	// edit is the follow-up on the latest quiz this spec answers, if any.
	edit *quizEdit
	// parts are the types of a mixed quiz, each with its count (Count is
	// their sum); nil for a quiz of one type.
	parts []quizPart
	// asked is the number the teacher asked for, before the limit of one
	// call (maxQuestions).
	asked int
	// langAsked: the teacher named the questions' language ("in Chinese"),
	// which then need not be the request's.
	langAsked bool
}

// quizQuestion is one question of the reply (protocol.Question without the
// id and index, which the product assigns).
type quizQuestion struct {
	Type           string   `json:"type"`
	Question       string   `json:"question"`
	Options        []string `json:"options,omitempty"`
	Answer         string   `json:"answer"`
	Explanation    string   `json:"explanation"`
	Difficulty     string   `json:"difficulty"`
	KnowledgePoint string   `json:"knowledgePoint"`
}

func quizReply(c *call) reply {
	spec, ok := quizSpecFromJSON(c.user)
	if !ok {
		spec = quizSpecFrom(c)
	}
	return textReply(mustJSON(struct {
		Questions []quizQuestion `json:"questions"`
	}{quizQuestions(spec)}))
}

// quizSpecFromJSON reads the quiz writer's JSON input, leniently (a count
// may come as a string).
func quizSpecFromJSON(s string) (quizSpec, bool) {
	var in struct {
		Topic        string          `json:"topic"`
		Count        json.RawMessage `json:"count"`
		QuestionType string          `json:"questionType"`
		Difficulty   string          `json:"difficulty"`
		Language     string          `json:"language"`
		Subject      string          `json:"subject"`
		Grade        string          `json:"grade"`
		Avoid        []string        `json:"avoid"`
	}
	if json.Unmarshal([]byte(strings.TrimSpace(s)), &in) != nil {
		return quizSpec{}, false
	}
	spec := quizSpec{Topic: strings.TrimSpace(in.Topic), Count: 5, QuestionType: in.QuestionType,
		Difficulty: in.Difficulty, Subject: in.Subject, Grade: in.Grade, Avoid: in.Avoid}
	if raw := strings.Trim(string(in.Count), `" `); raw != "" && raw != "null" {
		n, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return quizSpec{}, false
		}
		spec.Count = int(n)
	}
	spec.Count = max(0, min(spec.Count, maxQuestions))
	switch lowLang := strings.ToLower(in.Language); {
	case strings.HasPrefix(lowLang, "zh"), strings.Contains(lowLang, "chinese"), strings.Contains(in.Language, "中"):
		spec.Language = zh
	case strings.HasPrefix(lowLang, "en"):
		spec.Language = en
	default:
		spec.Language = detectLang(spec.Topic + spec.Subject)
	}
	switch spec.QuestionType {
	case singleChoice, multipleChoice, trueFalse, fillBlank, shortAnswer:
	default:
		spec.QuestionType = questionType(spec.QuestionType)
	}
	switch spec.Difficulty {
	case "easy", "medium", "hard":
	default:
		spec.Difficulty = difficulty(spec.Difficulty)
	}
	if spec.Topic == "" {
		spec.Topic = spec.Language.pick("本单元内容", "this unit")
	}
	return spec, true
}

// quizSpecFrom reads a quiz request in the teacher's words; a follow-up
// ("再出 3 道") takes its topic from the history summary.
func quizSpecFrom(c *call) quizSpec {
	if e, earlier, ok := quizFollowUp(c); ok {
		return editedSpec(c, e, earlier)
	}
	l, text := c.lang, c.user
	topic, line := topicOf(l, text), text
	earlier, hasEarlier := earlierQuiz(c.history)
	if topic == "" && c.history != "" && (isFollowUpMore(text) || refersBack(text)) {
		if hasEarlier && earlier.Topic != "" {
			topic, line = earlier.Topic, earlier.Grade
		} else {
			topic, line = historyTopic(l, c.history)
		}
	}
	if topic == "" && classMention(text) == "" && answersQuizClarify(c) {
		topic = cleanTopic(strings.Trim(strings.TrimSpace(text), "。.!！"))
	}
	if topic == "" && answersQuizClarify(c) {
		line = lastTurn(c.history) // the class or grade named before
	}
	spec := quizSpec{Topic: topic, Count: questionCount(text), Difficulty: difficulty(text), Language: l, Avoid: earlier.Questions}
	if asked, ok := languageAsked(text); ok {
		spec.Language, spec.langAsked = asked, true
		spec.Topic = topicIn(asked, topic)
	}
	if spec.Count == 0 {
		spec.Count = 5
	}
	spec.asked, spec.Count = spec.Count, min(spec.Count, maxQuestions)
	var ok bool
	if spec.QuestionType, ok = questionTypeIn(text); !ok {
		spec.QuestionType = questionType(line)
	}
	spec.Subject = subjectOf(l, topic+" "+text+" "+line)
	if spec.Grade = gradeMention(text); spec.Grade == "" {
		spec.Grade = gradeMention(line)
	}
	if _, named := questionTypeIn(text); hasEarlier && earlier.Topic == topic && !named && earlier.QuestionType != "" {
		spec.QuestionType = earlier.QuestionType // "再出 3 道": more of the same kind
	}
	if hasEarlier && earlier.Topic == topic && !containsAny(strings.ToLower(text), "简单", "难", "easy", "hard", "difficult", "basic", "challenging") && earlier.Difficulty != "" {
		spec.Difficulty = earlier.Difficulty // "再出 3 道" keeps the level too
	}
	if spec.parts = quizParts(text, spec.Count); spec.mixed() {
		spec.Count, spec.QuestionType = partsTotal(spec.parts), spec.parts[0].typ
	}
	return spec
}

// quizNote is the quiz tool's note in the history summary
// (shared/tools/quiz MemoryNote).
type quizNote struct {
	Topic        string   `json:"topic"`
	QuestionType string   `json:"questionType"`
	Difficulty   string   `json:"difficulty"`
	Grade        string   `json:"grade"`
	Questions    []string `json:"questions"`
}

// quizNoteLabel is how the summary's quiz notes start.
const quizNoteLabel = "quiz questions generated"

// earlierQuiz is the latest quiz note of the conversation: its topic and
// every question asked so far.
func earlierQuiz(history string) (quizNote, bool) {
	var n quizNote
	raw, ok := producedJSON(history, quizNoteLabel)
	if !ok || json.Unmarshal(raw, &n) != nil {
		return quizNote{}, false
	}
	return n, true
}

// describe names the questions: "5 道关于「牛顿第一定律」的单选题",
// "3 multiple-choice questions on photosynthesis".
func (q quizSpec) describe(l lang) string {
	if q.mixed() {
		return l.pick(fmt.Sprintf("%d 道关于「%s」的题：%s", q.Count, q.Topic, describeParts(zh, q.parts)),
			fmt.Sprintf("%d questions on %s (%s)", q.Count, q.Topic, describeParts(en, q.parts)))
	}
	if l == zh {
		return fmt.Sprintf("%d 道关于「%s」的%s", q.Count, q.Topic, typeName(zh, q.QuestionType, q.Count))
	}
	return fmt.Sprintf("%d %s on %s", q.Count, typeName(en, q.QuestionType, q.Count), q.Topic)
}

func typeName(l lang, t string, n int) string {
	names := map[string][2]string{
		singleChoice:   {"单选题", "multiple-choice question"},
		multipleChoice: {"多选题", "multiple-answer question"},
		trueFalse:      {"判断题", "true/false question"},
		fillBlank:      {"填空题", "fill-in-the-blank question"},
		shortAnswer:    {"简答题", "short-answer question"},
	}
	name, ok := names[t]
	if !ok {
		name = names[singleChoice]
	}
	if l == zh {
		return name[0]
	}
	if n == 1 {
		return name[1]
	}
	return name[1] + "s"
}

func difficultyName(l lang, d string) string {
	names := map[string][2]string{"easy": {"简单", "easy"}, "medium": {"中等", "medium"}, "hard": {"较难", "hard"}}
	n, ok := names[d]
	if !ok {
		n = names["medium"]
	}
	return l.pick(n[0], n[1])
}

// quizQuestions writes exactly spec.Count questions: from the bank when the
// topic is known in that language, then from templates that name the topic.
func quizQuestions(spec quizSpec) []quizQuestion {
	l := spec.Language
	out := make([]quizQuestion, 0, spec.Count)
	used := map[string]bool{}
	for _, q := range spec.Avoid {
		used[stem(q)] = true
	}
	add := func(q quizQuestion) {
		if len(out) < spec.Count && !used[stem(q.Question)] {
			used[stem(q.Question)] = true
			out = append(out, q)
		}
	}
	for _, b := range questionBank(spec.Topic, l) {
		if b.typ == spec.QuestionType {
			add(b.render(l, 0))
		}
	}
	for i := 0; len(out) < spec.Count && i < templateCount(l, spec); i++ {
		add(templateQuestion(l, spec, i))
	}
	for _, q := range materialQuestions(l, spec) {
		add(q)
	}
	// Past every distinct question the stand-in can write: in a first quiz,
	// review rounds of the templates (marked as such); in a follow-up, fewer
	// questions rather than one asked before (a review question only when
	// none is left at all).
	for i := templateCount(l, spec); len(out) < spec.Count && (len(spec.Avoid) == 0 || len(out) == 0); i++ {
		out = append(out, templateQuestion(l, spec, i))
	}
	for i := range out {
		out[i].Difficulty = spec.Difficulty
		if out[i].KnowledgePoint == "" {
			out[i].KnowledgePoint = spec.Topic
		}
	}
	return out
}

// bankQuestion is a question as written in the bank: options without
// letters, the answer as letters for choice types.
type bankQuestion struct {
	typ         string
	question    string
	options     []string
	answer      string
	explanation string
	point       string
}

// render letters the options, rotated by rotate places (the answer letters
// follow), so that templates do not always put the answer first.
func (b bankQuestion) render(l lang, rotate int) quizQuestion {
	q := quizQuestion{Type: b.typ, Question: b.question, Answer: b.answer, Explanation: b.explanation, KnowledgePoint: b.point}
	switch b.typ {
	case singleChoice, multipleChoice:
		n := len(b.options)
		rotated := make([]string, n)
		for i, o := range b.options {
			rotated[(i+rotate)%n] = o
		}
		for i, o := range rotated {
			q.Options = append(q.Options, fmt.Sprintf("%c. %s", 'A'+i, o))
		}
		var letters []string
		for _, r := range b.answer {
			if r >= 'A' && r < 'A'+rune(n) {
				letters = append(letters, string('A'+(r-'A'+rune(rotate))%rune(n)))
			}
		}
		slices.Sort(letters)
		q.Answer = strings.Join(letters, l.pick("、", ", "))
	case trueFalse:
		q.Options = []string{l.pick("正确", "True"), l.pick("错误", "False")}
	}
	return q
}

// stem is a question as compared for repeats: without a review mark,
// numbering, spaces and punctuation, lower-cased.
func stem(q string) string {
	q = compiled(`^\s*(?:（巩固 \d+）|\(Review \d+\)\s*|\d+[.、．]\s*)`).ReplaceAllString(q, "")
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, q)
}

// languageAsked is the language a request names for what it makes ("in
// Chinese", "用英文出"), if any.
func languageAsked(s string) (lang, bool) {
	switch {
	case matches(`(?i)\bin (?:simplified |traditional )?chinese\b|用中文|中文版`, s):
		return zh, true
	case matches(`(?i)\bin english\b|用英文|用英语|英文版`, s):
		return en, true
	}
	return en, false
}
