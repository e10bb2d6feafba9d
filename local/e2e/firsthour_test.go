package e2e

import (
	"maps"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/insightedge/insightedge/shared/i18n"
)

// A teacher's first hour with the offline stand-in model (the quality pass
// after issue 23): what a teacher asks next, run through the whole product.

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
// as an unknown topic ("关于「再加两道题」…").
func TestStandInQuizFollowUps(t *testing.T) {
	s := NewLocal(t, nil)
	for name, turns := range map[string][]quizTurn{
		"zh": {
			{msg: "出 5 道牛顿第一定律的选择题", count: 5, qtype: "single_choice", zh: true},
			{msg: "再加两道题", count: 2, qtype: "single_choice", zh: true, says: []string{"2 道", "牛顿第一定律", "不重复"}},
			{msg: "换成英文", count: 2, qtype: "single_choice", zh: false, says: []string{"英文", "2 道", "牛顿第一定律"}},
			{msg: "把第三题改成填空题", count: 1, qtype: "fill_blank", zh: false, says: []string{"第 3 题", "填空题"}},
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
				answer := st.text(t)
				for _, w := range tt.says {
					if !strings.Contains(answer, w) {
						t.Errorf("%q: the answer %q does not say %q", tt.msg, answer, w)
					}
				}
				if strings.Contains(answer, tt.msg) {
					t.Errorf("%q: the answer echoes the request as a topic: %q", tt.msg, answer)
				}
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
		for _, w := range tt.says {
			if answer := st.text(t); !strings.Contains(answer, w) {
				t.Errorf("%q: the answer %q does not say %q", tt.msg, answer, w)
			}
		}
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
		for _, w := range tt.says {
			if !strings.Contains(answer, w) {
				t.Errorf("%q: the answer %q does not say %q", tt.msg, answer, w)
			}
		}
		for _, w := range tt.unsaid {
			if strings.Contains(answer, w) {
				t.Errorf("%q: the answer %q says %q", tt.msg, answer, w)
			}
		}
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
		answer := st.text(t)
		if !strings.Contains(answer, tt.says) {
			t.Errorf("%q: the answer %q does not say %q", tt.msg, answer, tt.says)
		}
		if strings.Contains(answer, "「"+tt.msg) || strings.Contains(answer, `"`+tt.msg) {
			t.Errorf("%q: the request is quoted back as a topic: %q", tt.msg, answer)
		}
		for _, typ := range st.types(t) {
			if strings.HasPrefix(typ, "tool-") {
				t.Errorf("%q: a tool was called (%s) for what no tool does", tt.msg, typ)
				break
			}
		}
	}
}

// TestConsoleInteractiveProgressGivesWay: once an interactive page is
// there, its progress line says it is ready, not "生成页面 building".
func TestConsoleInteractiveProgressGivesWay(t *testing.T) {
	s := NewLocal(t, nil)
	b := newBrowser(t, s.URL)
	b.send("做一个单摆的互动网页", 1)
	var got struct {
		Progress string
		Frames   int
	}
	b.eval(`(() => { const m = [...document.querySelectorAll('#chat .msg.assistant')].pop(), p = m.querySelector('.page-progress');
		return {Progress: p ? p.innerText : '', Frames: m.querySelectorAll('.card.interactive iframe').length}; })()`, &got)
	if got.Frames != 1 || !strings.Contains(got.Progress, "已生成") || strings.Contains(got.Progress, "building") {
		t.Errorf("%d page frames, progress line %q after the page is ready: want 1 frame and a line that says it is ready", got.Frames, got.Progress)
	}
}

// TestConsolePageQuestions: on a built page, a question about it is
// answered from the page's own figures, which the console sends as the
// pageContext's dataSummary: not with the teacher's class list, and not
// with a general note about how pages are made.
func TestConsolePageQuestions(t *testing.T) {
	s := NewLocal(t, nil)
	b := newBrowser(t, s.URL)
	b.send("给 1A 班做一份英语成绩分析", 1)
	b.waitJS("the blueprint card", `!!document.querySelector('#chat .blueprint-card button.build')`)
	b.run("build", chromedp.Click(chromedp.CSS("#chat .blueprint-card button.build")))
	b.waitPage("the built page", 1)
	var kpis string
	b.eval(`document.querySelector('#page [data-block-id="kpis"]').innerText`, &kpis)
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
		got := b.lastAssistant()
		for _, w := range tt.says {
			if !strings.Contains(got, w) {
				t.Errorf("%q: the answer does not say %q:\n%s\n(the page's key figures: %s)", tt.msg, w, got, kpis)
			}
		}
		if strings.Contains(got, "Form 1B") {
			t.Errorf("%q: answered with the class list, not from the page:\n%s", tt.msg, got)
		}
	}
}

// TestConsolePatchCardInWords: a patch plan's card says what will change
// in the teacher's words (the block's title, the chart by name), the op and
// the block's id only as a tooltip.
func TestConsolePatchCardInWords(t *testing.T) {
	s := NewLocal(t, nil)
	b := newBrowser(t, s.URL)
	b.send("给 1A 班做一份英语成绩分析", 1)
	b.waitJS("the blueprint card", `!!document.querySelector('#chat .blueprint-card button.build')`)
	b.run("build", chromedp.Click(chromedp.CSS("#chat .blueprint-card button.build")))
	b.waitPage("the built page", 1)
	b.run("back to the chat", chromedp.Click(chromedp.CSS(`nav button[data-tab="chat"]`)))
	b.send("把雷达图换成柱状图", 2)
	var card string
	b.eval(`[...document.querySelectorAll('#chat .msg.assistant')].pop().querySelector('.patch-card').innerText`, &card)
	for _, w := range []string{"「各项技能得分率」", "柱状图"} {
		if !strings.Contains(card, w) {
			t.Errorf("the patch card does not say %q:\n%s", w, card)
		}
	}
	for _, code := range []string{"restyle", "skillChart"} {
		if strings.Contains(card, code) {
			t.Errorf("the patch card shows the code %q:\n%s", code, card)
		}
	}
}
