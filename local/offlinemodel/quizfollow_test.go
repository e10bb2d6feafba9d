package offlinemodel

import "testing"

// TestQuizEditOf: the follow-ups a teacher writes after a quiz are read as
// the change they ask for; other messages are no edit.
func TestQuizEditOf(t *testing.T) {
	tests := []struct {
		msg  string
		want quizEdit
		ok   bool
	}{
		{"再加两道题", quizEdit{kind: editMore}, true},
		{"再来 3 道", quizEdit{kind: editMore}, true},
		{"还要两道", quizEdit{kind: editMore}, true},
		{"Add two more", quizEdit{kind: editMore}, true},
		{"add 3 more questions", quizEdit{kind: editMore}, true},
		{"把第三题改成填空题", quizEdit{kind: editRetype, index: 3, qtype: fillBlank}, true},
		{"第2题换成判断题", quizEdit{kind: editRetype, index: 2, qtype: trueFalse}, true},
		{"make question 2 multiple choice", quizEdit{kind: editRetype, index: 2, qtype: singleChoice}, true},
		{"Change question 4 into a true/false question", quizEdit{kind: editRetype, index: 4, qtype: trueFalse}, true},
		{"换成英文", quizEdit{kind: editTranslate, language: en}, true},
		{"翻译成中文", quizEdit{kind: editTranslate, language: zh}, true},
		{"Translate them into Chinese", quizEdit{kind: editTranslate, language: zh}, true},
		{"Can you put these in English?", quizEdit{kind: editTranslate, language: en}, true},
		{"难一点", quizEdit{kind: editLevel, difficulty: "hard"}, true},
		{"简单一些", quizEdit{kind: editLevel, difficulty: "easy"}, true},
		{"Make them easier", quizEdit{kind: editLevel, difficulty: "easy"}, true},
		{"把第三题改成更好的", quizEdit{}, false}, // no type named
		{"什么是牛顿第一定律？", quizEdit{}, false},
		{"谢谢", quizEdit{}, false},
		{"Why is the sky blue?", quizEdit{}, false},
	}
	for _, tt := range tests {
		got, ok := quizEditOf(tt.msg)
		if ok != tt.ok || got != tt.want {
			t.Errorf("quizEditOf(%q) = %+v, %v; want %+v, %v", tt.msg, got, ok, tt.want, tt.ok)
		}
	}
}

// TestLastQuizCount: the last quiz turn's questions are those its note adds
// to the previous note's.
func TestLastQuizCount(t *testing.T) {
	note := func(qs string) string {
		return "Produced: " + quizNoteLabel + " (generate_quiz_questions): {\"topic\":\"t\",\"questions\":[" + qs + "]}"
	}
	tests := []struct {
		name, history string
		want          int
	}{
		{"none", "Teacher: hi\nAssistant: hello", 5},
		{"one quiz", "Teacher: q\n" + note(`"a","b","c"`), 3},
		{"more", "Teacher: q\n" + note(`"a","b","c"`) + "\nTeacher: more\n" + note(`"a","b","c","d","e"`), 2},
		{"another language", "Teacher: q\n" + note(`"a","b","c"`) + "\nTeacher: en\n" + note(`"x","y","z"`), 3},
	}
	for _, tt := range tests {
		if got := lastQuizCount(tt.history); got != tt.want {
			t.Errorf("%s: lastQuizCount = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestAssessmentIsNoTopic: a kind of assessment is what is made, not what
// it is about: "出一份期中考试试卷" names no topic (and is asked back), a
// request with a topic keeps it.
func TestAssessmentIsNoTopic(t *testing.T) {
	for msg, want := range map[string]string{
		"出一份期中考试试卷":                "",
		"出 10 道期末复习题":              "",
		"Make a midterm exam":      "",
		"出一份二次函数的测验":               "二次函数",
		"Make a quiz on fractions": "fractions",
	} {
		if got := topicOf(detectLang(msg), msg); got != want {
			t.Errorf("topicOf(%q) = %q, want %q", msg, got, want)
		}
	}
}
