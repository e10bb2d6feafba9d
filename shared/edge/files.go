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

// FileSigner signs download links to the generated files and deletes
// them (blob.Store is one).
//
// A link is a capability: whoever holds it downloads the file, without an
// identity, until it expires (an HMAC-signed /files/ URL locally, an S3
// presigned URL in AWS). So links are short-lived (Options.FileLinkTTL)
// and signed again when they are shown: by /messages for a reloaded
// conversation, and by GET /api/files/{key...} for a page that stayed open
// (in AWS a presigned URL also dies with the role's credentials that signed
// it). The owner revokes every link to a file with DELETE
// /api/files/{key...}, which deletes the file: neither store can take back
// a signature it gave, so the file itself goes (docs/reliability.md).
type FileSigner interface {
	Head(ctx context.Context, key string) (blob.Object, error)
	URL(ctx context.Context, key string, ttl time.Duration) (string, error)
	Delete(ctx context.Context, key string) error
}

// DefaultFileLinkTTL is how long a download link stays valid unless
// FILE_LINK_TTL says otherwise (at most; in AWS the credentials that sign
// it may end sooner, and the route signs anew).
const DefaultFileLinkTTL = 15 * time.Minute

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
	key, obj, err := s.ownFile(r)
	if err != nil {
		return err
	}
	now := s.o.Now()
	link, err := s.o.Files.URL(r.Context(), key, s.o.FileLinkTTL)
	if err != nil {
		return apperr.Wrap(err, apperr.ServiceUnavailable, "could not sign a link")
	}
	writeJSON(w, http.StatusOK, FileLink{Key: key, Filename: obj.Filename(), URL: link, ExpiresAt: now.Add(s.o.FileLinkTTL).UTC()})
	return nil
}

// handleFileRevoke is DELETE /api/files/{key...}: the owner revokes every
// link to one of their files by deleting it (204). Afterwards the links,
// old and new, and this route answer 404. Another teacher's file is not
// found, and stays.
func (s *Server) handleFileRevoke(w http.ResponseWriter, r *http.Request) error {
	key, _, err := s.ownFile(r)
	if err != nil {
		return err
	}
	if err := s.o.Files.Delete(r.Context(), key); err != nil {
		return apperr.Wrap(err, apperr.ServiceUnavailable, "could not delete the file")
	}
	s.rl.Logger.InfoContext(r.Context(), "file revoked", "key", key)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// ownFile authenticates the request and finds the file its path names
// among the teacher's own; anything else is 404.
func (s *Server) ownFile(r *http.Request) (string, blob.Object, error) {
	id, err := s.auth.Authenticate(r)
	if err != nil {
		return "", blob.Object{}, err
	}
	key := r.PathValue("key")
	if s.o.Files == nil || blob.ValidateKey(key) != nil || !blob.OwnedBy(key, id.TeacherID) {
		return "", blob.Object{}, apperr.New(apperr.EntityNotFound, "no file %s", key)
	}
	obj, err := s.o.Files.Head(r.Context(), key)
	switch {
	case errors.Is(err, blob.ErrNotFound):
		return "", blob.Object{}, apperr.New(apperr.EntityNotFound, "no file %s", key)
	case err != nil:
		return "", blob.Object{}, apperr.Wrap(err, apperr.ServiceUnavailable, "file store unavailable")
	}
	return key, obj, nil
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
		link, err := s.o.Files.URL(ctx, key, s.o.FileLinkTTL)
		if err != nil {
			s.rl.Logger.WarnContext(ctx, "could not sign a file link again", "key", key, "err", err)
			continue
		}
		data["url"] = link
		if b, err := json.Marshal(data); err == nil {
			msg.Parts[i].Data = b
		}
	}
}
