package offlinemodel

import (
	"fmt"
	"strings"
)

// A quiz of several question types ("2 multiple choice and 2 true/false",
// "选择题和判断题都要"): the quiz tool writes one type per call, so the
// stand-in calls it once per type, as a model would, and counts them all.

// quizPart is one type of a mixed quiz and how many of it.
type quizPart struct {
	count int
	typ   string
}

var (
	zhTypeMention = `(?:(\d+|[一二两三四五六七八九十]+)\s*道\s*)?(单选题|多选题|选择题|判断题|填空题|简答题|问答题)`
	enTypeMention = `(?i)(?:\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+)?\b(multiple[- ]choice|multiple[- ]answer|true/false|true-false|true or false|fill[- ]in[- ]the[- ]blanks?|fill-in|gap-fill|short[- ]answer)`
)

// quizParts reads the question types a request asks for with their
// counts; fewer than two types is no mixed quiz (nil). Types named without
// a count share total (the request's count) evenly, or take "各 n 道" /
// "n each".
func quizParts(s string, total int) []quizPart {
	var parts []quizPart
	seen := map[string]bool{}
	for _, p := range []string{zhTypeMention, enTypeMention} {
		for _, m := range compiled(p).FindAllStringSubmatch(s, -1) {
			typ, _ := questionTypeIn(m[2])
			if seen[typ] {
				continue
			}
			seen[typ] = true
			n, _ := numberWord(m[1])
			parts = append(parts, quizPart{n, typ})
		}
	}
	if len(parts) < 2 {
		return nil
	}
	each := 0
	if m := submatch(`各\s*(\d+|[一二两三四五六七八九十]+)\s*道|(?i)\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:of\s+)?each\b`, s); m != nil {
		each, _ = numberWord(m[1] + m[2])
	}
	var given, unset int
	for _, p := range parts {
		given += p.count
		if p.count == 0 {
			unset++
		}
	}
	left := max(0, total-given)
	if given == total && unset > 0 { // the one count said was a part's, not the total
		left = 0
	}
	for i := range parts {
		switch {
		case parts[i].count > 0:
		case each > 0:
			parts[i].count = each
		default:
			share := left / unset
			if left%unset > 0 {
				share++
			}
			parts[i].count = max(1, share)
			left -= parts[i].count
			unset--
		}
	}
	return parts
}

// mixed reports whether the spec asks for several types.
func (q quizSpec) mixed() bool { return len(q.parts) > 1 }

// describeParts names a mixed quiz's parts: "3 道单选题、3 道判断题",
// "2 multiple-choice questions and 2 true/false questions".
func describeParts(l lang, parts []quizPart) string {
	var names []string
	for _, p := range parts {
		names = append(names, l.pick(fmt.Sprintf("%d 道%s", p.count, typeName(zh, p.typ, p.count)),
			fmt.Sprintf("%d %s", p.count, typeName(en, p.typ, p.count))))
	}
	if l == zh {
		return strings.Join(names, "、")
	}
	if len(names) == 2 {
		return names[0] + " and " + names[1]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// partsTotal is the questions of a mixed quiz's parts together.
func partsTotal(parts []quizPart) int {
	n := 0
	for _, p := range parts {
		n += p.count
	}
	return n
}
