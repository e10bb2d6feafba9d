package blob_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/blob"
)

func TestContentDisposition(t *testing.T) {
	tests := []struct {
		name   string
		inline bool
		want   string
	}{
		{"lesson.docx", false, `attachment; filename="lesson.docx"; filename*=UTF-8''lesson.docx`},
		{"勾股定理.pptx", false, `attachment; filename="file.pptx"; filename*=UTF-8''%E5%8B%BE%E8%82%A1%E5%AE%9A%E7%90%86.pptx`},
		{"第1课 Pythagoras.pdf", true, `inline; filename="1_ Pythagoras.pdf"; filename*=UTF-8''%E7%AC%AC1%E8%AF%BE%20Pythagoras.pdf`},
		{`a"b\c.html`, true, `inline; filename="a_b_c.html"; filename*=UTF-8''a%22b%5Cc.html`},
	}
	for _, tt := range tests {
		if got := blob.ContentDisposition(tt.name, tt.inline); got != tt.want {
			t.Errorf("ContentDisposition(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestID(t *testing.T) {
	tests := map[string]string{
		"t-1":                    "t-1",
		"call_AbC123":            "call_AbC123",
		"a@b.edu":                "a@b.edu",
		"auth0|123":              "h",
		"../../etc":              "h",
		"..":                     "h",
		"":                       "h",
		"老师":                     "h",
		strings.Repeat("x", 129): "h",
	}
	for in, prefix := range tests {
		got := blob.ID(in)
		if prefix == "h" {
			if len(got) != 33 || got[0] != 'h' {
				t.Errorf("ID(%q) = %q, want a hashed id", in, got)
			}
		} else if got != prefix {
			t.Errorf("ID(%q) = %q, want it unchanged", in, got)
		}
		if err := blob.ValidateKey("teachers/" + got); err != nil {
			t.Errorf("ID(%q) = %q is not a key segment: %v", in, got, err)
		}
	}
	if blob.ID("auth0|1") == blob.ID("auth0|2") {
		t.Error("two ids share a segment")
	}
}

func TestTeacherKey(t *testing.T) {
	key, err := blob.TeacherKey("auth0|7", "sessions", "s1", "教案.docx")
	if err != nil {
		t.Fatal(err)
	}
	if !blob.OwnedBy(key, "auth0|7") || blob.OwnedBy(key, "auth0|8") || blob.OwnedBy(key, "") {
		t.Errorf("OwnedBy(%q) is wrong", key)
	}
	if _, err := blob.TeacherKey("", "x"); !errors.Is(err, blob.ErrInvalidKey) {
		t.Errorf("empty teacher: %v", err)
	}
	if _, err := blob.TeacherKey("t", "..", "x"); !errors.Is(err, blob.ErrInvalidKey) {
		t.Errorf("dot-dot part: %v", err)
	}
	if blob.OwnedBy("shared/x", "t") {
		t.Error("a key outside teachers/ is owned")
	}
}
