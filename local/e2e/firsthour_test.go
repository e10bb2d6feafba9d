package e2e

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/insightedge/insightedge/shared/i18n"
)

// A teacher's first hour with the offline stand-in model (the quality pass
// after issue 23): what a teacher asks next, run through the whole product.

// checkWords fails the test for each word of says that text lacks and
// each word of unsaid that it has; what names the text.
func checkWords(t *testing.T, what, text string, says, unsaid []string) {
	t.Helper()
	for _, w := range says {
		if !strings.Contains(text, w) {
			t.Errorf("%s does not say %q:\n%s", what, w, text)
		}
	}
	for _, w := range unsaid {
		if strings.Contains(text, w) {
			t.Errorf("%s says %q:\n%s", what, w, text)
		}
	}
}

// quizTurn is one turn of a quiz conversation and what it must give.
type quizTurn struct {
	msg string
	// count and qtype are the questions the turn must show, all of one type;
	// zh whether they are written in Chinese.
	count int
	qtype string
	zh    bool
	// says are words the answer must contain.
	says []string
}

// TestStandInQuizFollowUps: the refinements a teacher asks after a quiz
// ("再加两道题", "把第三题改成填空题", "换成英文", "难一点") each make the questions
// asked for, on the quiz's topic, and say what was done; none is answered
// as an unknown topic ("关于「再加两道题」…"). Fewer questions than asked
// (the limit of one go, no new question left) are said, with why.
func TestStandInQuizFollowUps(t *testing.T) {
	s := NewLocal(t, nil)
	for name, turns := range map[string][]quizTurn{
		"zh": {
			{msg: "出 5 道牛顿第一定律的选择题", count: 5, qtype: "single_choice", zh: true},
			{msg: "再加两道题", count: 2, qtype: "single_choice", zh: true, says: []string{"2 道", "牛顿第一定律", "不重复"}},
			{msg: "换成英文", count: 2, qtype: "single_choice", zh: false, says: []string{"英文", "2 道", "牛顿第一定律"}},
			{msg: "把第三题改成填空题", count: 1, qtype: "fill_blank", zh: false, says: []string{"第 3 题", "填空题"}},
		},
		// Fewer than asked is said, with why.
		"zh, fewer": {
			{msg: "出 25 道牛顿第一定律的选择题", count: 20, qtype: "single_choice", zh: true, says: []string{"你要的是 25 道，一次最多出 20 道"}},
			{msg: "出 5 道牛顿第一定律的判断题", count: 5, qtype: "true_false", zh: true},
			{msg: "再出 5 道", count: 5, qtype: "true_false", zh: true},
			{msg: "再出 5 道", count: 5, qtype: "true_false", zh: true},
			{msg: "再出 5 道", count: 1, qtype: "true_false", zh: true, says: []string{"你要的是 5 道", "只剩这 1 道"}},
		},
		// A language asked for is the questions'; the answer stays in the teacher's.
		"language asked": {
			{msg: "用英文出 3 道光合作用的选择题", count: 3, qtype: "single_choice", says: []string{"「光合作用」的英文单选题"}},
		},
		"language asked, en": {
			{msg: "Generate 3 questions in Chinese about gravity", count: 3, qtype: "single_choice", zh: true, says: []string{"on gravity (in Chinese)"}},
		},
		// A topic said as what to test ("对惯性的理解") is the topic.
		"topic to test": {
			{msg: "出 3 道题考考学生对惯性的理解", count: 3, qtype: "single_choice", zh: true, says: []string{"「惯性」"}},
		},
		"en": {
			{msg: "Make 3 true/false questions about the water cycle", count: 3, qtype: "true_false"},
			{msg: "make question 2 multiple choice", count: 1, qtype: "single_choice", says: []string{"question 2", "multiple-choice"}},
			{msg: "Add two more", count: 2, qtype: "single_choice", says: []string{"2 more"}},
			{msg: "Make them easier", count: 2, qtype: "single_choice", says: []string{"easy"}},
			{msg: "Translate them into Chinese", count: 2, qtype: "single_choice", zh: true, says: []string{"Chinese"}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			conv := ""
			for _, tt := range turns {
				st := say(t, s.URL, conv, tt.msg)
				conv = st.Header.Get("X-Conversation-Id")
				qs := st.data(t, "data-quiz-question")
				if len(qs) != tt.count {
					t.Fatalf("%q: %d questions, want %d; answer %q", tt.msg, len(qs), tt.count, st.text(t))
				}
				for _, q := range qs {
					q := q["question"].(map[string]any)
					text, _ := q["question"].(string)
					if q["type"] != tt.qtype {
						t.Errorf("%q: question %q is %v, want %s", tt.msg, text, q["type"], tt.qtype)
					}
					if i18n.HasHan(text) != tt.zh {
						t.Errorf("%q: question %q is not in the language asked for (Chinese: %v)", tt.msg, text, tt.zh)
					}
				}
				// Not echoed as a topic: the answer does not quote the request.
				checkWords(t, fmt.Sprintf("the answer to %q", tt.msg), st.text(t), tt.says, []string{tt.msg})
			}
		})
	}
}

// TestStandInMixedQuiz: a quiz of several types gives each type as many
// questions as asked (or the total shared between them), and says so.
func TestStandInMixedQuiz(t *testing.T) {
	s := NewLocal(t, nil)
	for _, tt := range []struct {
		msg  string
		want map[string]int
		says []string
	}{
		{"出 6 道光合作用的题，选择题和判断题都要", map[string]int{"single_choice": 3, "true_false": 3}, []string{"6 道", "3 道单选题", "3 道判断题"}},
		{"Create a quiz on photosynthesis with 2 multiple choice and 2 true/false questions", map[string]int{"single_choice": 2, "true_false": 2},
			[]string{"4 questions", "2 multiple-choice", "2 true/false"}},
		{"出 4 道关于二次函数的题，选择题和填空题各两道", map[string]int{"single_choice": 2, "fill_blank": 2}, []string{"二次函数", "2 道填空题"}},
		{"出 3 道选择题和 2 道判断题，关于牛顿第一定律", map[string]int{"single_choice": 3, "true_false": 2}, []string{"5 道", "牛顿第一定律"}},
	} {
		st := say(t, s.URL, "", tt.msg)
		got := map[string]int{}
		for _, q := range st.data(t, "data-quiz-question") {
			got[q["question"].(map[string]any)["type"].(string)]++
		}
		if !maps.Equal(got, tt.want) {
			t.Errorf("%q: questions by type %v, want %v", tt.msg, got, tt.want)
		}
		checkWords(t, fmt.Sprintf("the answer to %q", tt.msg), st.text(t), tt.says, nil)
	}
}

// TestClarifyPickNamesThePage: after "分析 9Z 班英语成绩" asks which class,
// the page planned for the class picked (by its value, as a client sends
// it, or by its label, as a teacher types it) is named after that class,
// not after the class that does not exist.
func TestClarifyPickNamesThePage(t *testing.T) {
	s := NewLocal(t, nil)
	for _, pick := range []string{"value", "label"} {
		t.Run(pick, func(t *testing.T) {
			ask := say(t, s.URL, "", "分析 9Z 班英语成绩")
			conv := ask.Header.Get("X-Conversation-Id")
			var reply string
			for _, c := range lastData(t, ask, "data-clarify")["choices"].([]any) {
				if ch := c.(map[string]any); ch["value"] == "class-hk-f1a" {
					reply, _ = ch[pick].(string)
				}
			}
			if reply == "" {
				t.Fatalf("no choice for Form 1A: %v", lastData(t, ask, "data-clarify"))
			}
			next := say(t, s.URL, conv, reply)
			bp := lastData(t, next, "data-blueprint")
			name, _ := bp["name"].(string)
			if strings.Contains(name, "9Z") || !strings.Contains(name, "1A") {
				t.Errorf("picking %q planned the page %q: want it named after 1A", reply, name)
			}
			if text := next.text(t); strings.Contains(text, "9Z") {
				t.Errorf("the answer names the class that does not exist: %q", text)
			}
		})
	}
}

// TestStandInDataAnswersSayWhatTheyUse: a question about a subject the
// class does not teach is answered with the subject it does, and says so;
// a Chinese answer names skills and subjects in Chinese, not by the data
// service's English keys.
func TestStandInDataAnswersSayWhatTheyUse(t *testing.T) {
	s := NewLocal(t, nil)
	english := regexp.MustCompile(`(?i)\b(grammar|vocabulary|reading|writing|english|physics)\b`)
	for _, tt := range []struct {
		msg          string
		says, unsaid []string
		chinese      bool
	}{
		{msg: "3C 班的英语成绩怎么样？", says: []string{"3C 班没有英语科的成绩", "物理成绩"}, chinese: true},
		{msg: "How did 1B do in maths?", says: []string{"no Mathematics results", "English results"}},
		{msg: "1B 班英语成绩怎么样？", unsaid: []string{"没有"}, chinese: true},
		{msg: "1A 班哪些学生最需要帮助？", says: []string{"最弱项"}, chinese: true},
	} {
		answer := say(t, s.URL, "", tt.msg).text(t)
		checkWords(t, fmt.Sprintf("the answer to %q", tt.msg), answer, tt.says, tt.unsaid)
		if tt.chinese {
			// Assignment titles are the school's own names: only the
			// answer's words around them count.
			words := regexp.MustCompile(`「[^」]*」`).ReplaceAllString(answer, "")
			if m := english.FindString(words); m != "" {
				t.Errorf("%q: the Chinese answer names %q in English: %q", tt.msg, m, answer)
			}
		}
	}
}

// TestStandInSaysWhatItCannotDo: a request no tool does is declined
// plainly with what the assistant can do instead (no class list, no tool
// called, no promise that a real model would do it), "what can't you do?"
// is answered, and a request the stand-in only lacks the knowledge for is
// not quoted back as if it were a topic.
func TestStandInSaysWhatItCannotDo(t *testing.T) {
	s := NewLocal(t, nil)
	for _, tt := range []struct{ msg, says string }{
		{"帮我订一张去北京的机票", "我做不了"},
		{"帮我批改学生的作文", "不能直接批改"},
		{"Can you grade my students' essays?", "can't grade"},
		{"明天天气怎么样", "实时信息"},
		{"What can't you do?", "What I can't do"},
		{"你有哪些做不了的？", "做不了的事"},
		{"帮我写一首关于春天的诗", "离线演示"},
	} {
		st := say(t, s.URL, "", tt.msg)
		// The request is not quoted back as a topic.
		checkWords(t, fmt.Sprintf("the answer to %q", tt.msg), st.text(t), []string{tt.says}, []string{"「" + tt.msg, `"` + tt.msg})
		for _, typ := range st.types(t) {
			if strings.HasPrefix(typ, "tool-") {
				t.Errorf("%q: a tool was called (%s) for what no tool does", tt.msg, typ)
				break
			}
		}
	}
}

// buildFromChat sends a request for a page as the conversation's first
// message and builds the page from its blueprint card.
func (b *browser) buildFromChat(msg string) {
	b.t.Helper()
	b.send(msg, 1)
	b.waitJS("the blueprint card", `!!document.querySelector('#chat .blueprint-card button.build')`)
	b.run("build", chromedp.Click(chromedp.CSS("#chat .blueprint-card button.build")))
	b.waitPage("the built page", 1)
}

// TestConsoleFirstHour: what the dev console shows a teacher. A finished
// interactive page's progress line says it is ready, not "生成页面
// building". On a built page, a question about it is answered from the
// page's own figures, which the console sends as the pageContext's
// dataSummary (not with the class list, not with a note on how pages are
// made); a patch plan's card says the change in words (the block's title,
// the chart by name), the op and the block's id only as a tooltip.
func TestConsoleFirstHour(t *testing.T) {
	s := NewLocal(t, nil)
	b := newBrowser(t, s.URL)
	b.buildFromChat("给 1A 班做一份英语成绩分析")
	b.run("back to the chat", chromedp.Click(chromedp.CSS(`nav button[data-tab="chat"]`)))
	for i, tt := range []struct {
		msg  string
		says []string
	}{
		{"What is the class average?", []string{"66.7%"}},
		{"及格率是多少？", []string{"68.6%"}},
		{"哪个作业最难？", []string{"Reading Comprehension: The Lost Kite", "差别不大"}},
		{"哪些学生需要帮助？", []string{"学生排名", "Lau Hei Long"}},
	} {
		b.send(tt.msg, i+2)
		checkWords(t, fmt.Sprintf("the answer to %q", tt.msg), b.lastAssistant(), tt.says, []string{"Form 1B"})
	}
	b.send("把雷达图换成柱状图", 6)
	var card string
	b.eval(`[...document.querySelectorAll('#chat .msg.assistant')].pop().querySelector('.patch-card').innerText`, &card)
	checkWords(t, "the patch card", card, []string{"「各项技能得分率」", "柱状图"}, []string{"restyle", "skillChart"})

	b.send("做一个单摆的互动网页", 7)
	var page []string // the progress line, then the frames' titles
	b.eval(`(() => { const m = [...document.querySelectorAll('#chat .msg.assistant')].pop(), p = m.querySelector('.page-progress');
		return [p ? p.innerText : ''].concat([...m.querySelectorAll('.card.interactive iframe')].map((f) => f.title)); })()`, &page)
	if len(page) != 2 {
		t.Fatalf("%d page frames, want 1", len(page)-1)
	}
	checkWords(t, "the finished page's progress line", page[0], []string{"已生成"}, []string{"building"})
}

// TestStandInSaysWhatItChanged: a deck asked for with a number of slides
// that the outline does not have says so; an English sentence about a
// class starts with a capital.
func TestStandInSaysWhatItChanged(t *testing.T) {
	s := NewLocal(t, nil)
	for _, tt := range []struct {
		msg          string
		says, unsaid []string
	}{
		{"Make a 10-slide deck on Newton's first law", []string{"You asked for 10 slides; this outline has 8"}, nil},
		{"做一个 12 页的光合作用 PPT", []string{"你要的是 12 页"}, nil},
		{"做一个光合作用的 PPT", nil, []string{"你要的是"}},
		{"How many students are in 3C?", []string{"**Class 3C** has 32 students"}, nil},
	} {
		checkWords(t, fmt.Sprintf("the answer to %q", tt.msg), say(t, s.URL, "", tt.msg).text(t), tt.says, tt.unsaid)
	}
}

// TestStandInOutlineChanges: a change to a proposed outline ("再加一页…",
// "去掉第 5 页") proposes it again with the change, never quoting the request
// back as a topic, and "可以" then builds the changed deck, not an answer
// about another topic.
func TestStandInOutlineChanges(t *testing.T) {
	s := newFileServer(t)
	conv := say(t, s.URL, "", "做一个光合作用的 PPT").Header.Get("X-Conversation-Id")
	titles := func(st stream) []string {
		var out []string
		for _, sl := range payloads[outlineEvent](t, st, "data-pptx-outline")[0].Slides {
			out = append(out, sl.Title)
		}
		return out
	}
	added := say(t, s.URL, conv, "再加一页关于呼吸作用的对比")
	if got := titles(added); len(got) != 9 || got[7] != "呼吸作用的对比" {
		t.Errorf("after adding a slide, the outline is %q: want 9 slides, the new one before the last", got)
	}
	checkWords(t, "the answer to the added slide", added.text(t), []string{"已按你的意思调整", "共 9 页"}, []string{"「再加一页", "你要的是"})
	dropped := titles(say(t, s.URL, conv, "去掉第 5 页"))
	if len(dropped) != 8 || slices.Contains(dropped, "实验：绿叶在光下制造淀粉") {
		t.Errorf("after dropping slide 5, the outline is %q", dropped)
	}
	deck := say(t, s.URL, conv, "可以，就按这个提纲生成")
	one(t, deck, "pptx")
	checkWords(t, "the deck's answer", deck.text(t), []string{"光合作用"}, []string{"勾股定理"})
}

// TestStandInFollowUpTopicIsTheTeachers: "再说简单一点" after the stand-in
// said it does not know something explains the topic the teacher talked
// about, not the last of the sample topics the stand-in listed.
func TestStandInFollowUpTopicIsTheTeachers(t *testing.T) {
	s := NewLocal(t, nil)
	conv := say(t, s.URL, "", "什么是光合作用？").Header.Get("X-Conversation-Id")
	say(t, s.URL, conv, "明天的课怎么安排比较好？")
	checkWords(t, "the simpler explanation", say(t, s.URL, conv, "再说简单一点").text(t), []string{"植物"}, []string{"直角三角形"})
}

// TestStandInPracticeAskedBack: "出一份期中考试试卷" names no topic (a quiz on
// 「期中考试」 echoed the request): it asks for the class, then for a topic
// among that class's subject's, in the conversation's language even though
// the class was picked by its English name.
func TestStandInPracticeAskedBack(t *testing.T) {
	s := NewLocal(t, nil)
	first := say(t, s.URL, "", "出一份期中考试试卷")
	conv := first.Header.Get("X-Conversation-Id")
	if qs := first.data(t, "data-quiz-question"); len(qs) > 0 {
		t.Fatalf("a quiz was written on %v", lastData(t, first, "data-quiz-complete")["topic"])
	}
	if c := lastData(t, first, "data-clarify"); c["hint"] != "needClassId" {
		t.Fatalf("first clarify %v: want the class asked", c)
	}
	topic := lastData(t, say(t, s.URL, conv, "Form 1A"), "data-clarify")
	question, _ := topic["question"].(string)
	checkWords(t, "the topic question after picking Form 1A", question+" "+strings.Join(toStrings(topic["options"]), " | "),
		[]string{"1A 班", "现在完成时"}, []string{"Which topic"})
}

// TestClarifyPickKeepsTheLanguage: a Chinese question about a class, asked
// back which class and answered by a choice's label ("Form 1A · English",
// words in English), is answered in Chinese: the pick is the teacher's
// choice, not a change of language.
func TestClarifyPickKeepsTheLanguage(t *testing.T) {
	s := NewLocal(t, nil)
	ask := say(t, s.URL, "", "哪些学生语法最弱？")
	conv := ask.Header.Get("X-Conversation-Id")
	var label string
	for _, c := range lastData(t, ask, "data-clarify")["choices"].([]any) {
		if ch := c.(map[string]any); ch["value"] == "class-hk-f1a" {
			label, _ = ch["label"].(string)
		}
	}
	if label == "" {
		t.Fatalf("no choice for Form 1A: %v", lastData(t, ask, "data-clarify"))
	}
	pick := say(t, s.URL, conv, label)
	text := pick.text(t)
	if !regexp.MustCompile(`\p{Han}{4,}`).MatchString(text) || strings.Contains(text, "In **class") {
		t.Errorf("picking %q after a Chinese question was answered in English: %q", label, text)
	}
	// The product's own words too: the turn's language is decided once,
	// with the conversation's (i18n.ForTurn).
	progress := pick.data(t, "data-tool-progress")
	if len(progress) == 0 {
		t.Fatal("the pick's turn showed no tool progress")
	}
	for _, p := range progress {
		if m, _ := p["message"].(string); m != "" && !i18n.HasHan(m) {
			t.Errorf("tool progress in English after a Chinese question: %q", m)
		}
	}
}
