// Package docs_test holds the repository's Markdown to the files it is
// shipped with: every relative link and anchor of README.md and docs/
// resolves inside the repository, so a reader of a fresh clone never
// meets a dead link.
package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var (
	link    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*$`)
	fence   = regexp.MustCompile("(?ms)^```.*?^```")
	code    = regexp.MustCompile("`[^`\n]*`")
)

func TestMarkdownLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := code.ReplaceAllString(fence.ReplaceAllString(string(b), ""), "")
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := f
			if path != "" {
				file = filepath.Join(filepath.Dir(f), path)
			}
			rel, _ := filepath.Rel(root, file)
			if strings.HasPrefix(rel, "..") {
				t.Errorf("%s: %q points outside the repository", f, target)
				continue
			}
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s: %q: no such file", f, target)
				continue
			}
			if anchor != "" && !hasAnchor(t, file, anchor) {
				t.Errorf("%s: %q: %s has no heading with that anchor", f, target, rel)
			}
		}
	}
}

// hasAnchor reports whether file (Markdown) has a heading whose GitHub
// anchor is anchor.
func hasAnchor(t *testing.T, file, anchor string) bool {
	if !strings.HasSuffix(file, ".md") {
		return false
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range heading.FindAllStringSubmatch(fence.ReplaceAllString(string(b), ""), -1) {
		if slug(m[1]) == anchor {
			return true
		}
	}
	return false
}

// slug is GitHub's anchor of a heading: lower case, letters, digits,
// hyphens and underscores kept, spaces as hyphens, the rest dropped.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"1. Conversation: the AI SDK UI message stream":      "1-conversation-the-ai-sdk-ui-message-stream",
		"Follow-ups on a built page (refine, rebuild, chat)": "follow-ups-on-a-built-page-refine-rebuild-chat",
		"A stock `useChat` client (AI SDK)":                  "a-stock-usechat-client-ai-sdk",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
}
