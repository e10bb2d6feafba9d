package blob

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/insightedge/insightedge/shared/apperr"
)

// TeacherHeader carries the teacher identity the local auth layer
// established; a request with it may only fetch that teacher's files.
const TeacherHeader = "X-Teacher-Id"

// PageCSP is the Content-Security-Policy of served HTML files: the page may
// run its inline script and style and show data: images, load nothing, and
// runs sandboxed (an opaque origin: no cookies, storage or parent access).
const PageCSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; media-src data:; sandbox allow-scripts"

// Handler serves the files of URLs signed by s. Mount it at the configured
// prefix, for example mux.Handle("/files/", store.Handler()).
//
// A request must carry a valid, unexpired signature (403 AUTH_ERROR
// otherwise); when it carries TeacherHeader, the key must belong to that
// teacher (403). An unknown or malformed key is 404.
func (s *FS) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, apperr.New(apperr.ValidationError, "method not allowed").WithStatus(http.StatusMethodNotAllowed))
			return
		}
		key, ok := strings.CutPrefix(r.URL.Path, s.prefix)
		if !ok || ValidateKey(key) != nil {
			writeError(w, apperr.New(apperr.EntityNotFound, "file not found"))
			return
		}
		q := r.URL.Query()
		if err := s.verify(key, q.Get("exp"), q.Get("sig")); err != nil {
			writeError(w, apperr.New(apperr.AuthError, "%s", err.Error()).WithStatus(http.StatusForbidden))
			return
		}
		if t := r.Header.Get(TeacherHeader); t != "" && !OwnedBy(key, t) {
			writeError(w, apperr.New(apperr.AuthError, "this file belongs to another teacher").WithStatus(http.StatusForbidden))
			return
		}
		f, obj, err := s.open(key)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				writeError(w, apperr.New(apperr.EntityNotFound, "file not found"))
				return
			}
			s.log.ErrorContext(r.Context(), "blob: serve file", "key", key, "err", err)
			writeError(w, apperr.New(apperr.Internal, "could not read the file"))
			return
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			writeError(w, apperr.New(apperr.Internal, "could not read the file"))
			return
		}
		h := w.Header()
		h.Set("Content-Type", obj.ContentType)
		h.Set("Content-Disposition", ContentDisposition(obj.Filename(), Inline(obj.ContentType)))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "private, max-age=300")
		if strings.HasPrefix(obj.ContentType, "text/html") {
			h.Set("Content-Security-Policy", PageCSP)
		}
		// ServeContent sets Content-Length and answers HEAD, ranges and
		// conditional requests.
		http.ServeContent(w, r, "", fi.ModTime(), f)
	})
}

func writeError(w http.ResponseWriter, e *apperr.Error) {
	body, _ := json.Marshal(e.ToBody()) // a Body always encodes
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(e.HTTPStatus())
	w.Write(body)
}
