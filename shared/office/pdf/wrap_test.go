package pdf

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// em measures a Han character as 1 and anything else as 0.5: the breaker's
// decisions depend only on widths, not on a real font.
func em(s string, bold bool) float64 {
	w := 0.0
	for _, r := range s {
		if breaksAround(r) {
			w++
		} else {
			w += 0.5
		}
	}
	return w
}

func text(l line) string {
	var b strings.Builder
	for _, s := range l.segs {
		b.WriteString(s.text)
	}
	return b.String()
}

func TestWrap(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		width float64
		want  []string
	}{
		{"fits", "勾股定理", 10, []string{"勾股定理"}},
		{"han breaks anywhere", "一二三四五六七", 3, []string{"一二三", "四五六", "七"}},
		{"closing punctuation stays", "一二三，四五", 3, []string{"一二", "三，四", "五"}},
		{"opening punctuation stays", "一二（三四）", 3, []string{"一二", "（三", "四）"}},
		{"latin breaks at spaces", "the quick brown fox", 5, []string{"the quick", "brown fox"}},
		{"long word is cut", "abcdefghij", 2, []string{"abcd", "efgh", "ij"}},
		{"mixed", "用 a²+b²=c² 计算", 5, []string{"用", "a²+b²=c²", "计算"}},
		{"bold kept", "学习**重点**内容", 4, []string{"学习重点", "内容"}},
		{"no spaces at ends", "ab   cd", 1.5, []string{"ab", "cd"}},
		{"empty", "", 5, nil},
	}
	for _, tt := range tests {
		lines := wrap(tt.in, tt.width, em)
		var got []string
		for _, l := range lines {
			got = append(got, text(l))
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: wrap(%q, %v) = %q, want %q", tt.name, tt.in, tt.width, got, tt.want)
		}
	}
}

// TestWrapKeepsEveryCharacter is the property fpdf's MultiCell lacks: the
// lines hold every character of the input, in order, and none is wider
// than the column unless one character alone is.
func TestWrapKeepsEveryCharacter(t *testing.T) {
	in := strings.Repeat("勾股定理（又称毕达哥拉斯定理）指出：直角三角形两直角边的平方和等于斜边的平方，即 a² + b² = c²。In English: the **square** of the hypotenuse… ", 7)
	for _, width := range []float64{1, 2.5, 7, 13, 40} {
		lines := wrap(in, width, em)
		var joined strings.Builder
		for _, l := range lines {
			s := text(l)
			if l.width > width+1e-9 && utf8.RuneCountInString(s) > 1 {
				t.Errorf("width %v: line %q is %v wide", width, s, l.width)
			}
			if r, _ := utf8.DecodeRuneInString(s); strings.ContainsRune("，。：）", r) && width > 2 {
				t.Errorf("width %v: line starts with %q", width, r)
			}
			if r, _ := utf8.DecodeLastRuneInString(s); strings.ContainsRune("（", r) && width > 2 {
				t.Errorf("width %v: line ends with %q", width, r)
			}
			joined.WriteString(s)
		}
		strip := func(s string) string {
			return strings.Map(func(r rune) rune {
				if unicode.IsSpace(r) || r == '*' {
					return -1
				}
				return r
			}, s)
		}
		if strip(joined.String()) != strip(in) {
			t.Errorf("width %v: characters lost or reordered", width)
		}
	}
}
