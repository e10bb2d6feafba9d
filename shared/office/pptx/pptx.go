// Package pptx writes an office.Deck as a PowerPoint presentation (.pptx,
// ECMA-376 PresentationML).
//
// The part set is the minimum PowerPoint opens without repair: presentation,
// one slide master with a theme, two layouts (title slide; title and
// content), a notes master with its own theme, one part per slide and per
// speaker-notes page, presentation/view properties, table styles, and the
// core and app properties. The master, layouts and theme are constant XML
// (parts/); slides and notes are written per deck.
//
// Text size is chosen per slide from an estimate of the lines the bullets
// take (Han characters are one em wide, Latin letters about half), so a
// dense slide is set smaller instead of running off the bottom; the body
// keeps normAutofit so that PowerPoint shrinks it further if the teacher
// adds text.
package pptx

import (
	_ "embed"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/office/internal/ooxml"
)

var (
	//go:embed parts/theme.xml
	themeXML []byte
	//go:embed parts/slideMaster.xml
	masterXML []byte
	//go:embed parts/slideLayoutTitle.xml
	layoutTitleXML []byte
	//go:embed parts/slideLayoutContent.xml
	layoutContentXML []byte
	//go:embed parts/notesMaster.xml
	notesMasterXML []byte
	//go:embed parts/presProps.xml
	presPropsXML []byte
	//go:embed parts/viewProps.xml
	viewPropsXML []byte
	//go:embed parts/tableStyles.xml
	tableStylesXML []byte
)

// ContentType is the media type of a .pptx file.
const ContentType = "application/vnd.openxmlformats-officedocument.presentationml.presentation"

const (
	ctPresentation = "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"
	ctMaster       = "application/vnd.openxmlformats-officedocument.presentationml.slideMaster+xml"
	ctLayout       = "application/vnd.openxmlformats-officedocument.presentationml.slideLayout+xml"
	ctSlide        = "application/vnd.openxmlformats-officedocument.presentationml.slide+xml"
	ctNotesMaster  = "application/vnd.openxmlformats-officedocument.presentationml.notesMaster+xml"
	ctNotesSlide   = "application/vnd.openxmlformats-officedocument.presentationml.notesSlide+xml"
	ctPresProps    = "application/vnd.openxmlformats-officedocument.presentationml.presProps+xml"
	ctViewProps    = "application/vnd.openxmlformats-officedocument.presentationml.viewProps+xml"
	ctTableStyles  = "application/vnd.openxmlformats-officedocument.presentationml.tableStyles+xml"

	nsA = "http://schemas.openxmlformats.org/drawingml/2006/main"
	nsR = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
	nsP = "http://schemas.openxmlformats.org/presentationml/2006/main"

	// slideNumberField is the id of the slide-number field; any GUID will do
	// as long as master, layout and slides agree.
	slideNumberField = "{6E1E2D63-5A3F-4C39-9E53-0C5E1F0A7B21}"
)

// MaxSlides bounds a deck; a model asking for more is asking for a mistake.
const MaxSlides = 60

// Write writes d as a .pptx file to w. created stamps the core properties
// and the zip entries (zero leaves the date out), so that the same deck and
// time always give the same bytes.
func Write(w io.Writer, d office.Deck, created time.Time) error {
	d = d.Normalized()
	if d.Title == "" {
		return fmt.Errorf("pptx: the deck has no title")
	}
	if len(d.Slides) > MaxSlides {
		return fmt.Errorf("pptx: %d slides is more than %d", len(d.Slides), MaxSlides)
	}
	lang := office.Lang(d.Lang, d.Title, deckSample(d))

	p := ooxml.NewPackage(w, created)
	p.AddRels("", []ooxml.Relationship{
		{ID: "rId1", Type: ooxml.RelOfficeDocument, Target: "ppt/presentation.xml"},
		{ID: "rId2", Type: ooxml.RelCoreProps, Target: "docProps/core.xml"},
		{ID: "rId3", Type: ooxml.RelExtendedProps, Target: "docProps/app.xml"},
	})
	notes := 0
	for _, s := range d.Slides {
		if s.Notes != "" {
			notes++
		}
	}
	p.Add("docProps/core.xml", ooxml.TypeCoreProps, ooxml.CoreProps(d.Title, d.Author, lang, created))
	p.Add("docProps/app.xml", ooxml.TypeAppProps, ooxml.AppProps(
		"PresentationFormat", "On-screen Show (16:9)", "Slides", len(d.Slides)+1, "Notes", notes))

	// The title slide is slide 1; content slides follow.
	const firstSlideRel = 7
	presRels := []ooxml.Relationship{
		{ID: "rId1", Type: ooxml.Rel("slideMaster"), Target: "slideMasters/slideMaster1.xml"},
		{ID: "rId2", Type: ooxml.Rel("notesMaster"), Target: "notesMasters/notesMaster1.xml"},
		{ID: "rId3", Type: ooxml.Rel("theme"), Target: "theme/theme1.xml"},
		{ID: "rId4", Type: ooxml.Rel("presProps"), Target: "presProps.xml"},
		{ID: "rId5", Type: ooxml.Rel("viewProps"), Target: "viewProps.xml"},
		{ID: "rId6", Type: ooxml.Rel("tableStyles"), Target: "tableStyles.xml"},
	}
	total := len(d.Slides) + 1
	for i := range total {
		presRels = append(presRels, ooxml.Relationship{
			ID: "rId" + strconv.Itoa(firstSlideRel+i), Type: ooxml.Rel("slide"),
			Target: fmt.Sprintf("slides/slide%d.xml", i+1),
		})
	}
	p.Add("ppt/presentation.xml", ctPresentation, presentation(total, firstSlideRel))
	p.AddRels("ppt/presentation.xml", presRels)

	p.Add("ppt/slideMasters/slideMaster1.xml", ctMaster, masterXML)
	p.AddRels("ppt/slideMasters/slideMaster1.xml", []ooxml.Relationship{
		{ID: "rId1", Type: ooxml.Rel("slideLayout"), Target: "../slideLayouts/slideLayout1.xml"},
		{ID: "rId2", Type: ooxml.Rel("slideLayout"), Target: "../slideLayouts/slideLayout2.xml"},
		{ID: "rId3", Type: ooxml.Rel("theme"), Target: "../theme/theme1.xml"},
	})
	for i, layout := range [][]byte{layoutTitleXML, layoutContentXML} {
		name := fmt.Sprintf("ppt/slideLayouts/slideLayout%d.xml", i+1)
		p.Add(name, ctLayout, layout)
		p.AddRels(name, []ooxml.Relationship{
			{ID: "rId1", Type: ooxml.Rel("slideMaster"), Target: "../slideMasters/slideMaster1.xml"},
		})
	}
	p.Add("ppt/theme/theme1.xml", ooxml.TypeTheme, themeXML)
	// PowerPoint wants each master to own its theme part.
	p.Add("ppt/theme/theme2.xml", ooxml.TypeTheme, themeXML)
	p.Add("ppt/notesMasters/notesMaster1.xml", ctNotesMaster, notesMasterXML)
	p.AddRels("ppt/notesMasters/notesMaster1.xml", []ooxml.Relationship{
		{ID: "rId1", Type: ooxml.Rel("theme"), Target: "../theme/theme2.xml"},
	})
	p.Add("ppt/presProps.xml", ctPresProps, presPropsXML)
	p.Add("ppt/viewProps.xml", ctViewProps, viewPropsXML)
	p.Add("ppt/tableStyles.xml", ctTableStyles, tableStylesXML)

	p.Add("ppt/slides/slide1.xml", ctSlide, titleSlide(d, lang))
	p.AddRels("ppt/slides/slide1.xml", []ooxml.Relationship{
		{ID: "rId1", Type: ooxml.Rel("slideLayout"), Target: "../slideLayouts/slideLayout1.xml"},
	})
	notesN := 0
	for i, s := range d.Slides {
		n := i + 2
		name := fmt.Sprintf("ppt/slides/slide%d.xml", n)
		p.Add(name, ctSlide, contentSlide(s, n, d.Title, lang))
		rels := []ooxml.Relationship{
			{ID: "rId1", Type: ooxml.Rel("slideLayout"), Target: "../slideLayouts/slideLayout2.xml"},
		}
		if s.Notes != "" {
			notesN++
			notesName := fmt.Sprintf("ppt/notesSlides/notesSlide%d.xml", notesN)
			rels = append(rels, ooxml.Relationship{
				ID: "rId2", Type: ooxml.Rel("notesSlide"), Target: fmt.Sprintf("../notesSlides/notesSlide%d.xml", notesN),
			})
			p.Add(notesName, ctNotesSlide, notesSlide(s.Notes, lang))
			p.AddRels(notesName, []ooxml.Relationship{
				{ID: "rId1", Type: ooxml.Rel("notesMaster"), Target: "../notesMasters/notesMaster1.xml"},
				{ID: "rId2", Type: ooxml.Rel("slide"), Target: fmt.Sprintf("../slides/slide%d.xml", n)},
			})
		}
		p.AddRels(name, rels)
	}
	if err := p.Close(); err != nil {
		return fmt.Errorf("pptx: %w", err)
	}
	return nil
}

func deckSample(d office.Deck) string {
	var b strings.Builder
	for _, s := range d.Slides {
		b.WriteString(s.Title)
		b.WriteString(strings.Join(s.Bullets, " "))
	}
	return b.String()
}

func presentation(slides, firstRel int) []byte {
	var x ooxml.Writer
	x.Declaration()
	x.Open("p:presentation", "xmlns:a", nsA, "xmlns:r", nsR, "xmlns:p", nsP, "saveSubsetFonts", "1")
	x.Open("p:sldMasterIdLst")
	x.Empty("p:sldMasterId", "id", "2147483648", "r:id", "rId1")
	x.Close("p:sldMasterIdLst")
	x.Open("p:notesMasterIdLst")
	x.Empty("p:notesMasterId", "r:id", "rId2")
	x.Close("p:notesMasterIdLst")
	x.Open("p:sldIdLst")
	for i := range slides {
		x.Empty("p:sldId", "id", strconv.Itoa(256+i), "r:id", "rId"+strconv.Itoa(firstRel+i))
	}
	x.Close("p:sldIdLst")
	x.Empty("p:sldSz", "cx", strconv.Itoa(slideWidth), "cy", strconv.Itoa(slideHeight))
	x.Empty("p:notesSz", "cx", "6858000", "cy", "9144000")
	x.Open("p:defaultTextStyle")
	x.Raw(`<a:defPPr><a:defRPr lang="en-US"/></a:defPPr>`)
	x.Raw(`<a:lvl1pPr marL="0" algn="l" defTabSz="914400" rtl="0" eaLnBrk="1" latinLnBrk="0" hangingPunct="1"><a:defRPr sz="1800" kern="1200"><a:solidFill><a:schemeClr val="tx1"/></a:solidFill><a:latin typeface="+mn-lt"/><a:ea typeface="+mn-ea"/><a:cs typeface="+mn-cs"/></a:defRPr></a:lvl1pPr>`)
	x.Close("p:defaultTextStyle")
	x.Close("p:presentation")
	return x.Bytes()
}

// Geometry in EMU (914400 per inch), matching parts/slideMaster.xml.
const (
	slideWidth  = 12192000
	slideHeight = 6858000
	emuPerPoint = 12700

	titleWidth  = 11094720 - 2*91440
	titleHeight = 960120 - 2*45720
	bodyWidth   = 11094720 - 2*91440 - 342900 // less insets and the bullet indent
	bodyHeight  = 4663440 - 2*45720
)

func slideStart(x *ooxml.Writer) {
	x.Declaration()
	x.Open("p:sld", "xmlns:a", nsA, "xmlns:r", nsR, "xmlns:p", nsP)
	x.Open("p:cSld")
	x.Open("p:spTree")
	x.Raw(`<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>`)
	x.Raw(`<p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/><a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>`)
}

func slideEnd(x *ooxml.Writer) {
	x.Close("p:spTree")
	x.Close("p:cSld")
	x.Raw(`<p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr>`)
	x.Close("p:sld")
}

// placeholder opens a placeholder shape; ph holds the p:ph attributes.
func placeholder(x *ooxml.Writer, id int, name string, ph ...string) {
	x.Open("p:sp")
	x.Open("p:nvSpPr")
	x.Empty("p:cNvPr", "id", strconv.Itoa(id), "name", name)
	x.Raw(`<p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr>`)
	x.Open("p:nvPr")
	x.Empty("p:ph", ph...)
	x.Close("p:nvPr")
	x.Close("p:nvSpPr")
	x.Empty("p:spPr")
	x.Open("p:txBody")
}

func placeholderEnd(x *ooxml.Writer) {
	x.Close("p:txBody")
	x.Close("p:sp")
}

// runs writes the text of one paragraph; size is in hundredths of a point,
// 0 for the placeholder's own size.
func runs(x *ooxml.Writer, text, lang string, size int) {
	for _, sp := range office.Spans(text) {
		attrs := langAttrs(lang)
		if size > 0 {
			attrs = append(attrs, "sz", strconv.Itoa(size))
		}
		if sp.Bold {
			attrs = append(attrs, "b", "1")
		}
		attrs = append(attrs, "dirty", "0")
		x.Open("a:r")
		x.Empty("a:rPr", attrs...)
		x.Element("a:t", sp.Text)
		x.Close("a:r")
	}
}

func langAttrs(lang string) []string {
	if i18n.IsChineseTag(lang) {
		return []string{"lang", lang, "altLang", "en-US"}
	}
	return []string{"lang", lang}
}

func endPara(x *ooxml.Writer, lang string, size int) {
	attrs := append(langAttrs(lang), "dirty", "0")
	if size > 0 {
		attrs = append(attrs, "sz", strconv.Itoa(size))
	}
	x.Empty("a:endParaRPr", attrs...)
}

func titleSlide(d office.Deck, lang string) []byte {
	var x ooxml.Writer
	slideStart(&x)
	placeholder(&x, 2, "Title 1", "type", "ctrTitle")
	x.Raw(`<a:bodyPr><a:normAutofit/></a:bodyPr><a:lstStyle/>`)
	size := fitTitle(d.Title, 44, 10363200-2*91440, 1737360-2*45720, []int{44, 40, 36, 32, 28})
	x.Open("a:p")
	runs(&x, d.Title, lang, size)
	endPara(&x, lang, size)
	x.Close("a:p")
	placeholderEnd(&x)
	if d.Subtitle != "" {
		placeholder(&x, 3, "Subtitle 2", "type", "subTitle", "idx", "1")
		x.Raw(`<a:bodyPr><a:normAutofit/></a:bodyPr><a:lstStyle/>`)
		x.Open("a:p")
		runs(&x, d.Subtitle, lang, 0)
		endPara(&x, lang, 0)
		x.Close("a:p")
		placeholderEnd(&x)
	}
	slideEnd(&x)
	return x.Bytes()
}

func contentSlide(s office.Slide, number int, deckTitle, lang string) []byte {
	var x ooxml.Writer
	slideStart(&x)

	placeholder(&x, 2, "Title 1", "type", "title")
	x.Raw(`<a:bodyPr><a:normAutofit/></a:bodyPr><a:lstStyle/>`)
	tsize := fitTitle(s.Title, 36, titleWidth, titleHeight, []int{36, 32, 28, 24})
	x.Open("a:p")
	runs(&x, s.Title, lang, tsize)
	endPara(&x, lang, tsize)
	x.Close("a:p")
	placeholderEnd(&x)

	if len(s.Bullets) > 0 {
		placeholder(&x, 3, "Content Placeholder 2", "type", "body", "idx", "1")
		x.Raw(`<a:bodyPr><a:normAutofit/></a:bodyPr><a:lstStyle/>`)
		size := fitBody(s.Bullets)
		for _, b := range s.Bullets {
			x.Open("a:p")
			runs(&x, b, lang, size)
			x.Close("a:p")
		}
		placeholderEnd(&x)
	}

	placeholder(&x, 4, "Footer Placeholder 3", "type", "ftr", "sz", "quarter", "idx", "3")
	x.Raw(`<a:bodyPr/><a:lstStyle/>`)
	x.Open("a:p")
	x.Empty("a:pPr", "algn", "l")
	runs(&x, office.PlainText(deckTitle), lang, 0)
	x.Close("a:p")
	placeholderEnd(&x)

	placeholder(&x, 5, "Slide Number Placeholder 4", "type", "sldNum", "sz", "quarter", "idx", "4")
	x.Raw(`<a:bodyPr/><a:lstStyle/>`)
	x.Open("a:p")
	x.Empty("a:pPr", "algn", "r")
	x.Open("a:fld", "id", slideNumberField, "type", "slidenum")
	x.Empty("a:rPr", langAttrs(lang)...)
	x.Element("a:t", strconv.Itoa(number))
	x.Close("a:fld")
	x.Close("a:p")
	placeholderEnd(&x)

	slideEnd(&x)
	return x.Bytes()
}

func notesSlide(notes, lang string) []byte {
	var x ooxml.Writer
	x.Declaration()
	x.Open("p:notes", "xmlns:a", nsA, "xmlns:r", nsR, "xmlns:p", nsP)
	x.Open("p:cSld")
	x.Open("p:spTree")
	x.Raw(`<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>`)
	x.Raw(`<p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/><a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>`)
	x.Raw(`<p:sp><p:nvSpPr><p:cNvPr id="2" name="Slide Image Placeholder 1"/><p:cNvSpPr><a:spLocks noGrp="1" noRot="1" noChangeAspect="1"/></p:cNvSpPr><p:nvPr><p:ph type="sldImg"/></p:nvPr></p:nvSpPr><p:spPr/></p:sp>`)
	placeholder(&x, 3, "Notes Placeholder 2", "type", "body", "idx", "1")
	x.Raw(`<a:bodyPr/><a:lstStyle/>`)
	for line := range strings.SplitSeq(notes, "\n") {
		x.Open("a:p")
		if line = strings.TrimSpace(line); line != "" {
			runs(&x, line, lang, 0)
		}
		endPara(&x, lang, 0)
		x.Close("a:p")
	}
	placeholderEnd(&x)
	x.Close("p:spTree")
	x.Close("p:cSld")
	x.Raw(`<p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr>`)
	x.Close("p:notes")
	return x.Bytes()
}

// lines is the number of lines text of em width ems takes at size points in
// a box width EMU wide.
func lines(ems float64, size float64, width int) int {
	perLine := float64(width) / emuPerPoint / size // ems per line
	return max(1, int(math.Ceil(ems/perLine)))
}

// fitTitle returns the first size (in points) at which title fits the box
// in at most two lines, as hundredths of a point; 0 when the default fits.
func fitTitle(title string, def, width, height int, sizes []int) int {
	ems := office.EmWidth(title)
	for _, s := range sizes {
		n := lines(ems, float64(s), width)
		if n <= 2 && float64(n)*float64(s)*1.2*0.9 <= float64(height)/emuPerPoint {
			if s == def {
				return 0
			}
			return s * 100
		}
	}
	return sizes[len(sizes)-1] * 100
}

// fitBody returns the bullet size (hundredths of a point) at which the
// bullets fit the body box: line height is 1.2 × 110 % of the size, and
// each paragraph has 12 pt before it (parts/slideMaster.xml).
func fitBody(bullets []string) int {
	bodySizes := [...]int{28, 24, 22, 20, 18, 16, 14} // largest first
	for _, s := range bodySizes {
		h := 0.0
		for _, b := range bullets {
			h += float64(lines(office.EmWidth(b), float64(s), bodyWidth))*float64(s)*1.2*1.1 + 12
		}
		if h <= float64(bodyHeight)/emuPerPoint {
			return s * 100
		}
	}
	return bodySizes[len(bodySizes)-1] * 100
}
