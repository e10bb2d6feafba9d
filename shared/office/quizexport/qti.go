package quizexport

import (
	"bytes"
	"fmt"
	"time"

	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/office/internal/ooxml"
)

// QTI 2.1 and IMS Content Packaging 1.1 names.
const (
	qtiNS       = "http://www.imsglobal.org/xsd/imsqti_v2p1"
	qtiLocation = "http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1.xsd"
	cpNS        = "http://www.imsglobal.org/xsd/imscp_v1p1"
	cpLocation  = "http://www.imsglobal.org/xsd/imscp_v1p1.xsd"
	xsiNS       = "http://www.w3.org/2001/XMLSchema-instance"
	// QTIContentType is the content package's type.
	QTIContentType = "application/zip"
)

// WriteQTI21 writes q as an IMS content package (a zip): imsmanifest.xml,
// one QTI 2.1 assessmentItem per question under items/ (choice
// interactions with their correct response, a text entry for a fill-in,
// an extended text for an open question, each with its explanation as
// feedback) and an assessmentTest, test.xml, holding them in order. An
// open question has no correct response: it is graded by hand (a Note).
func WriteQTI21(q Quiz, modified time.Time) ([]byte, []Note, error) {
	var buf bytes.Buffer
	pkg := newZip(&buf, modified)
	var notes []Note
	for _, qu := range q.Questions {
		if qu.Kind == ShortAnswer {
			notes = append(notes, Note{Question: qu.Number, Action: Converted, Reason: ReasonManualGrading})
		}
		pkg.add(itemHref(qu), qtiItem(qu, q.Lang))
	}
	pkg.add("test.xml", qtiTest(q))
	pkg.add("imsmanifest.xml", manifest(q))
	if err := pkg.close(); err != nil {
		return nil, nil, fmt.Errorf("quizexport: qti: %w", err)
	}
	return buf.Bytes(), notes, nil
}

func itemID(q Question) string   { return fmt.Sprintf("item-%d", q.Number) }
func itemHref(q Question) string { return fmt.Sprintf("items/item-%d.xml", q.Number) }

func qtiItem(q Question, lang string) []byte {
	var x ooxml.Writer
	x.Raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.Open("assessmentItem", "xmlns", qtiNS, "xmlns:xsi", xsiNS,
		"xsi:schemaLocation", qtiNS+" "+qtiLocation, "identifier", itemID(q), "title", q.name(),
		"adaptive", "false", "timeDependent", "false", "xml:lang", lang)
	cardinality, baseType := "single", "identifier"
	switch q.Kind {
	case MultipleChoice:
		cardinality = "multiple"
	case FillBlank, ShortAnswer:
		baseType = "string"
	}
	x.Open("responseDeclaration", "identifier", "RESPONSE", "cardinality", cardinality, "baseType", baseType)
	if q.Kind != ShortAnswer {
		x.Open("correctResponse")
		if q.Kind == FillBlank {
			x.Element("value", office.Line(q.Answer))
		}
		for _, c := range q.Correct {
			x.Element("value", Letter(c))
		}
		x.Close("correctResponse")
	}
	x.Close("responseDeclaration")
	x.Open("outcomeDeclaration", "identifier", "SCORE", "cardinality", "single", "baseType", "float")
	x.Raw("<defaultValue><value>0</value></defaultValue>")
	x.Close("outcomeDeclaration")
	x.Empty("outcomeDeclaration", "identifier", "FEEDBACK", "cardinality", "single", "baseType", "identifier")
	x.Open("itemBody")
	paragraphs(&x, q.Stem)
	switch q.Kind {
	case FillBlank:
		x.Open("p")
		x.Empty("textEntryInteraction", "responseIdentifier", "RESPONSE", "expectedLength", "20")
		x.Close("p")
	case ShortAnswer:
		x.Empty("extendedTextInteraction", "responseIdentifier", "RESPONSE", "expectedLines", "5")
	default:
		maxChoices := "1"
		if q.Kind == MultipleChoice {
			maxChoices = "0"
		}
		x.Open("choiceInteraction", "responseIdentifier", "RESPONSE", "shuffle", "false", "maxChoices", maxChoices)
		for i, o := range q.Options {
			x.Element("simpleChoice", o, "identifier", Letter(i))
		}
		x.Close("choiceInteraction")
	}
	x.Close("itemBody")
	x.Open("responseProcessing")
	if q.Kind != ShortAnswer {
		x.Raw(`<responseCondition><responseIf><match><variable identifier="RESPONSE"/><correct identifier="RESPONSE"/></match>` +
			`<setOutcomeValue identifier="SCORE"><baseValue baseType="float">1</baseValue></setOutcomeValue></responseIf>` +
			`<responseElse><setOutcomeValue identifier="SCORE"><baseValue baseType="float">0</baseValue></setOutcomeValue></responseElse></responseCondition>`)
	}
	x.Raw(`<setOutcomeValue identifier="FEEDBACK"><baseValue baseType="identifier">EXPLANATION</baseValue></setOutcomeValue>`)
	x.Close("responseProcessing")
	x.Open("modalFeedback", "outcomeIdentifier", "FEEDBACK", "identifier", "EXPLANATION", "showHide", "show")
	if q.Kind == ShortAnswer && q.Answer != "" {
		paragraphs(&x, q.Answer)
	}
	paragraphs(&x, q.Explanation)
	x.Close("modalFeedback")
	x.Close("assessmentItem")
	return x.Bytes()
}

// paragraphs writes s as <p> elements, one per line.
func paragraphs(x *ooxml.Writer, s string) {
	for _, p := range office.Paragraphs(s) {
		x.Element("p", p)
	}
}

func qtiTest(q Quiz) []byte {
	var x ooxml.Writer
	x.Raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.Open("assessmentTest", "xmlns", qtiNS, "xmlns:xsi", xsiNS,
		"xsi:schemaLocation", qtiNS+" "+qtiLocation, "identifier", "test", "title", q.Title)
	x.Open("testPart", "identifier", "part-1", "navigationMode", "nonlinear", "submissionMode", "simultaneous")
	x.Open("assessmentSection", "identifier", "section-1", "title", q.Title, "visible", "true")
	for _, qu := range q.Questions {
		x.Empty("assessmentItemRef", "identifier", itemID(qu), "href", itemHref(qu))
	}
	x.Close("assessmentSection")
	x.Close("testPart")
	x.Close("assessmentTest")
	return x.Bytes()
}

func manifest(q Quiz) []byte {
	var x ooxml.Writer
	x.Raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.Open("manifest", "xmlns", cpNS, "xmlns:xsi", xsiNS,
		"xsi:schemaLocation", cpNS+" "+cpLocation, "identifier", "manifest-quiz")
	x.Raw("<metadata><schema>QTIv2.1 Package</schema><schemaversion>1.0.0</schemaversion></metadata>")
	x.Empty("organizations")
	x.Open("resources")
	x.Open("resource", "identifier", "test", "type", "imsqti_test_xmlv2p1", "href", "test.xml")
	x.Empty("file", "href", "test.xml")
	for _, qu := range q.Questions {
		x.Empty("dependency", "identifierref", itemID(qu))
	}
	x.Close("resource")
	for _, qu := range q.Questions {
		x.Open("resource", "identifier", itemID(qu), "type", "imsqti_item_xmlv2p1", "href", itemHref(qu))
		x.Empty("file", "href", itemHref(qu))
		x.Close("resource")
	}
	x.Close("resources")
	x.Close("manifest")
	return x.Bytes()
}
