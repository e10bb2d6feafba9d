package researchdata

import (
	"regexp"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	tests := []struct{ text, key string }{
		{"牛顿力学的发展", "newton"},
		{"《自然哲学的数学原理》出版 1687", "newton"},
		{"the history of the periodic table", "periodic"},
		{"光合作用研究史", "photosynthesis"},
		{"Darwin and natural selection", "evolution"},
		{"DNA 双螺旋的发现", "dna"},
		{"history of vaccines", "vaccine"},
		{"卢瑟福 α 粒子散射 1911", "atom"},
		{"Faraday induction 1831", "electricity"},
		{"best pizza toppings in Naples", ""},
		{"宋代瓷器 最新进展", ""},
		{"who invented the bicycle", ""},
	}
	for _, tt := range tests {
		got, ok := Find(tt.text)
		if (tt.key == "") == ok || (ok && got.Key != tt.key) {
			t.Errorf("Find(%q) = %q %v, want %q", tt.text, got.Key, ok, tt.key)
		}
	}
}

// TestCorpus checks what the stand-ins rely on: ISO dates in order, the
// significance enum, unique https URLs, 2–3 sentence descriptions, the
// recent milestone findable.
func TestCorpus(t *testing.T) {
	iso := regexp.MustCompile(`^\d{4}(-\d{2}(-\d{2})?)?$`)
	urls := map[string]bool{}
	for _, tp := range Topics() {
		if len(tp.Milestones) < 5 {
			t.Errorf("%s has %d milestones", tp.Key, len(tp.Milestones))
		}
		prev := ""
		for _, m := range tp.Milestones {
			if !iso.MatchString(m.Date) || m.Date < prev {
				t.Errorf("%s: date %q after %q", tp.Key, m.Date, prev)
			}
			prev = m.Date
			if m.Significance != "revolutionary" && m.Significance != "high" && m.Significance != "medium" {
				t.Errorf("%s: significance %q", m.TitleEn, m.Significance)
			}
			for _, n := range []int{Sentences(m.DescZh), Sentences(m.DescEn)} {
				if n < 2 || n > 3 {
					t.Errorf("%s: %d sentences", m.TitleEn, n)
				}
			}
		}
		for _, p := range tp.Pages() {
			if !strings.HasPrefix(p.URL, "https://") || urls[p.URL] || p.Title == "" || p.Content == "" {
				t.Errorf("page %+v", p)
			}
			urls[p.URL] = true
		}
	}
}
