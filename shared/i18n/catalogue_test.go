package i18n

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// samples renders format with an argument for each of its verbs: 4 for a
// number, text (a teacher's words, a model's summary) for the others.
func samples(format, text string) []any {
	var args []any
	for _, v := range verbs(format) {
		for len(args) <= v.arg {
			args = append(args, nil)
		}
		if v.verb == 'd' {
			args[v.arg] = 4
		} else {
			args[v.arg] = text
		}
	}
	return args
}

// render is message m in l with every text argument text.
func render(l Lang, m Msg, text string) string {
	return l.Text(m, samples(catalogue[m][l], text)...)
}

func punctuationOnly(s string) bool {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) }) == ""
}

func TestCatalogueComplete(t *testing.T) {
	for m := None + 1; m < numMsgs; m++ {
		en, zh := render(English, m, "1A"), render(Chinese, m, "1A")
		if en == "" || zh == "" {
			t.Errorf("message %d lacks a translation: en %q, zh %q", m, en, zh)
		}
		if HasHan(en) {
			t.Errorf("message %d: the English text has Chinese in it: %q", m, en)
		}
		// A separator ("、") is punctuation alone; any other text has Chinese.
		if !HasHan(zh) && !punctuationOnly(zh) {
			t.Errorf("message %d: the Chinese text has no Chinese: %q", m, zh)
		}
	}
	if English.Text(None) != "" || English.Text(numMsgs) != "" {
		t.Error("None and a Msg past the catalogue must have no text")
	}
}

// Both languages of a message take the same arguments, with verbs that
// verbs reads (%s %d %q %v, optionally indexed), and render without a
// formatting error.
func TestCatalogueFormats(t *testing.T) {
	shape := func(format string) map[int]rune {
		out := map[int]rune{} // a number or a text (%q quotes in English, 「」 in Chinese)
		for _, v := range verbs(format) {
			out[v.arg] = 's'
			if v.verb == 'd' {
				out[v.arg] = 'd'
			}
		}
		return out
	}
	for m := None + 1; m < numMsgs; m++ {
		en, zh := catalogue[m][English], catalogue[m][Chinese]
		if fmt.Sprint(shape(en)) != fmt.Sprint(shape(zh)) {
			t.Errorf("message %d: the languages take different arguments: %q, %q", m, en, zh)
		}
		for _, v := range verbs(en) {
			if !strings.ContainsRune("sdqv", v.verb) {
				t.Errorf("message %d: verb %%%c in %q", m, v.verb, en)
			}
		}
		for _, l := range []Lang{English, Chinese} {
			if s := render(l, m, "1A"); strings.Contains(s, "%!") {
				t.Errorf("message %d in %v: %q", m, l.Tag(), s)
			}
		}
	}
}

// doubled is two closing marks in a row ("。。", "..", ". .", "，。", "!!").
var doubled = regexp.MustCompile(`[` + regexp.QuoteMeta(closers) + `]\s*[` + regexp.QuoteMeta(closers) + `]`)

// No message, in either language, doubles its punctuation, whatever its
// arguments end with: an argument's closing mark gives way to the
// message's own.
func TestNoDoubledPunctuation(t *testing.T) {
	endings := []string{"", "。", ".", "！", "?", "；", "，"}
	for m := None + 1; m < numMsgs; m++ {
		for _, l := range []Lang{English, Chinese} {
			for _, end := range endings {
				if s := render(l, m, "4 个文件"+end); doubled.MatchString(s) {
					t.Errorf("message %d in %v with an argument ending %q: %q", m, l.Tag(), end, s)
				}
			}
		}
	}
}

func TestTextFitsArguments(t *testing.T) {
	tests := []struct {
		l    Lang
		m    Msg
		args []any
		want string
	}{
		// The report plan's confirmation with a model's summary.
		{Chinese, ReportConfirm, []any{4, "按模板撰写 4 个文件。"}, "计划共 4 个章节：按模板撰写 4 个文件。确认后开始撰写。"},
		{English, ReportConfirm, []any{4, "Write 4 files."}, "The plan has 4 sections: Write 4 files. Confirm to start writing."},
		// A closing mark the message does not follow stays.
		{English, ResearchSearching, []any{"why did it fall?"}, "Searching: why did it fall?"},
		{Chinese, PlanAmbiguous, []any{"1A。"}, "「1A。」对应多个选项，您指的是哪一个？"},
		// Quoted and numeric arguments are left alone; indexes are followed.
		{English, RebuildNotice, []any{"p.", "adds a.", 3}, `I revised the page "p.": it adds a, 3 blocks in all. Build it again to see the change.`},
		{English, DataGrades, []any{"Amy.", 2, ""}, "2 grades for Amy."},
		{English, LabelMeanPercent, nil, "Mean (%)"},
	}
	for _, tt := range tests {
		if got := tt.l.Text(tt.m, tt.args...); got != tt.want {
			t.Errorf("Text(%d, %q) = %q, want %q", tt.m, tt.args, got, tt.want)
		}
	}
}

func TestParts(t *testing.T) {
	if got := fmt.Sprintf("%q", Chinese.Parts(PageNumberOf)); got != `["第 " " 页，共 " " 页"]` {
		t.Errorf("Chinese parts %s", got)
	}
	if got := fmt.Sprintf("%q", English.Parts(PageNumberOf)); got != `["Page " " of " ""]` {
		t.Errorf("English parts %s", got)
	}
}

func TestListAndSkill(t *testing.T) {
	if got := Chinese.List([]string{"语法", "阅读"}); got != "语法、阅读" {
		t.Errorf("Chinese list %q", got)
	}
	if got := English.List([]string{"grammar", "reading"}); got != "grammar, reading" {
		t.Errorf("English list %q", got)
	}
	for _, tt := range []struct {
		l         Lang
		key, want string
	}{
		{Chinese, "grammar", "语法"}, {English, "grammar", "grammar"}, {Chinese, "overall", "整体"},
		{Chinese, "listening", "listening"},
	} {
		if got := tt.l.Skill(tt.key); got != tt.want {
			t.Errorf("%v.Skill(%q) = %q, want %q", tt.l.Tag(), tt.key, got, tt.want)
		}
	}
}
