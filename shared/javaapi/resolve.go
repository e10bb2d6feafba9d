package javaapi

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/insightedge/insightedge/shared/apperr"
)

// Entity resolution (seed 004 "EntityResolver 解析 '1A' → classId"): a teacher
// names a class the way Hong Kong schools do ("1A", "1A班", "Form 1A", "F.1A",
// "S1A", "中一甲", "中一A班", "1A English") and the resolver finds it in the
// teacher's own class list. This is data lookup over the teacher's data, by
// normalised names; it never decides what the teacher wants.

// Suggestion is an option offered when a mention names no single entity.
type Suggestion struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// NotFound is the Details of the resolver's ENTITY_NOT_FOUND errors.
type NotFound struct {
	Kind        string       `json:"kind"`
	Mention     string       `json:"mention"`
	Ambiguous   bool         `json:"ambiguous"`
	Suggestions []Suggestion `json:"suggestions"`
}

// maxSuggestions bounds the options offered for an unknown mention.
const maxSuggestions = 5

// ResolveClass returns the class of classes that mention names: its id, its
// name, or a form-and-section name in English or Chinese, optionally with
// the subject. When several classes match, or none, the error is an
// ENTITY_NOT_FOUND *apperr.Error whose message lists the suggestions and
// whose Details is a NotFound.
func ResolveClass(mention string, classes []ClassInfo) (ClassInfo, error) {
	m := strings.TrimSpace(mention)
	for _, c := range classes {
		if m != "" && strings.EqualFold(m, c.ClassID) {
			return c, nil
		}
	}
	f := fold(m)
	subject, rest := cutSubject(f)
	rest = strings.TrimPrefix(strings.TrimSuffix(strings.TrimSuffix(rest, "班"), "class"), "the")
	var cands []ClassInfo
	for _, c := range classes {
		if f != "" && fold(c.Name) == f {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		want, keyed := parseFormKey(rest)
		for _, c := range classes {
			switch {
			case keyed:
				if have, ok := classKey(c); ok && have.form == want.form && (want.section == 0 || want.section == have.section) {
					cands = append(cands, c)
				}
			case rest == "":
				if subject != "" {
					cands = append(cands, c)
				}
			case len([]rune(rest)) >= 2 && (strings.Contains(fold(c.Name), rest) || strings.Contains(fold(c.ClassID), rest)):
				cands = append(cands, c)
			}
		}
		if subject != "" {
			cands = slices.DeleteFunc(cands, func(c ClassInfo) bool { return subjectOf(c.Subject) != subject })
		}
	}
	if len(cands) == 1 {
		return cands[0], nil
	}
	label := func(c ClassInfo) Suggestion {
		l := c.Name
		if c.Subject != "" {
			l += " · " + c.Subject
		}
		return Suggestion{Label: l, Value: c.ClassID}
	}
	if len(cands) > 1 {
		return ClassInfo{}, notFound("class", m, true, mapSlice(cands, label))
	}
	want, _ := parseFormKey(rest)
	ranked := slices.Clone(classes)
	score := func(c ClassInfo) int {
		s := 0
		if have, ok := classKey(c); ok {
			if have.form == want.form {
				s += 2
			}
			if want.section != 0 && have.section == want.section {
				s++
			}
		}
		if subject != "" && subjectOf(c.Subject) == subject {
			s++
		}
		return s
	}
	slices.SortStableFunc(ranked, func(a, b ClassInfo) int {
		return cmp.Or(cmp.Compare(score(b), score(a)),
			cmp.Compare(distance(fold(a.Name), f), distance(fold(b.Name), f)),
			strings.Compare(a.Name, b.Name))
	})
	return ClassInfo{}, notFound("class", m, false, mapSlice(ranked[:min(len(ranked), maxSuggestions)], label))
}

// ResolveStudent returns the student of students that mention names: by id,
// by full name in any word order ("Wong Ka Ho", "Ka Ho Wong"), or by a part
// of a Chinese name. Errors are as for ResolveClass.
func ResolveStudent(mention string, students []Student) (Student, error) {
	m := strings.TrimSpace(mention)
	for _, s := range students {
		if m != "" && strings.EqualFold(m, s.StudentID) {
			return s, nil
		}
	}
	f := fold(m)
	words := nameWords(m)
	var exact, partial []Student
	for _, s := range students {
		switch {
		case f != "" && fold(s.Name) == f:
			exact = append(exact, s)
		case len(words) > 0 && containsAll(nameWords(s.Name), words):
			partial = append(partial, s)
		case len([]rune(f)) >= 2 && strings.Contains(fold(s.Name), f):
			partial = append(partial, s)
		}
	}
	cands := exact
	if len(cands) == 0 {
		cands = partial
	}
	label := func(s Student) Suggestion { return Suggestion{Label: s.Name, Value: s.StudentID} }
	switch {
	case len(cands) == 1:
		return cands[0], nil
	case len(cands) > 1:
		return Student{}, notFound("student", m, true, mapSlice(cands[:min(len(cands), 10)], label))
	}
	ranked := slices.Clone(students)
	slices.SortStableFunc(ranked, func(a, b Student) int {
		return cmp.Compare(distance(fold(a.Name), f), distance(fold(b.Name), f))
	})
	return Student{}, notFound("student", m, false, mapSlice(ranked[:min(len(ranked), maxSuggestions)], label))
}

func notFound(kind, mention string, ambiguous bool, sugg []Suggestion) *apperr.Error {
	opts := make([]string, len(sugg))
	for i, s := range sugg {
		opts[i] = fmt.Sprintf("%s (%s)", s.Label, s.Value)
	}
	var msg string
	switch {
	case ambiguous:
		msg = fmt.Sprintf("%q matches several %ses: %s; ask the teacher which one, or pass its id",
			mention, kind, strings.Join(opts, "; "))
	case len(opts) == 0:
		msg = fmt.Sprintf("no %s matches %q, and the teacher has none", kind, mention)
	default:
		msg = fmt.Sprintf("no %s of this teacher matches %q; did you mean: %s", kind, mention, strings.Join(opts, "; "))
	}
	if sugg == nil {
		sugg = []Suggestion{}
	}
	return apperr.New(apperr.EntityNotFound, "%s", msg).
		WithDetails(NotFound{Kind: kind, Mention: mention, Ambiguous: ambiguous, Suggestions: sugg})
}

// fold lower-cases s, maps full-width ASCII to ASCII, and keeps only
// letters and digits, so "Form 1A", "form-1a" and "ＦＯＲＭ１Ａ" agree.
func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0xFF01 && r <= 0xFF5E {
			r -= 0xFEE0
		}
		r = unicode.ToLower(r)
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// subjectWords maps folded subject words, longest first, to a subject.
func subjectWords() [][2]string {
	return [][2]string{
		{"中國語文", "chinese"}, {"中国语文", "chinese"}, {"mathematics", "mathematics"},
		{"chemistry", "chemistry"}, {"english", "english"}, {"physics", "physics"},
		{"biology", "biology"}, {"chinese", "chinese"}, {"maths", "mathematics"},
		{"math", "mathematics"}, {"英文", "english"}, {"英语", "english"}, {"英語", "english"},
		{"數學", "mathematics"}, {"数学", "mathematics"}, {"物理", "physics"},
		{"化學", "chemistry"}, {"化学", "chemistry"}, {"生物", "biology"},
		{"中文", "chinese"}, {"語文", "chinese"}, {"语文", "chinese"},
	}
}

// cutSubject removes the first subject word from the folded f.
func cutSubject(f string) (subject, rest string) {
	for _, w := range subjectWords() {
		if before, after, ok := strings.Cut(f, w[0]); ok {
			return w[1], before + after
		}
	}
	return "", f
}

func subjectOf(s string) string {
	subject, _ := cutSubject(fold(s))
	return subject
}

type formKey struct {
	form    int
	section rune // 'a'..'f', or 0 for the whole form
}

// formRE matches a folded form-and-section name: an optional prefix (form,
// f, s, secondary, 中, class ...), the form 1–6 in digits or Chinese, an
// optional section a–f or 甲–己, and an optional 班 / class. Compiled once,
// on first use (not at start-up); a *regexp.Regexp is safe for concurrent
// use and never changes.
var formRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:the)?(?:class)?(?:form|secondary|sec|grade|中學|中学|中|f|s|g)?([1-6一二三四五六])([a-f甲乙丙丁戊己])?(?:班|class)?$`)
})

func parseFormKey(folded string) (formKey, bool) {
	m := formRE().FindStringSubmatch(folded)
	if m == nil {
		return formKey{}, false
	}
	k := formKey{form: strings.Index("0123456", m[1])}
	if k.form < 0 {
		k.form = slices.Index([]rune("〇一二三四五六"), []rune(m[1])[0])
	}
	if m[2] != "" {
		r := []rune(m[2])[0]
		if i := slices.Index([]rune("甲乙丙丁戊己"), r); i >= 0 {
			r = rune('a' + i)
		}
		k.section = r
	}
	return k, true
}

func classKey(c ClassInfo) (formKey, bool) {
	_, rest := cutSubject(fold(c.Name))
	if k, ok := parseFormKey(rest); ok {
		return k, true
	}
	return parseFormKey(fold(c.Grade))
}

func nameWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// distance is the Levenshtein distance of a and b in runes (names are short;
// inputs are cut at 64 runes to bound the work).
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	ra, rb = ra[:min(len(ra), 64)], rb[:min(len(rb), 64)]
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func mapSlice[T, U any](ts []T, f func(T) U) []U {
	out := make([]U, len(ts))
	for i, t := range ts {
		out[i] = f(t)
	}
	return out
}
