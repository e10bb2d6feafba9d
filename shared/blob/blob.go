// Package blob stores generated files (decks, documents, PDFs, pages) and
// hands out time-limited download URLs: S3 with presigned GET URLs in AWS
// (package s3blob, apart so that the local binary does not link the AWS
// SDK), a directory with HMAC-signed URLs and an http.Handler on one
// machine. Both implement Store and pass the same contract suite (blobtest).
//
// Keys are slash-separated paths. Files of a teacher live under
// teachers/<teacherId>/..., and the last segment of a key is the file name
// the browser saves, so a key like
// teachers/t1/sessions/s1/files/call_7/勾股定理.pptx downloads as
// "勾股定理.pptx".
package blob

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Errors of every Store.
var (
	ErrNotFound   = errors.New("blob: not found")
	ErrInvalidKey = errors.New("blob: invalid key")
)

// Object describes a stored file.
type Object struct {
	Key         string
	ContentType string
	Size        int64
}

// Filename is the name the browser saves the object under.
func (o Object) Filename() string { return path.Base(o.Key) }

// Store holds files and signs URLs to them.
type Store interface {
	// Put stores body under key, replacing what was there.
	Put(ctx context.Context, key, contentType string, body []byte) (Object, error)
	// Head describes the object at key, or returns ErrNotFound.
	Head(ctx context.Context, key string) (Object, error)
	// Get opens the object at key, or returns ErrNotFound; close the reader.
	Get(ctx context.Context, key string) (io.ReadCloser, Object, error)
	// URL returns a URL that downloads the object for ttl.
	URL(ctx context.Context, key string, ttl time.Duration) (string, error)
	// Delete removes the object at key (nothing if there is none). Every
	// URL signed for it stops working: this is how a link is revoked.
	Delete(ctx context.Context, key string) error
}

// MaxKeyBytes is S3's limit on a key.
const MaxKeyBytes = 1024

// ValidateKey returns an error wrapping ErrInvalidKey unless key is a
// relative path of non-empty segments, none of them "." or "..", without
// backslashes, control characters or the characters URLs and file systems
// treat specially.
func ValidateKey(key string) error {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrInvalidKey, key, why) }
	switch {
	case key == "":
		return bad("empty")
	case len(key) > MaxKeyBytes:
		return bad("too long")
	case !utf8.ValidString(key):
		return bad("not UTF-8")
	case strings.HasPrefix(key, "/"):
		return bad("absolute")
	}
	for seg := range strings.SplitSeq(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return bad("empty, . or .. segment")
		}
		if err := validSegment(seg); err != nil {
			return bad(err.Error())
		}
	}
	return nil
}

func validSegment(seg string) error {
	for _, r := range seg {
		if unicode.IsControl(r) || strings.ContainsRune(`\?#%*:|"<>`, r) || r == utf8.RuneError {
			return fmt.Errorf("character %q not allowed", r)
		}
	}
	if strings.TrimSpace(seg) != seg {
		return errors.New("segment starts or ends with space")
	}
	return nil
}

// ID returns an identifier from outside (teacher, session, tool call) as
// one key segment. An id of letters, digits, ".", "_", "@" and "-" (up to
// 128 bytes) is used as it is; any other id becomes "h" and 32 hex digits
// of its SHA-256, so two ids never share a segment and no id can reach
// outside its folder.
func ID(id string) string {
	plain := id != "" && len(id) <= 128 && id != "." && id != ".."
	for i := 0; plain && i < len(id); i++ {
		c := id[i]
		plain = ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') || strings.IndexByte("._@-", c) >= 0
	}
	if plain {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "h" + hex.EncodeToString(sum[:16])
}

// TeacherKey returns teachers/<ID(teacherID)>/<parts...>, or an error if
// the teacher id is empty or the key is not valid.
func TeacherKey(teacherID string, parts ...string) (string, error) {
	if teacherID == "" {
		return "", fmt.Errorf("%w: no teacher id", ErrInvalidKey)
	}
	key := strings.Join(append([]string{"teachers", ID(teacherID)}, parts...), "/")
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	return key, nil
}

// OwnedBy reports whether key lies under the folder of teacherID.
func OwnedBy(key, teacherID string) bool {
	t, ok := TeacherOf(key)
	return ok && teacherID != "" && t == ID(teacherID)
}

// TeacherOf returns the teacher segment of a key ("teachers/<id>/...").
func TeacherOf(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, "teachers/")
	if !ok {
		return "", false
	}
	id, _, ok := strings.Cut(rest, "/")
	return id, ok && id != ""
}

// ContentDisposition returns a Content-Disposition value (RFC 6266) for
// filename: an ASCII fallback in filename= and the UTF-8 name in
// filename*= (RFC 5987), which every current browser prefers. inline asks
// the browser to show the file instead of saving it.
func ContentDisposition(filename string, inline bool) string {
	kind := "attachment"
	if inline {
		kind = "inline"
	}
	return fmt.Sprintf(`%s; filename="%s"; filename*=UTF-8''%s`, kind, asciiFallback(filename), encode5987(filename))
}

// Inline reports whether a file of contentType is shown in the browser
// (pages and PDFs) rather than saved.
func Inline(contentType string) bool {
	return strings.HasPrefix(contentType, "text/html") || strings.HasPrefix(contentType, "application/pdf")
}

func asciiFallback(name string) string {
	ext := path.Ext(name)
	base := strings.TrimSuffix(name, ext)
	var b strings.Builder
	for _, r := range base {
		switch {
		case r < 0x20 || r > 0x7E || r == '"' || r == '\\':
			if !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
		default:
			b.WriteRune(r)
		}
	}
	s := strings.Trim(b.String(), "_ ")
	if s == "" {
		s = "file"
	}
	if !isASCII(ext) {
		ext = ""
	}
	return s + ext
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7E || s[i] == '"' || s[i] == '\\' {
			return false
		}
	}
	return true
}

// encode5987 percent-encodes s as an RFC 5987 value: attr-char stays,
// every other byte is %XX.
func encode5987(s string) string {
	const attrChars = "!#$&+-.^_`|~"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') || strings.IndexByte(attrChars, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// escapeKey escapes each segment of key for a URL path.
func escapeKey(key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
