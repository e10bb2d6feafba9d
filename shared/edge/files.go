package edge

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/protocol"
)

// FileSigner signs download links to the generated files (blob.Store is
// one). In AWS a link is an S3 presigned URL signed with the function
// role's temporary credentials: it dies with them, often hours before the
// expiry it states. So links are signed again when they are shown: by
// /messages for a reloaded conversation, and by GET /api/files/{key...}
// for a page that stayed open.
type FileSigner interface {
	Head(ctx context.Context, key string) (blob.Object, error)
	URL(ctx context.Context, key string, ttl time.Duration) (string, error)
}

// FileLinkTTL is how long a link signed again stays valid (at most; the
// credentials that sign it may end sooner, and the route signs anew).
const FileLinkTTL = time.Hour

// FileLink is GET /api/files/{key...}'s answer.
type FileLink struct {
	Key       string    `json:"key"`
	Filename  string    `json:"filename"`
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// handleFileLink is GET /api/files/{key...}: a fresh download link to one
// of the teacher's generated files. The key is the path of the file's link
// from "teachers/" on (FileKey). Another teacher's file is not found.
func (s *Server) handleFileLink(w http.ResponseWriter, r *http.Request) error {
	id, err := s.auth.Authenticate(r)
	if err != nil {
		return err
	}
	key := r.PathValue("key")
	if s.o.Files == nil || blob.ValidateKey(key) != nil || !blob.OwnedBy(key, id.TeacherID) {
		return apperr.New(apperr.EntityNotFound, "no file %s", key)
	}
	ctx := r.Context()
	obj, err := s.o.Files.Head(ctx, key)
	switch {
	case errors.Is(err, blob.ErrNotFound):
		return apperr.New(apperr.EntityNotFound, "no file %s", key)
	case err != nil:
		return apperr.Wrap(err, apperr.ServiceUnavailable, "file store unavailable")
	}
	link, err := s.o.Files.URL(ctx, key, FileLinkTTL)
	if err != nil {
		return apperr.Wrap(err, apperr.ServiceUnavailable, "could not sign a link")
	}
	writeJSON(w, http.StatusOK, FileLink{Key: key, Filename: obj.Filename(), URL: link, ExpiresAt: s.o.Now().Add(FileLinkTTL).UTC()})
	return nil
}

// FileKey is the file key a download link points at: its path from
// "teachers/" on, whichever store signed it (S3 path or host style, the
// local file server's /files/).
func FileKey(link string) (string, bool) {
	u, err := url.Parse(link)
	if err != nil {
		return "", false
	}
	i := strings.Index(u.Path, "/teachers/")
	if i < 0 {
		return "", false
	}
	key := u.Path[i+1:]
	return key, blob.ValidateKey(key) == nil
}

// resignFiles signs again the link of every data-file-ready part of msg
// that points at one of the teacher's files. A link that cannot be signed
// again is left as it was: the message still shows, and the route tells
// the client why when it asks.
func (s *Server) resignFiles(ctx context.Context, teacherID string, msg *protocol.UIMessage) {
	if s.o.Files == nil {
		return
	}
	for i, p := range msg.Parts {
		if p.Type != "data-"+protocol.DataFileReady {
			continue
		}
		var data map[string]any
		if json.Unmarshal(p.Data, &data) != nil {
			continue
		}
		old, _ := data["url"].(string)
		key, ok := FileKey(old)
		if !ok || !blob.OwnedBy(key, teacherID) {
			continue
		}
		link, err := s.o.Files.URL(ctx, key, FileLinkTTL)
		if err != nil {
			s.o.Logger.WarnContext(ctx, "could not sign a file link again", "key", key, "err", err)
			continue
		}
		data["url"] = link
		if b, err := json.Marshal(data); err == nil {
			msg.Parts[i].Data = b
		}
	}
}
