package quizexport_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/office/officetest"
)

// The independent readers of the exports: xmllint with the pinned 1EdTech
// XSDs (testdata/qti), gift-pegjs and exceljs (test/quizreaders). A missing
// reader skips the test, except under CI=true, where it fails
// (officetest.Missing).

func repo(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// xmllintSchema validates files against the XSD with xmllint, offline.
func xmllintSchema(t *testing.T, xsd string, files ...string) {
	t.Helper()
	bin := officetest.RequireTool(t, "xmllint")
	args := append([]string{"--noout", "--nonet", "--schema", xsd}, files...)
	officetest.Run(t, "", bin, args...)
}

// xmllintWellFormed checks that file is well-formed XML.
func xmllintWellFormed(t *testing.T, file string) {
	t.Helper()
	officetest.Run(t, "", officetest.RequireTool(t, "xmllint"), "--noout", "--nonet", file)
}

// quizReader runs test/quizreaders/read.mjs in mode over file and decodes
// its JSON into v.
func quizReader(t *testing.T, mode, file string, v any) {
	t.Helper()
	node := officetest.RequireTool(t, "node")
	dir := repo(t, "test/quizreaders")
	for _, m := range []string{"gift-pegjs", "exceljs"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", m)); err != nil {
			officetest.Missing(t, m+" is not installed: run npm ci in "+dir)
		}
	}
	out := officetest.Run(t, dir, node, "read.mjs", mode, file)
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("read.mjs %s: %v\n%s", mode, err, out)
	}
}

// unzip writes the zip's entries under a new directory and returns it.
func unzip(t *testing.T, data []byte) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	dir := t.TempDir()
	for _, f := range zr.File {
		if strings.Contains(f.Name, "..") || strings.HasPrefix(f.Name, "/") {
			t.Fatalf("unsafe entry %q", f.Name)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		_, err = b.ReadFrom(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeTempPath(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
