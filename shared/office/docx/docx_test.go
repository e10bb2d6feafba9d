package docx_test

import (
	"bytes"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/golden"
	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/office/docx"
	"github.com/insightedge/insightedge/shared/office/internal/ooxml/ooxmltest"
	"github.com/insightedge/insightedge/shared/office/internal/samples"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func build(t testing.TB, d office.Document) map[string][]byte {
	t.Helper()
	b, err := docxBytes(d)
	if err != nil {
		t.Fatal(err)
	}
	return ooxmltest.Open(t, b)
}

func TestPackageParts(t *testing.T) {
	parts := build(t, samples.Document(2, true))
	for _, p := range []string{"word/document.xml", "word/styles.xml", "word/numbering.xml", "word/settings.xml", "word/footer1.xml", "docProps/core.xml", "docProps/app.xml"} {
		if _, ok := parts[p]; !ok {
			t.Errorf("missing part %s", p)
		}
	}
	styles := string(parts["word/styles.xml"])
	for _, want := range []string{`w:styleId="Heading1"><w:name w:val="heading 1"/>`, `w:styleId="Heading2"`, `w:styleId="Heading3"`, `w:eastAsia="Microsoft YaHei"`, `w:styleId="TableGrid"`} {
		if !strings.Contains(styles, want) {
			t.Errorf("styles lack %s", want)
		}
	}
	doc := string(parts["word/document.xml"])
	for _, want := range []string{`<w:pgSz w:w="11906" w:h="16838"/>`, `<w:pStyle w:val="Heading1"/>`, `<w:pStyle w:val="Heading2"/>`, `<w:tblHeader/>`, `w:val="single"`} {
		if !strings.Contains(doc, want) {
			t.Errorf("document lacks %s", want)
		}
	}
	if !strings.Contains(string(parts["word/footer1.xml"]), "PAGE") {
		t.Error("the footer has no page number")
	}
}

// TestNumberingRestarts checks that every numbered list gets its own
// numbering instance, so the second list starts at 1 again.
func TestNumberingRestarts(t *testing.T) {
	d := office.Document{Title: "作业", Sections: []office.Section{
		{Heading: "一", Blocks: []office.Block{office.List{Ordered: true, Items: []string{"a", "b"}}, office.List{Items: []string{"x"}}}},
		{Heading: "二", Blocks: []office.Block{office.List{Ordered: true, Items: []string{"c"}}}},
	}}
	parts := build(t, d)
	doc, num := string(parts["word/document.xml"]), string(parts["word/numbering.xml"])
	for _, want := range []string{`<w:numId w:val="2"/>`, `<w:numId w:val="3"/>`, `<w:numId w:val="1"/>`} {
		if !strings.Contains(doc, want) {
			t.Errorf("document lacks %s", want)
		}
	}
	for _, want := range []string{`<w:num w:numId="2"><w:abstractNumId w:val="1"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/>`, `<w:num w:numId="3">`} {
		if !strings.Contains(num, want) {
			t.Errorf("numbering lacks %s", want)
		}
	}
	if strings.Contains(num, `w:numId="4"`) {
		t.Error("an unused numbering instance")
	}
}

func TestHomeworkFields(t *testing.T) {
	d := office.Document{Title: "课后作业", Fields: []string{"姓名", "班级"}, Sections: []office.Section{{Heading: "练习", Blocks: []office.Block{office.Paragraph{Text: "1+1=?"}}}}}
	doc := string(build(t, d)["word/document.xml"])
	if !strings.Contains(doc, "姓名：____") || !strings.Contains(doc, "班级：____") {
		t.Error("the homework fields are missing")
	}
	en := office.Document{Title: "Homework", Fields: []string{"Name"}, Sections: []office.Section{{Heading: "Practice", Blocks: []office.Block{office.Paragraph{Text: "1+1=?"}}}}}
	if !strings.Contains(string(build(t, en)["word/document.xml"]), "Name: ____") {
		t.Error("the English field is missing")
	}
}

func TestGolden(t *testing.T) {
	d := office.Document{Title: "《光的折射》教案", Subtitle: "物理 · 八年级 · 教案", Sections: []office.Section{
		{Heading: "一、教学目标", Blocks: []office.Block{office.List{Ordered: true, Items: []string{"知道光的**折射**现象", "了解折射规律"}}}},
		{Heading: "实验 & <记录>", Level: 2, Blocks: []office.Block{
			office.Paragraph{Text: "把筷子插入水中。\n观察筷子在水面处的样子。"},
			office.Table{Headers: []string{"入射角", "折射角"}, Rows: [][]string{{"30°", "22°"}, {"45°"}}},
		}},
	}}
	parts := build(t, d)
	for _, name := range []string{"word/document.xml", "word/numbering.xml", "word/footer1.xml", "[Content_Types].xml"} {
		file := strings.NewReplacer("/", "_", "[", "", "]", "").Replace(name) + ".golden"
		golden.Check(t, filepath.Join("testdata", file), parts[name], *update)
	}
}

func TestErrors(t *testing.T) {
	if _, err := docxBytes(office.Document{}); err == nil {
		t.Error("a document without a title was written")
	}
}

func BenchmarkLessonPlan(b *testing.B) {
	d := samples.Document(12, true)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := docxBytes(d); err != nil {
			b.Fatal(err)
		}
	}
}

func docxBytes(doc office.Document) ([]byte, error) {
	var buf bytes.Buffer
	err := docx.Write(&buf, doc, samples.Created)
	return buf.Bytes(), err
}
