package pdf

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/insightedge/insightedge/shared/office"
)

// seg is a piece of a line in one face.
type seg struct {
	text string
	bold bool
}

// line is one laid-out line and its width.
type line struct {
	segs  []seg
	width float64
}

// atom is the unit the breaker never splits (unless it is wider than a
// line): a Han character, a Latin word, or a space, with any punctuation
// that must stay with it.
type atom struct {
	segs  []seg
	width float64
	space bool
}

// measurer gives the width of s in the current size, in the given face.
type measurer func(s string, bold bool) float64

// Punctuation that may not start a line (kinsoku shori) and that may not end one.
const (
	noLineStart = "，。、；：？！）》」』】〕〉”’…—～%‰,.;:?!)]}·"
	noLineEnd   = "（《「『【〔〈“‘([{"
)

// wrap breaks text (with **bold** spans) into lines at most width wide.
func wrap(text string, width float64, measure measurer) []line {
	atoms := atomize(office.Spans(text), measure)
	var (
		lines []line
		cur   line
	)
	flush := func() {
		// Trailing spaces take no room on the page.
		for len(cur.segs) > 0 && strings.TrimSpace(cur.segs[len(cur.segs)-1].text) == "" {
			cur.width -= measure(cur.segs[len(cur.segs)-1].text, cur.segs[len(cur.segs)-1].bold)
			cur.segs = cur.segs[:len(cur.segs)-1]
		}
		if len(cur.segs) > 0 {
			lines = append(lines, cur)
		}
		cur = line{}
	}
	for _, a := range atoms {
		switch {
		case a.space && len(cur.segs) == 0:
			// no space at the start of a line
		case cur.width+a.width <= width:
			cur.segs = append(cur.segs, a.segs...)
			cur.width += a.width
		case a.space:
			flush()
		case a.width > width:
			// Longer than a line (a URL, a formula): break it between characters.
			for _, s := range a.segs {
				for _, r := range s.text {
					w := measure(string(r), s.bold)
					if cur.width+w > width && len(cur.segs) > 0 {
						flush()
					}
					cur.segs = append(cur.segs, seg{string(r), s.bold})
					cur.width += w
				}
			}
		default:
			flush()
			cur.segs = append(cur.segs, a.segs...)
			cur.width = a.width
		}
	}
	flush()
	for i := range lines {
		lines[i].segs = mergeSegs(lines[i].segs)
	}
	return lines
}

// atomize splits spans into atoms and glues kinsoku punctuation to its
// neighbour.
func atomize(spans []office.Span, measure measurer) []atom {
	var atoms []atom
	add := func(text string, bold, space bool) {
		atoms = append(atoms, atom{segs: []seg{{text, bold}}, width: measure(text, bold), space: space})
	}
	for _, sp := range spans {
		word := strings.Builder{}
		flushWord := func() {
			if word.Len() > 0 {
				add(word.String(), sp.Bold, false)
				word.Reset()
			}
		}
		for _, r := range sp.Text {
			switch {
			case r == ' ' || r == '\t' || r == '\n' || r == '\u3000':
				flushWord()
				add(" ", sp.Bold, true)
			case breaksAround(r):
				flushWord()
				add(string(r), sp.Bold, false)
			default:
				word.WriteRune(r)
			}
		}
		flushWord()
	}
	// Glue: closing punctuation joins the atom before it; an atom that is
	// opening punctuation takes the atom after it.
	var out []atom
	for _, a := range atoms {
		if n := len(out); n > 0 && !a.space && !out[n-1].space {
			prev := &out[n-1]
			if startsWithAny(a, noLineStart) || endsWithAny(*prev, noLineEnd) {
				prev.segs = append(prev.segs, a.segs...)
				prev.width += a.width
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// breaksAround reports whether a line may break before and after r: Han,
// kana, Hangul and full-width forms.
func breaksAround(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF) || r == '…' || r == '—' ||
		r == '“' || r == '”' || r == '‘' || r == '’'
}

func startsWithAny(a atom, set string) bool {
	r, _ := utf8.DecodeRuneInString(a.segs[0].text)
	return strings.ContainsRune(set, r)
}

func endsWithAny(a atom, set string) bool {
	last := a.segs[len(a.segs)-1].text
	r, _ := utf8.DecodeLastRuneInString(last)
	return strings.ContainsRune(set, r)
}

func mergeSegs(segs []seg) []seg {
	var out []seg
	for _, s := range segs {
		if n := len(out); n > 0 && out[n-1].bold == s.bold {
			out[n-1].text += s.text
			continue
		}
		out = append(out, s)
	}
	return out
}
