// Package ooxml writes Office Open XML packages (ECMA-376 Part 2, Open
// Packaging Conventions): a zip of XML parts, a [Content_Types].xml naming
// each part's type, and _rels parts linking them. The .pptx and .docx
// writers build their parts with XML and hand them to a Package.
//
// No maintained Go library writes both formats with the control we need over
// fonts and East Asian text, and the minimal part sets are small, so the
// writers emit the XML themselves.
package ooxml

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"time"
)

// Relationship types used by the writers.
const (
	RelOfficeDocument = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
	RelCoreProps      = "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties"
	RelExtendedProps  = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties"
	relBase           = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
)

// Rel returns the officeDocument relationship type named kind, such as
// "slide" or "styles".
func Rel(kind string) string { return relBase + kind }

// Content types shared by both formats.
const (
	TypeRels      = "application/vnd.openxmlformats-package.relationships+xml"
	TypeCoreProps = "application/vnd.openxmlformats-package.core-properties+xml"
	TypeAppProps  = "application/vnd.openxmlformats-officedocument.extended-properties+xml"
	TypeTheme     = "application/vnd.openxmlformats-officedocument.theme+xml"
)

// Relationship is one link from a part to another.
type Relationship struct {
	ID, Type, Target string
}

// Package is an OPC package being written.
type Package struct {
	zw        *zip.Writer
	modified  time.Time
	overrides []override
	err       error
}

type override struct{ part, contentType string }

// NewPackage starts a package on w. Every zip entry gets the modified time,
// so that the same input always gives the same bytes.
func NewPackage(w io.Writer, modified time.Time) *Package {
	if modified.IsZero() {
		modified = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return &Package{zw: zip.NewWriter(w), modified: modified}
}

// Add writes the part at name (no leading slash) with its content type.
func (p *Package) Add(name, contentType string, data []byte) {
	if p.err != nil {
		return
	}
	p.overrides = append(p.overrides, override{"/" + name, contentType})
	p.write(name, data)
}

// AddRels writes the relationships part of the part at source ("" for the
// package itself).
func (p *Package) AddRels(source string, rels []Relationship) {
	dir, file := path.Split(source)
	name := path.Join(dir, "_rels", file+".rels")
	var x Writer
	x.Declaration()
	x.Open("Relationships", "xmlns", "http://schemas.openxmlformats.org/package/2006/relationships")
	for _, r := range rels {
		x.Empty("Relationship", "Id", r.ID, "Type", r.Type, "Target", r.Target)
	}
	x.Close("Relationships")
	p.write(name, x.Bytes())
}

func (p *Package) write(name string, data []byte) {
	if p.err != nil {
		return
	}
	fw, err := p.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: p.modified})
	if err != nil {
		p.err = fmt.Errorf("ooxml: add %s: %w", name, err)
		return
	}
	if _, err := fw.Write(data); err != nil {
		p.err = fmt.Errorf("ooxml: write %s: %w", name, err)
	}
}

// Close writes [Content_Types].xml and finishes the zip.
func (p *Package) Close() error {
	var x Writer
	x.Declaration()
	x.Open("Types", "xmlns", "http://schemas.openxmlformats.org/package/2006/content-types")
	x.Empty("Default", "Extension", "rels", "ContentType", TypeRels)
	x.Empty("Default", "Extension", "xml", "ContentType", "application/xml")
	for _, o := range p.overrides {
		x.Empty("Override", "PartName", o.part, "ContentType", o.contentType)
	}
	x.Close("Types")
	p.write("[Content_Types].xml", x.Bytes())
	if p.err != nil {
		return p.err
	}
	if err := p.zw.Close(); err != nil {
		return fmt.Errorf("ooxml: close package: %w", err)
	}
	return nil
}

// CoreProps returns docProps/core.xml (Dublin Core metadata).
func CoreProps(title, creator, lang string, created time.Time) []byte {
	var x Writer
	x.Declaration()
	x.Open("cp:coreProperties",
		"xmlns:cp", "http://schemas.openxmlformats.org/package/2006/metadata/core-properties",
		"xmlns:dc", "http://purl.org/dc/elements/1.1/",
		"xmlns:dcterms", "http://purl.org/dc/terms/",
		"xmlns:dcmitype", "http://purl.org/dc/dcmitype/",
		"xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance")
	x.Element("dc:title", title)
	if creator != "" {
		x.Element("dc:creator", creator)
		x.Element("cp:lastModifiedBy", creator)
	}
	x.Element("dc:language", lang)
	if !created.IsZero() {
		ts := created.UTC().Format("2006-01-02T15:04:05Z")
		x.Open("dcterms:created", "xsi:type", "dcterms:W3CDTF")
		x.Text(ts)
		x.Close("dcterms:created")
		x.Open("dcterms:modified", "xsi:type", "dcterms:W3CDTF")
		x.Text(ts)
		x.Close("dcterms:modified")
	}
	x.Close("cp:coreProperties")
	return x.Bytes()
}

// AppProps returns docProps/app.xml with the given counters (for example
// "Slides", "Notes" or "Pages"), in the order given.
func AppProps(counts ...any) []byte {
	var x Writer
	x.Declaration()
	x.Open("Properties",
		"xmlns", "http://schemas.openxmlformats.org/officeDocument/2006/extended-properties",
		"xmlns:vt", "http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes")
	x.Element("Application", "InsightEdge")
	for i := 0; i+1 < len(counts); i += 2 {
		x.Element(fmt.Sprint(counts[i]), fmt.Sprint(counts[i+1]))
	}
	x.Close("Properties")
	return x.Bytes()
}

// Writer builds an XML document. Element names are written as given,
// prefixes included ("p:sp"); text and attribute values are escaped with
// encoding/xml, which also replaces characters XML cannot carry.
type Writer struct {
	buf bytes.Buffer
}

// Declaration writes the XML declaration Office expects.
func (x *Writer) Declaration() {
	x.buf.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n")
}

// Open writes a start tag; attrs are name, value pairs.
func (x *Writer) Open(name string, attrs ...string) {
	x.tag(name, attrs, false)
}

// Empty writes an empty element.
func (x *Writer) Empty(name string, attrs ...string) {
	x.tag(name, attrs, true)
}

func (x *Writer) tag(name string, attrs []string, empty bool) {
	x.buf.WriteByte('<')
	x.buf.WriteString(name)
	for i := 0; i+1 < len(attrs); i += 2 {
		x.buf.WriteByte(' ')
		x.buf.WriteString(attrs[i])
		x.buf.WriteString(`="`)
		x.escape(attrs[i+1])
		x.buf.WriteByte('"')
	}
	if empty {
		x.buf.WriteString("/>")
	} else {
		x.buf.WriteByte('>')
	}
}

// Close writes an end tag.
func (x *Writer) Close(name string) {
	x.buf.WriteString("</")
	x.buf.WriteString(name)
	x.buf.WriteByte('>')
}

// Text writes escaped character data.
func (x *Writer) Text(s string) { x.escape(s) }

// Element writes <name attrs>text</name>.
func (x *Writer) Element(name, text string, attrs ...string) {
	x.Open(name, attrs...)
	x.escape(text)
	x.Close(name)
}

// Raw writes s unescaped: for constant XML fragments only.
func (x *Writer) Raw(s string) { x.buf.WriteString(s) }

// Bytes returns the document.
func (x *Writer) Bytes() []byte { return x.buf.Bytes() }

func (x *Writer) escape(s string) {
	// EscapeText writes to an io.Writer; a bytes.Buffer never fails.
	_ = xml.EscapeText(&x.buf, []byte(s))
}
