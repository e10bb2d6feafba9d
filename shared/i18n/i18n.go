// Package i18n decides which language a teacher reads and holds every
// text the product itself writes to a teacher (errors, notices, the closing
// words of a failed turn or page, a tool's progress line and result, a
// page's labels), in Chinese and English: the catalogue (catalogue.go). A
// message is in one language, never "中文。English" glued together: the
// language is decided once, by one rule (Of), from the request's tag or else
// from what the teacher wrote (for a conversation turn, ForTurn also weighs
// the conversation's opening words when the message cannot tell). No other
// package picks between texts by language (TestNoTextsOutsideCatalogue
// holds them to it).
package i18n

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/insightedge/insightedge/shared/apperr"
)

// Lang is a language the product writes its own messages in.
type Lang int

// The languages of the catalogue.
const (
	English Lang = iota
	Chinese
)

// Of is the one language rule: a BCP 47 tag decides when given (zh, zh-CN,
// zh-Hant... are Chinese; any other tag is English); without a tag, the
// teacher's own text decides (any Han character makes it Chinese); with
// neither, the product speaks Chinese, the language of the seeds' users.
func Of(tag string, sample ...string) Lang {
	if tag = strings.TrimSpace(tag); tag != "" {
		if IsChineseTag(tag) {
			return Chinese
		}
		return English
	}
	written := false
	for _, s := range sample {
		if HasHan(s) {
			return Chinese
		}
		written = written || strings.TrimSpace(s) != ""
	}
	if written {
		return English
	}
	return Chinese
}

// ForTurn is the language of a conversation turn, decided once when it
// starts: the tag when the client sent one; else the teacher's message
// when it says enough to tell (a Han character, or English of three words
// or twenty letters); else the conversation's, from its opening words. A
// reply such as "Form 1A · English" (a class picked by its name) or "ok"
// to a question asked in Chinese keeps the conversation Chinese, where Of
// would read it as English.
func ForTurn(tag, message, conversation string) Lang {
	if strings.TrimSpace(tag) != "" || HasHan(message) || saysEnglish(message) {
		return Of(tag, message)
	}
	return Of("", conversation, message)
}

// saysEnglish reports whether s has three words of three or more Latin
// letters, or twenty Latin letters in all.
func saysEnglish(s string) bool {
	words, letters := 0, 0
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.Is(unicode.Latin, r) }) {
		n := utf8.RuneCountInString(w)
		letters += n
		if n >= 3 {
			words++
		}
	}
	return words >= 3 || letters >= 20
}

// IsChineseTag reports whether the BCP 47 tag names Chinese.
func IsChineseTag(tag string) bool {
	t := strings.ToLower(strings.TrimSpace(tag))
	return t == "zh" || strings.HasPrefix(t, "zh-") || strings.HasPrefix(t, "zh_")
}

// HasHan reports whether s contains a Han (Chinese) character.
func HasHan(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
}

// Clip shortens s to at most n runes for display, marking a cut with "…".
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// Tag is the language's BCP 47 tag.
func (l Lang) Tag() string {
	if l == Chinese {
		return "zh-CN"
	}
	return "en-US"
}

// Text returns message m in l, formatted with args. A string argument
// loses its closing punctuation where the message closes it itself: a plan
// summary "…4 个文件。" in "计划共 %d 个章节：%s。确认后开始撰写。" reads
// "…4 个文件。确认后开始撰写。", never "。。".
func (l Lang) Text(m Msg, args ...any) string {
	if m <= None || m >= numMsgs {
		return ""
	}
	format := catalogue[m][l]
	return fmt.Sprintf(format, fitted(format, args)...)
}

// Parts returns the texts of message m in l before, between and after its
// arguments, for a writer that puts no text in their place (a Word field).
func (l Lang) Parts(m Msg) []string {
	const mark = "\x00"
	args := make([]any, len(verbs(catalogue[m][l])))
	for i := range args {
		args[i] = mark
	}
	return strings.Split(l.Text(m, args...), mark)
}

// List joins items as a list in l ("a、b", "a, b").
func (l Lang) List(items []string) string {
	return strings.Join(items, l.Text(ListSeparator))
}

// Skill is the name in l of an English skill ("grammar", javaapi's skill
// names) or of "overall"; another key is its own name.
func (l Lang) Skill(key string) string {
	if m, ok := skills[key]; ok {
		return l.Text(m)
	}
	return key
}

// Subject is the name in l of a school subject given by its English name
// (the data service's, any case); another name is its own.
func (l Lang) Subject(name string) string {
	if m, ok := subjects[strings.ToLower(name)]; ok {
		return l.Text(m)
	}
	return name
}

// closers are the marks that close a clause or a sentence.
const closers = "。，、；：！？.,;:!?"

// fitted returns args with the closing marks cut from each string argument
// that the format follows with a closing mark of its own.
func fitted(format string, args []any) []any {
	var out []any
	for _, v := range verbs(format) {
		s, ok := arg(args, v.arg).(string)
		if !ok || v.verb != 's' && v.verb != 'v' || !strings.ContainsRune(closers, v.next) {
			continue
		}
		if cut := strings.TrimRight(s, closers); cut != s {
			if out == nil {
				out = slices.Clone(args)
			}
			out[v.arg] = cut
		}
	}
	if out == nil {
		return args
	}
	return out
}

func arg(args []any, i int) any {
	if i < 0 || i >= len(args) {
		return nil
	}
	return args[i]
}

// verb is one verb of a format: the argument it takes, its letter and the
// rune that follows it (0 at the end).
type verb struct {
	arg        int
	verb, next rune
}

// verbs lists the verbs of a catalogue format, which uses only %x,
// %[n]x and %% (TestCatalogueFormats holds it to that).
func verbs(format string) []verb {
	var out []verb
	arg := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if i < len(format) && format[i] == '[' {
			end := strings.IndexByte(format[i:], ']')
			if end < 0 {
				break
			}
			n, _ := strconv.Atoi(format[i+1 : i+end])
			arg, i = n-1, i+end+1
		}
		if i >= len(format) || format[i] == '%' {
			continue
		}
		v := verb{arg: arg, verb: rune(format[i])}
		if i+1 < len(format) {
			v.next, _ = utf8.DecodeRuneInString(format[i+1:])
		}
		out = append(out, v)
		arg++
	}
	return out
}

// Subject says what failed: a conversation turn or a page build.
type Subject int

// The subjects of Failure.
const (
	Turn Subject = iota
	Page
)

// Failure is the message for a failure of subject with code, or a timeout.
func (l Lang) Failure(subject Subject, code apperr.Code, timedOut bool) string {
	data := code == apperr.DataError || code == apperr.ServiceUnavailable
	switch {
	case subject == Turn && timedOut:
		return l.Text(TurnTimedOut)
	case subject == Turn && data:
		return l.Text(TurnDataUnavailable)
	case subject == Turn:
		return l.Text(TurnAIUnavailable)
	case timedOut:
		return l.Text(PageTimedOut)
	case data:
		return l.Text(PageDataFailed)
	case code == apperr.AIError:
		return l.Text(PageAIUnavailable)
	default:
		return l.Text(PageFailed)
	}
}

// ToolDataFailure is the teacher's text for a data tool's error code, ""
// for a code the data service's answer does not explain: an outage
// (SERVICE_UNAVAILABLE), a broken answer (DATA_ERROR), nothing found
// (ENTITY_NOT_FOUND) and a refusal (AUTH_ERROR, a 403: not theirs to see)
// each say what they are (issue 28).
func (l Lang) ToolDataFailure(code apperr.Code) string {
	switch code {
	case apperr.DataError:
		return l.Text(ToolDataFailed)
	case apperr.ServiceUnavailable:
		return l.Text(ToolDataUnavailable)
	case apperr.EntityNotFound:
		return l.Text(ToolNothingFound)
	case apperr.AuthError:
		return l.Text(ToolDataForbidden)
	}
	return ""
}

// MaxTagLen bounds a language tag wherever one enters (a request's
// language, a Blueprint's).
const MaxTagLen = 16

// ValidTag reports whether tag is empty or shaped like a BCP 47 tag ("en",
// "zh-CN", "zh-Hant-HK") of at most MaxTagLen characters: the one rule for
// every language field a client sends.
func ValidTag(tag string) bool {
	if tag == "" {
		return true
	}
	if len(tag) > MaxTagLen {
		return false
	}
	for i, sub := range strings.Split(tag, "-") {
		if len(sub) == 0 || len(sub) > 8 || i == 0 && len(sub) < 2 {
			return false
		}
		for _, c := range sub {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}
