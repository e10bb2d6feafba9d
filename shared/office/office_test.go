package office_test

import (
	"reflect"
	"testing"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/office"
)

func TestSpans(t *testing.T) {
	tests := []struct {
		in   string
		want []office.Span
	}{
		{"plain", []office.Span{{Text: "plain"}}},
		{"a **b** c", []office.Span{{Text: "a "}, {Text: "b", Bold: true}, {Text: " c"}}},
		{"**全部加粗**", []office.Span{{Text: "全部加粗", Bold: true}}},
		{"2**3 is not bold", []office.Span{{Text: "2**3 is not bold"}}},
		{"**a** and **b", []office.Span{{Text: "a", Bold: true}, {Text: " and **b"}}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := office.Spans(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Spans(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

// TestTextFunctions holds the string functions to their tables.
func TestTextFunctions(t *testing.T) {
	funcs := []struct {
		name  string
		f     func(string) string
		tests map[string]string
	}{
		{"ListItem", office.ListItem, map[string]string{
			"- item":          "item",
			"• 要点":            "要点",
			"1. 理解定理":         "理解定理",
			"2、掌握方法":          "掌握方法",
			"3) third":        "third",
			"（4）第四":           "第四",
			"1.理解":            "理解",
			"3.14 是圆周率的近似值":   "3.14 是圆周率的近似值",
			"2024 年的目标":       "2024 年的目标",
			"12. twelve":      "twelve",
			"100. not a list": "100. not a list",
			"  spaced   out ": "spaced out",
			"1.":              "1.",
		}},
		{"Clean", office.Clean, map[string]string{
			"a\x00b\x0bc":      "abc",
			"line1\r\nline2":   "line1\nline2",
			"  trim  ":         "trim",
			"tab\tkept":        "tab\tkept",
			"bad\uFFFEchar":    "badchar",
			"中文\u0007提示":       "中文提示",
			"\u200bzero width": "\u200bzero width", // format characters are text
		}},
		{"Line", office.Line, map[string]string{
			"a\n b\t\tc": "a b c",
		}},
	}
	for _, fn := range funcs {
		for in, want := range fn.tests {
			if got := fn.f(in); got != want {
				t.Errorf("%s(%q) = %q, want %q", fn.name, in, got, want)
			}
		}
	}
}

func TestLang(t *testing.T) {
	if got := office.Lang("", "Pythagoras", "勾股定理"); got != "zh-CN" {
		t.Errorf("Lang = %q, want zh-CN", got)
	}
	if got := office.Lang("", "Pythagoras"); got != "en-US" {
		t.Errorf("Lang = %q, want en-US", got)
	}
	if got := office.Lang("zh-TW", "Pythagoras"); got != "zh-TW" {
		t.Errorf("Lang = %q, want the given tag", got)
	}
	for tag, want := range map[string]bool{"zh": true, "zh-CN": true, "ZH-hans": true, "en-US": false, "": false} {
		if i18n.IsChineseTag(tag) != want {
			t.Errorf("IsChinese(%q) = %v", tag, !want)
		}
	}
}

func TestEmWidth(t *testing.T) {
	if w := office.EmWidth("勾股定理"); w != 4 {
		t.Errorf("EmWidth(Han) = %v, want 4", w)
	}
	if w := office.EmWidth("**勾股**"); w != 2 {
		t.Errorf("EmWidth ignores markers: got %v, want 2", w)
	}
	if zh, en := office.EmWidth("直角三角形"), office.EmWidth("right"); en >= zh {
		t.Errorf("five Latin letters (%v) should be narrower than five Han characters (%v)", en, zh)
	}
}

func TestDocumentNormalized(t *testing.T) {
	in := office.Document{
		Title: " 教案\n标题 ", Fields: []string{"姓名", " "},
		Sections: []office.Section{
			{Heading: "一、目标", Level: 7, Blocks: []office.Block{
				office.Paragraph{Text: "  "},
				office.List{Ordered: true, Items: []string{"1. 理解", "", "- 应用"}},
				office.List{Items: []string{" "}},
				office.Table{Headers: []string{"a", "b"}, Rows: [][]string{{"", " "}, {"1", "2\n3"}}},
			}},
			{Heading: " ", Blocks: []office.Block{office.Paragraph{Text: ""}}},
		},
	}
	want := office.Document{
		Title: "教案 标题", Fields: []string{"姓名"},
		Sections: []office.Section{
			{Heading: "一、目标", Level: 3, Blocks: []office.Block{
				office.List{Ordered: true, Items: []string{"理解", "应用"}},
				office.Table{Headers: []string{"a", "b"}, Rows: [][]string{{"1", "2 3"}}},
			}},
		},
	}
	if got := in.Normalized(); !reflect.DeepEqual(got, want) {
		t.Errorf("Normalized =\n%#v\nwant\n%#v", got, want)
	}
}

func TestDeckNormalized(t *testing.T) {
	in := office.Deck{Title: "课件", Slides: []office.Slide{
		{Title: " ", Bullets: []string{" "}},
		{Title: "目标", Bullets: []string{"• 一", "2. 二"}, Notes: "第一行\r\n第二行"},
	}}
	want := office.Deck{Title: "课件", Slides: []office.Slide{
		{Title: "目标", Bullets: []string{"一", "二"}, Notes: "第一行\n第二行"},
	}}
	if got := in.Normalized(); !reflect.DeepEqual(got, want) {
		t.Errorf("Normalized = %#v, want %#v", got, want)
	}
}

func TestTable(t *testing.T) {
	tab := office.Table{Headers: []string{"a"}, Rows: [][]string{{"1", "2", "3"}, {}}}
	if tab.Columns() != 3 {
		t.Errorf("Columns = %d, want 3", tab.Columns())
	}
	if tab.Cell(-1, 2) != "" || tab.Cell(0, 2) != "3" || tab.Cell(1, 0) != "" {
		t.Error("Cell does not pad short rows")
	}
}
