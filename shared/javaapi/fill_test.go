package javaapi

import (
	"net/url"
	"strings"
	"testing"
)

// fill must do what the strings.Replacer it replaced did.
func TestFillMatchesReplacer(t *testing.T) {
	tests := []struct {
		tmpl, teacher string
		params        []string
	}{
		{"/dify/teacher/{teacherId}/classes/me", "t-001", nil},
		{"/dify/teacher/{teacherId}/classes/{classId}/assignments", "t 1/x", []string{"classId", "1A?#%"}},
		{"/t/{teacherId}/{teacherId}/{classId}{classId}", "a", []string{"classId", "b"}},
		{"/{{teacherId}}/{unknown}/{classId/{", "a", []string{"classId", "b"}},
		{"/{teacherId", "a", nil},
		{"", "a", nil},
		{"/{classId}/{studentId}", "{classId}", []string{"classId", "{teacherId}", "studentId", "中一"}},
	}
	for _, tt := range tests {
		pairs := []string{"{teacherId}", url.PathEscape(tt.teacher)}
		for i := 0; i+1 < len(tt.params); i += 2 {
			pairs = append(pairs, "{"+tt.params[i]+"}", url.PathEscape(tt.params[i+1]))
		}
		want := strings.NewReplacer(pairs...).Replace(tt.tmpl)
		if got := fill(tt.tmpl, tt.teacher, tt.params); got != want {
			t.Errorf("fill(%q) = %q, want %q", tt.tmpl, got, want)
		}
	}
}
