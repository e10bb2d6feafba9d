// Package ooxmltest checks Office Open XML packages in tests: every part is
// well-formed XML, every part has a content type, and every relationship
// points at a part that exists.
package ooxmltest

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"io"
	"path"
	"strings"
	"testing"
)

// Open checks the package and returns its parts by name.
func Open(t testing.TB, data []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	parts := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatalf("open %s: %v", f.Name, err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("read %s: %v", f.Name, err)
		}
		if _, dup := parts[f.Name]; dup {
			t.Errorf("part %s appears twice", f.Name)
		}
		parts[f.Name] = b
		if err := wellFormed(b); err != nil {
			t.Errorf("%s is not well-formed XML: %v", f.Name, err)
		}
	}
	ct, ok := parts["[Content_Types].xml"]
	if !ok {
		t.Fatal("no [Content_Types].xml")
	}
	var types struct {
		Defaults []struct {
			Extension string `xml:"Extension,attr"`
		} `xml:"Default"`
		Overrides []struct {
			PartName string `xml:"PartName,attr"`
		} `xml:"Override"`
	}
	if err := xml.Unmarshal(ct, &types); err != nil {
		t.Fatalf("[Content_Types].xml: %v", err)
	}
	typed := map[string]bool{}
	for _, o := range types.Overrides {
		typed[strings.TrimPrefix(o.PartName, "/")] = true
		if _, ok := parts[strings.TrimPrefix(o.PartName, "/")]; !ok {
			t.Errorf("content type for missing part %s", o.PartName)
		}
	}
	defaults := map[string]bool{}
	for _, d := range types.Defaults {
		defaults[d.Extension] = true
	}
	if !defaults["rels"] {
		t.Error("no default content type for .rels")
	}
	for name := range parts {
		if name == "[Content_Types].xml" || strings.HasSuffix(name, ".rels") {
			continue
		}
		if !typed[name] {
			t.Errorf("part %s has no content type override", name)
		}
	}
	for name, b := range parts {
		if !strings.HasSuffix(name, ".rels") {
			continue
		}
		// _rels/x.rels describes x; dir/_rels/y.xml.rels describes dir/y.xml.
		dir := path.Dir(path.Dir(name))
		if dir == "." {
			dir = ""
		}
		var rels struct {
			Rel []struct {
				ID     string `xml:"Id,attr"`
				Target string `xml:"Target,attr"`
				Mode   string `xml:"TargetMode,attr"`
			} `xml:"Relationship"`
		}
		if err := xml.Unmarshal(b, &rels); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		ids := map[string]bool{}
		for _, r := range rels.Rel {
			if ids[r.ID] {
				t.Errorf("%s: duplicate id %s", name, r.ID)
			}
			ids[r.ID] = true
			if r.Mode == "External" {
				continue
			}
			target := path.Clean(path.Join(dir, r.Target))
			if _, ok := parts[target]; !ok {
				t.Errorf("%s: %s points at missing part %s", name, r.ID, target)
			}
		}
	}
	return parts
}

func wellFormed(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
