package mockdata

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// DefaultSeed is the seed of Default.
const DefaultSeed = 20250901

// Default returns the data set every test, demo and fallback uses.
func Default() *Dataset { return Generate(DefaultSeed) }

// Generate builds the data set from seed. The school (teachers, classes,
// assignment plans, documents, rubrics) is fixed; names, scores, dates and
// feedback are drawn from a PCG generator, whose output Go specifies, so one
// seed gives the same data on every platform and Go release.
func Generate(seed uint64) *Dataset {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), d: &Dataset{ErrorPatterns: map[string][]ErrorPattern{}}}
	g.d.Teachers = []Teacher{
		{ID: "t-001", Name: "Ms. Chan Wai Man (陳慧敏)"},
		{ID: "t-002", Name: "Mr. Wong Chi Keung (黃志強)"},
		{ID: "t-003", Name: "Ms. Li Mei Ling (李美玲)"},
	}
	for _, p := range classPlans() {
		g.class(p)
	}
	g.d.Documents = documents()
	g.d.Rubrics = rubrics()
	g.d.index()
	return g.d
}

type classPlan struct {
	uid, id, name, grade, subject, teacher string
	students                               int
	names                                  nameStyle
}

type nameStyle int

const (
	romanised nameStyle = iota // "Wong Ka Ho", "Peter Wong"
	chinese                    // "黃家豪"
	mixed                      // both
)

func classPlans() []classPlan {
	return []classPlan{
		{"class-hk-f1a", "123", "Form 1A", "Form 1", "English", "t-001", 35, romanised},
		{"class-hk-f1b", "124", "Form 1B", "Form 1", "English", "t-001", 33, romanised},
		{"class-hk-f3c", "131", "Form 3C", "Form 3", "Physics", "t-001", 32, mixed},
		{"class-hk-f2a", "141", "Form 2A", "Form 2", "English", "t-002", 36, romanised},
		{"class-hk-f2d", "144", "Form 2D", "Form 2", "English", "t-002", 38, romanised},
		{"class-hk-f4b", "152", "Form 4B", "Form 4", "Mathematics", "t-002", 31, mixed},
		{"class-hk-f1c", "125", "Form 1C", "Form 1", "English", "t-003", 34, romanised},
		{"class-hk-f5a", "161", "Form 5A", "Form 5", "Chinese Language", "t-003", 30, chinese},
	}
}

type gen struct {
	r *rand.Rand
	d *Dataset
}

// ability is a student's underlying level per skill (percent); non-language
// subjects use only overall.
type ability struct {
	overall float64
	skills  [4]float64 // grammar, vocabulary, reading, writing
}

func (g *gen) class(p classPlan) {
	short := strings.TrimPrefix(p.uid, "class-hk-")
	g.d.Classes = append(g.d.Classes, Class{
		UID: p.uid, ID: p.id, Name: p.name, Grade: p.grade, Subject: p.subject,
		StudentCount: p.students, TeacherID: p.teacher, AcademicYear: "2025-2026",
	})
	students := make([]Student, 0, p.students)
	abilities := make([]ability, 0, p.students)
	seen := map[string]bool{}
	classMean := 66 + g.r.NormFloat64()*3
	for i := range p.students {
		name := g.uniqueName(p.names, seen)
		if p.uid == "class-hk-f1a" && i == 0 {
			name = "Wong Ka Ho" // the student of seed 004 §2.4.2
		}
		seen[name] = true
		s := Student{UID: fmt.Sprintf("s-%s-%02d", short, i+1), Name: name, ClassID: p.uid}
		a := ability{overall: clamp(classMean+g.r.NormFloat64()*12, 28, 97)}
		for k := range a.skills {
			a.skills[k] = clamp(a.overall+g.r.NormFloat64()*9, 20, 98)
		}
		if s.Name == "Wong Ka Ho" {
			a.skills[0] = 38 // weak in grammar, as in the seed's example feedback
		}
		students = append(students, s)
		abilities = append(abilities, a)
	}
	g.d.Students = append(g.d.Students, students...)

	for n, ap := range assignmentPlans(p) {
		a := Assignment{
			UID: fmt.Sprintf("a-%s-%02d", short, n+1), Title: ap.title, Subject: p.subject,
			DueDate: ap.due, MaxScore: ap.max, ClassID: p.uid,
		}
		g.d.Assignments = append(g.d.Assignments, a)
		for i, s := range students {
			g.d.Submissions = append(g.d.Submissions, g.submission(p, a, ap, s, abilities[i]))
		}
	}
	for i, s := range students {
		g.d.ErrorPatterns[s.UID] = g.errorPatterns(p.subject, abilities[i])
	}
}

type assignmentPlan struct {
	title   string
	due     string
	max     float64
	weights [4]float64 // grammar, vocabulary, reading, writing (language subjects)
}

func assignmentPlans(p classPlan) []assignmentPlan {
	switch p.subject {
	case "English":
		topic := map[string]string{"Form 1": "Present & Past Tenses", "Form 2": "Passive Voice & Reported Speech"}[p.grade]
		story := map[string]string{"Form 1": "The Lost Kite", "Form 2": "A Day at the Wetland Park"}[p.grade]
		return []assignmentPlan{
			{"Unit 1 Grammar Quiz: " + topic, "2025-09-26", 50, [4]float64{.55, .25, .10, .10}},
			{"Reading Comprehension: " + story, "2025-10-17", 100, [4]float64{.10, .25, .55, .10}},
			{"Writing Task: A Letter to a Pen Pal", "2025-11-21", 40, [4]float64{.25, .25, 0, .50}},
			{"First Term Uniform Test", "2026-01-09", 100, [4]float64{.25, .25, .25, .25}},
		}
	case "Physics":
		return []assignmentPlan{
			{"Worksheet 1: Speed and Velocity", "2025-09-30", 20, [4]float64{}},
			{"Lab Report: Simple Pendulum", "2025-10-28", 30, [4]float64{}},
			{"Unit Test: Forces and Motion", "2025-12-05", 100, [4]float64{}},
		}
	case "Mathematics":
		return []assignmentPlan{
			{"Quadratic Equations Worksheet", "2025-09-29", 30, [4]float64{}},
			{"Functions and Graphs Quiz", "2025-11-03", 50, [4]float64{}},
			{"First Term Uniform Test", "2026-01-12", 100, [4]float64{}},
		}
	default: // Chinese Language
		return []assignmentPlan{
			{"閱讀理解練習：《背影》", "2025-10-06", 50, [4]float64{}},
			{"命題作文：難忘的一天", "2025-11-10", 60, [4]float64{}},
			{"第一學期統一測驗", "2026-01-14", 100, [4]float64{}},
		}
	}
}

func (g *gen) submission(p classPlan, a Assignment, ap assignmentPlan, s Student, ab ability) Submission {
	sub := Submission{
		StudentID: s.UID, StudentName: s.Name, AssignmentID: a.UID, AssignmentTitle: a.Title,
		MaxScore: a.MaxScore, Status: "graded",
	}
	var pct float64
	weakest := -1
	if p.subject == "English" {
		var sk [4]float64
		for k := range sk {
			sk[k] = math.Round(clamp(ab.skills[k]+g.r.NormFloat64()*6, 8, 100))
			pct += ap.weights[k] * sk[k]
		}
		sub.Skills = &Skills{Grammar: sk[0], Vocabulary: sk[1], Reading: sk[2], Writing: sk[3]}
		weakest = 0
		for k := range sk {
			if sk[k] < sk[weakest] {
				weakest = k
			}
		}
	} else {
		pct = clamp(ab.overall+g.r.NormFloat64()*8, 5, 100)
	}
	sub.Score = math.Round(pct/100*a.MaxScore*2) / 2 // half marks
	due, _ := time.Parse(time.DateOnly, a.DueDate)
	at := due.Add(-time.Duration(g.r.IntN(72*60)) * time.Minute).Add(-2 * time.Hour)
	if g.r.IntN(100) < 4 {
		sub.Status = "late"
		at = due.Add(time.Duration(24*60+g.r.IntN(48*60)) * time.Minute)
	}
	sub.SubmittedAt = at.Format("2006-01-02T15:04:05")
	sub.Feedback = feedback(p.subject, pct, weakest)
	return sub
}

func feedback(subject string, pct float64, weakest int) string {
	switch subject {
	case "English":
		if pct >= 85 {
			return "Excellent work! Keep it up."
		}
		return [...]string{
			"Need improvement in grammar: check verb tenses and subject-verb agreement.",
			"Try to use a wider range of vocabulary instead of repeating simple words.",
			"Read the questions carefully and support your answers with evidence from the text.",
			"Organise your ideas into clear paragraphs with topic sentences.",
		}[weakest]
	case "Chinese Language":
		switch {
		case pct >= 85:
			return "內容充實，結構清晰，表現優秀。"
		case pct >= 60:
			return "表達尚算流暢，注意錯別字及標點符號。"
		default:
			return "內容較空泛，需多加練習審題及分段。"
		}
	default:
		switch {
		case pct >= 85:
			return "Excellent understanding of the concepts."
		case pct >= 60:
			return "Good attempt. Show your working and units clearly."
		default:
			return "Revise the key formulas and practise more problems; see me after class."
		}
	}
}

// errorPatterns draws a student's recurring mistakes: the weaker a skill,
// the more often its typical mistakes occur.
func (g *gen) errorPatterns(subject string, ab ability) []ErrorPattern {
	var out []ErrorPattern
	add := func(skill string, level float64, catalogue [][2]string) {
		base := (88 - level) / 7
		for _, i := range g.r.Perm(len(catalogue))[:2] {
			n := int(math.Round(base + g.r.NormFloat64()))
			if n > 0 {
				out = append(out, ErrorPattern{Pattern: catalogue[i][0], Skill: skill, Count: n, Example: catalogue[i][1]})
			}
		}
	}
	if subject == "English" {
		for k, skill := range [...]string{"grammar", "vocabulary", "reading", "writing"} {
			add(skill, ab.skills[k], englishMistakes()[k])
		}
	} else {
		add(strings.ToLower(subject), ab.overall, subjectMistakes(subject))
	}
	slices.SortStableFunc(out, func(a, b ErrorPattern) int { return cmp.Compare(b.Count, a.Count) })
	if len(out) > 5 {
		out = out[:5]
	}
	if out == nil {
		out = []ErrorPattern{}
	}
	return out
}

func englishMistakes() [4][][2]string {
	return [4][][2]string{
		{ // grammar
			{"subject-verb agreement", "He go to school by bus every day."},
			{"past tense formation", "Yesterday I buyed a new schoolbag."},
			{"article usage", "She is a honest girl."},
			{"plural nouns", "There are many child in the playground."},
		},
		{ // vocabulary
			{"word choice", "I did a mistake in my homework."},
			{"collocation", "We made a big research about plastic waste."},
			{"repetition of simple words", "The trip was good. The food was good. The weather was good."},
		},
		{ // reading
			{"inference questions", "Answered 'The kite was old' when the text implies it was a gift from her grandfather."},
			{"copying whole sentences instead of answering", "Copied lines 12–15 for a question asking for one reason."},
			{"vocabulary in context", "Took 'bright' to mean 'shiny' in 'a bright student'."},
		},
		{ // writing
			{"run-on sentences", "I went to the park it was raining we went home."},
			{"paragraph organisation", "Put the greeting, the news and the ending of the letter in one paragraph."},
			{"letter format", "Ended a letter to a pen pal with 'Yours faithfully'."},
		},
	}
}

func subjectMistakes(subject string) [][2]string {
	switch subject {
	case "Physics":
		return [][2]string{
			{"unit conversion", "Wrote 36 km/h = 36 m/s."},
			{"sign of acceleration", "Gave a = +2 m/s² for a car slowing down."},
			{"significant figures", "Reported the period as 1.98765 s from a stopwatch reading."},
		}
	case "Mathematics":
		return [][2]string{
			{"sign errors when expanding brackets", "-(x - 3) = -x - 3"},
			{"missing ± when taking square roots", "x² = 9, so x = 3"},
			{"misreading the graph's scale", "Read 2.5 as 2.05 on the y-axis."},
		}
	default:
		return [][2]string{
			{"錯別字", "「再」與「在」混淆：我在次提醒你。"},
			{"標點符號", "全段只用逗號，沒有句號。"},
			{"審題不清", "題目要求記敘難忘的一天，文章卻寫成議論文。"},
		}
	}
}

// Names. Romanised Cantonese surnames and syllables, each with its
// character, so the same draw gives "Wong Ka Ho" or "黃家豪".
func surnames() [][2]string {
	return [][2]string{
		{"Chan", "陳"}, {"Wong", "黃"}, {"Lee", "李"}, {"Cheung", "張"}, {"Lau", "劉"},
		{"Ho", "何"}, {"Leung", "梁"}, {"Ng", "吳"}, {"Lam", "林"}, {"Tsang", "曾"},
		{"Yip", "葉"}, {"Chow", "周"}, {"Tang", "鄧"}, {"Kwok", "郭"}, {"Lo", "羅"},
		{"Fung", "馮"}, {"Mak", "麥"}, {"Tam", "譚"}, {"Choi", "蔡"}, {"Yeung", "楊"},
	}
}

func syllables() [][2]string {
	return [][2]string{
		{"Ka", "家"}, {"Ho", "豪"}, {"Mei", "美"}, {"Ling", "玲"}, {"Wing", "詠"},
		{"Yan", "欣"}, {"Chi", "志"}, {"Hin", "軒"}, {"Tsz", "梓"}, {"Lok", "樂"},
		{"Man", "敏"}, {"Kit", "傑"}, {"Sum", "心"}, {"Yee", "儀"}, {"Hoi", "凱"},
		{"Wai", "偉"}, {"Ching", "晴"}, {"Yu", "瑜"}, {"Sze", "詩"}, {"Long", "朗"},
		{"Hei", "希"}, {"Tung", "彤"}, {"Chun", "俊"}, {"Kiu", "翹"},
	}
}

func englishNames() []string {
	return []string{
		"Peter", "Mary", "Jason", "Chloe", "Ethan", "Hailey", "Ryan", "Karen", "Marcus",
		"Natalie", "Timothy", "Vanessa", "Kelvin", "Cherry", "Isaac", "Yoyo", "Gigi", "Alvin",
	}
}

// uniqueName draws a name not in seen (bounded: after 50 clashes the index
// makes it unique).
func (g *gen) uniqueName(style nameStyle, seen map[string]bool) string {
	for try := range 50 {
		n := g.name(style)
		if !seen[n] {
			return n
		}
		if try == 49 {
			return fmt.Sprintf("%s %d", n, len(seen)+1)
		}
	}
	return ""
}

func (g *gen) name(style nameStyle) string {
	sn := surnames()[g.r.IntN(len(surnames()))]
	a := syllables()[g.r.IntN(len(syllables()))]
	b := syllables()[g.r.IntN(len(syllables()))]
	if style == mixed {
		style = []nameStyle{romanised, romanised, chinese}[g.r.IntN(3)]
	}
	switch {
	case style == chinese:
		return sn[1] + a[1] + b[1]
	case g.r.IntN(4) == 0:
		return englishNames()[g.r.IntN(len(englishNames()))] + " " + sn[0]
	default:
		return sn[0] + " " + a[0] + " " + b[0]
	}
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

func documents() []Document {
	return []Document{
		{UID: "d-001", Subject: "English", TeacherID: "t-001", Title: "Form 1 English Unit 1 Lesson Plan: Present & Past Tenses", UpdatedAt: "2025-09-15T09:30:00",
			Content: "Objectives: students use the simple present for habits and the simple past for finished actions. Warm-up: timeline game. Grammar focus: subject-verb agreement (he goes, she plays) and irregular past forms (buy → bought, go → went). Exit ticket: five sentences about last weekend."},
		{UID: "d-002", Subject: "English", TeacherID: "t-001", Title: "Grammar Worksheet: Subject-Verb Agreement (Form 1)", UpdatedAt: "2025-09-22T16:05:00",
			Content: "Twenty gap-fill items on subject-verb agreement with third-person singular subjects, collective nouns and 'there is / there are'. Answer key on page 2. Suitable as remedial practice for students weak in grammar."},
		{UID: "d-003", Subject: "English", TeacherID: "t-001", Title: "Reading Comprehension: The Lost Kite (text and questions)", UpdatedAt: "2025-10-10T11:20:00",
			Content: "A 600-word story about a girl who loses the kite her grandfather made. Questions cover literal understanding, inference, vocabulary in context and the writer's purpose. Marking scheme included."},
		{UID: "d-004", Subject: "English", TeacherID: "t-001", Title: "Writing Task Guidelines: A Letter to a Pen Pal", UpdatedAt: "2025-11-12T14:45:00",
			Content: "Task: write an informal letter of about 150 words to a pen pal in Canada describing school life in Hong Kong. Marked with the English Writing Rubric: content, language and organisation. Remind students of letter format (Dear ..., Best wishes)."},
		{UID: "d-005", Subject: "English", TeacherID: "t-001", Title: "中一英文科期中考試複習提綱", UpdatedAt: "2025-12-18T10:00:00",
			Content: "複習範圍：Unit 1–3 文法（現在式、過去式、主謂一致）、閱讀理解技巧、書信寫作格式。建議學生完成 Grammar Worksheet 及 Reading Comprehension 練習。"},
		{UID: "d-006", Subject: "Physics", TeacherID: "t-001", Title: "Form 3 Physics: Simple Pendulum Lab Sheet", UpdatedAt: "2025-10-20T08:40:00",
			Content: "Aim: investigate how the length of a pendulum affects its period. Apparatus: bob, string, stopwatch, metre rule. Record ten oscillations and repeat three times. Plot T² against length and find the gradient."},
		{UID: "d-007", Subject: "English", TeacherID: "t-002", Title: "Form 2 English: Passive Voice Teaching Slides Notes", UpdatedAt: "2025-09-18T13:10:00",
			Content: "Passive voice form: be + past participle. Examples from news headlines. Practice: rewrite ten active sentences. Common mistakes: missing 'be', wrong participle (was builded)."},
		{UID: "d-008", Subject: "Mathematics", TeacherID: "t-002", Title: "Form 4 Mathematics: Quadratic Equations Notes", UpdatedAt: "2025-09-25T17:30:00",
			Content: "Solving quadratic equations by factorisation, completing the square and the quadratic formula. Discriminant and nature of roots. Worked examples and ten practice questions."},
		{UID: "d-009", Subject: "Chinese Language", TeacherID: "t-003", Title: "中五中國語文：《背影》閱讀教學設計", UpdatedAt: "2025-10-01T09:00:00",
			Content: "教學目標：理解作者借父親背影抒發的感情；分析細節描寫。活動：分組討論、朗讀、寫作練習（記一次令你感動的背影）。"},
	}
}

func rubrics() []Rubric {
	lv := func(pairs ...any) []Level {
		var out []Level
		for i := 0; i+1 < len(pairs); i += 2 {
			out = append(out, Level{Score: float64(pairs[i].(int)), Descriptor: pairs[i+1].(string)})
		}
		return out
	}
	return []Rubric{
		{UID: "r-eng-writing", Title: "English Writing Rubric (HKDSE Paper 2 style)", Subject: "English", MaxScore: 21, Criteria: []Criterion{
			{Name: "Content", Weight: 1.0 / 3, Description: "Relevance, ideas and awareness of audience and purpose.", Levels: lv(
				7, "Content fully relevant; ideas well developed and engaging.",
				5, "Content mostly relevant; ideas developed with some detail.",
				3, "Some relevant content; ideas thin or repetitive.",
				1, "Little relevant content.")},
			{Name: "Language", Weight: 1.0 / 3, Description: "Accuracy and range of grammar and vocabulary.", Levels: lv(
				7, "Accurate, varied grammar and vocabulary; few slips.",
				5, "Mostly accurate; some range; errors do not impede meaning.",
				3, "Frequent errors in tenses and agreement; limited vocabulary.",
				1, "Errors impede meaning throughout.")},
			{Name: "Organisation", Weight: 1.0 / 3, Description: "Paragraphing, cohesion and text-type features.", Levels: lv(
				7, "Well organised; effective paragraphs and cohesive devices; correct format.",
				5, "Generally organised; some cohesive devices.",
				3, "Weak paragraphing; ideas loosely connected.",
				1, "No evident organisation.")},
		}},
		{UID: "r-eng-speaking", Title: "English Speaking: Group Interaction", Subject: "English", MaxScore: 28, Criteria: []Criterion{
			{Name: "Pronunciation & Delivery", Weight: 0.25, Levels: lv(7, "Clear, natural delivery.", 4, "Generally clear; some hesitation.", 1, "Hard to follow.")},
			{Name: "Communication Strategies", Weight: 0.25, Levels: lv(7, "Initiates and responds naturally.", 4, "Responds when prompted.", 1, "Little interaction.")},
			{Name: "Vocabulary & Language Patterns", Weight: 0.25, Levels: lv(7, "Wide, accurate range.", 4, "Adequate range; some errors.", 1, "Very limited.")},
			{Name: "Ideas & Organisation", Weight: 0.25, Levels: lv(7, "Relevant, well-developed ideas.", 4, "Some relevant ideas.", 1, "Few ideas.")},
		}},
		{UID: "r-phy-lab", Title: "Physics Lab Report Rubric", Subject: "Physics", MaxScore: 30, Criteria: []Criterion{
			{Name: "Aim & Hypothesis", Weight: 0.2, Levels: lv(6, "Clear aim and testable hypothesis.", 3, "Aim stated; hypothesis vague.", 0, "Missing.")},
			{Name: "Method & Safety", Weight: 0.2, Levels: lv(6, "Reproducible method; variables controlled; safety noted.", 3, "Method incomplete.", 0, "Missing.")},
			{Name: "Data & Analysis", Weight: 0.4, Levels: lv(12, "Tables with units; correct graph; gradient found with uncertainty.", 6, "Data recorded; graph has errors.", 0, "No analysis.")},
			{Name: "Conclusion & Evaluation", Weight: 0.2, Levels: lv(6, "Conclusion supported by data; sources of error discussed.", 3, "Conclusion stated without support.", 0, "Missing.")},
		}},
		{UID: "r-math-problem", Title: "Mathematics Problem Solving Rubric", Subject: "Mathematics", MaxScore: 12, Criteria: []Criterion{
			{Name: "Understanding", Weight: 1.0 / 3, Levels: lv(4, "Identifies all given information and the goal.", 2, "Partial understanding.", 0, "Misunderstands the problem.")},
			{Name: "Method", Weight: 1.0 / 3, Levels: lv(4, "Efficient, correct method with working shown.", 2, "Reasonable method with gaps.", 0, "No valid method.")},
			{Name: "Accuracy & Communication", Weight: 1.0 / 3, Levels: lv(4, "Correct answer with units and notation.", 2, "Minor errors.", 0, "Incorrect.")},
		}},
		{UID: "r-chi-writing", Title: "中文寫作評分準則", Subject: "Chinese Language", MaxScore: 60, Criteria: []Criterion{
			{Name: "內容", Weight: 0.4, Levels: lv(24, "立意明確，內容充實，感受真摯。", 14, "內容尚算切題，略欠深度。", 6, "內容空泛或離題。")},
			{Name: "表達", Weight: 0.3, Levels: lv(18, "用詞精準，句式多變。", 10, "表達通順，偶有語病。", 4, "語病較多。")},
			{Name: "結構", Weight: 0.2, Levels: lv(12, "結構嚴密，分段合理。", 7, "結構完整。", 3, "結構鬆散。")},
			{Name: "標點字體", Weight: 0.1, Levels: lv(6, "標點正確，字體端正。", 3, "偶有錯別字。", 1, "錯別字多。")},
		}},
	}
}
