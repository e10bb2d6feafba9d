package pptx_test

import (
	"bytes"
	"encoding/xml"
	"flag"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/golden"
	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/office/internal/ooxml/ooxmltest"
	"github.com/insightedge/insightedge/shared/office/internal/samples"
	"github.com/insightedge/insightedge/shared/office/pptx"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func build(t testing.TB, d office.Deck) map[string][]byte {
	t.Helper()
	b, err := pptxBytes(d)
	if err != nil {
		t.Fatal(err)
	}
	return ooxmltest.Open(t, b)
}

func TestPackageParts(t *testing.T) {
	d := samples.Deck(5, true)
	d.Slides[2].Notes = "" // one slide without notes
	parts := build(t, d)
	count := func(re string) int {
		n := 0
		for name := range parts {
			if regexp.MustCompile(re).MatchString(name) {
				n++
			}
		}
		return n
	}
	if n := count(`^ppt/slides/slide\d+\.xml$`); n != 6 {
		t.Errorf("%d slide parts, want 6 (title + 5)", n)
	}
	if n := count(`^ppt/notesSlides/notesSlide\d+\.xml$`); n != 4 {
		t.Errorf("%d notes parts, want 4", n)
	}
	for _, p := range []string{
		"ppt/presentation.xml", "ppt/slideMasters/slideMaster1.xml", "ppt/slideLayouts/slideLayout1.xml",
		"ppt/slideLayouts/slideLayout2.xml", "ppt/theme/theme1.xml", "ppt/theme/theme2.xml",
		"ppt/notesMasters/notesMaster1.xml", "ppt/presProps.xml", "ppt/viewProps.xml", "ppt/tableStyles.xml",
		"docProps/core.xml", "docProps/app.xml", "_rels/.rels",
	} {
		if _, ok := parts[p]; !ok {
			t.Errorf("missing part %s", p)
		}
	}
	var pres struct {
		Slides []struct {
			ID  string `xml:"id,attr"`
			RID string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sldIdLst>sldId"`
	}
	if err := xml.Unmarshal(parts["ppt/presentation.xml"], &pres); err != nil {
		t.Fatal(err)
	}
	if len(pres.Slides) != 6 {
		t.Fatalf("presentation lists %d slides, want 6", len(pres.Slides))
	}
	rels := string(parts["ppt/_rels/presentation.xml.rels"])
	for i, s := range pres.Slides {
		want := `Id="` + s.RID + `" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide` + itoa(i+1) + `.xml"`
		if !strings.Contains(rels, want) {
			t.Errorf("slide %d: %s does not point at slide%d.xml", i+1, s.RID, i+1)
		}
	}
	// The theme gives Chinese text a Chinese font.
	theme := string(parts["ppt/theme/theme1.xml"])
	for _, want := range []string{`<a:ea typeface="Microsoft YaHei"/>`, `<a:font script="Hans" typeface="Microsoft YaHei"/>`, `<a:latin typeface="Calibri"/>`} {
		if !strings.Contains(theme, want) {
			t.Errorf("theme lacks %s", want)
		}
	}
	if !strings.Contains(string(parts["ppt/slides/slide2.xml"]), `lang="zh-CN" altLang="en-US"`) {
		t.Error("Chinese runs are not tagged zh-CN")
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

// TestGolden pins the parts a deck writes; run with -update after an
// intended change and read the diff.
func TestGolden(t *testing.T) {
	d := office.Deck{Title: "光的折射", Subtitle: "物理 · 八年级", Slides: []office.Slide{
		{Title: "学习目标", Bullets: []string{"知道光的**折射**现象", "了解折射规律"}, Notes: "先做筷子实验。\n请学生描述看到的现象。"},
		{Title: "Snell's law & <symbols>", Bullets: []string{"n₁ sin θ₁ = n₂ sin θ₂"}},
	}}
	parts := build(t, d)
	for _, name := range []string{"[Content_Types].xml", "ppt/presentation.xml", "ppt/slides/slide1.xml", "ppt/slides/slide2.xml", "ppt/slides/slide3.xml", "ppt/notesSlides/notesSlide1.xml", "ppt/slides/_rels/slide2.xml.rels", "docProps/core.xml"} {
		file := strings.NewReplacer("/", "_", "[", "", "]", "").Replace(name) + ".golden"
		golden.Check(t, filepath.Join("testdata", file), parts[name], *update)
	}
}

func TestDeterministic(t *testing.T) {
	d := samples.Deck(3, false)
	a, err := pptxBytes(d)
	if err != nil {
		t.Fatal(err)
	}
	b, err := pptxBytes(d)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("the same deck gave different bytes")
	}
}

// TestTextSurvives feeds text that breaks naive XML writers and checks it
// reads back as written (less the control characters XML cannot carry).
func TestTextSurvives(t *testing.T) {
	nasty := `<b>"AT&T" 'quoted' ]]> </p:sld>` + "\x01\x0b"
	parts := build(t, office.Deck{Title: nasty, Slides: []office.Slide{{Title: nasty, Bullets: []string{nasty}, Notes: nasty}}})
	want := `<b>"AT&T" 'quoted' ]]> </p:sld>`
	for _, name := range []string{"ppt/slides/slide1.xml", "ppt/slides/slide2.xml", "ppt/notesSlides/notesSlide1.xml"} {
		texts := runTexts(t, parts[name])
		found := false
		for _, s := range texts {
			found = found || s == want
		}
		if !found {
			t.Errorf("%s: %q not among the runs %q", name, want, texts)
		}
	}
}

func runTexts(t *testing.T, b []byte) []string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	var out []string
	inT := false
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inT = tok.Name.Local == "t"
		case xml.CharData:
			if inT {
				out = append(out, string(tok))
			}
		case xml.EndElement:
			inT = false
		}
	}
	return out
}

func TestErrors(t *testing.T) {
	if _, err := pptxBytes(office.Deck{Title: " "}); err == nil {
		t.Error("a deck without a title was written")
	}
	if _, err := pptxBytes(samples.Deck(pptx.MaxSlides+1, true)); err == nil {
		t.Error("a deck over the slide limit was written")
	}
}

// BenchmarkDeck15 builds a 15-slide Chinese deck with notes.
func BenchmarkDeck15(b *testing.B) {
	d := samples.Deck(15, true)
	b.ReportAllocs()
	var size int
	for b.Loop() {
		out, err := pptxBytes(d)
		if err != nil {
			b.Fatal(err)
		}
		size = len(out)
	}
	b.ReportMetric(float64(size), "bytes/deck")
}

func pptxBytes(d office.Deck) ([]byte, error) {
	var buf bytes.Buffer
	err := pptx.Write(&buf, d, samples.Created)
	return buf.Bytes(), err
}
