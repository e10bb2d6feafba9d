package blob

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// FSConfig configures a file-system store.
type FSConfig struct {
	// Dir holds the files; it is created if missing.
	Dir string
	// BaseURL is the scheme and host URLs start with, such as
	// "http://127.0.0.1:8080" (no trailing slash needed).
	BaseURL string
	// Prefix is the path the Handler is mounted at; default "/files/".
	Prefix string
	// Secret signs URLs; at least 16 bytes.
	Secret []byte
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Logger receives handler errors; default discards.
	Logger *slog.Logger
}

// FS is a Store in a directory. Objects are files under Dir/objects/<key>;
// their content types are in Dir/meta/<sha256 of key>.json. All file access
// goes through an os.Root, so no key, however crafted, reaches outside Dir.
type FS struct {
	root    *os.Root
	baseURL string
	prefix  string
	secret  []byte
	now     func() time.Time
	log     *slog.Logger
}

type fsMeta struct {
	ContentType string `json:"contentType"`
}

// NewFS opens (creating if needed) the store in cfg.Dir.
func NewFS(cfg FSConfig) (*FS, error) {
	if cfg.Dir == "" {
		return nil, errors.New("blob: FSConfig.Dir is empty")
	}
	if len(cfg.Secret) < 16 {
		return nil, errors.New("blob: FSConfig.Secret must be at least 16 bytes")
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "/files/"
	}
	if !strings.HasPrefix(cfg.Prefix, "/") || !strings.HasSuffix(cfg.Prefix, "/") {
		return nil, fmt.Errorf("blob: FSConfig.Prefix %q must start and end with /", cfg.Prefix)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(cfg.Dir, 0o750); err != nil {
		return nil, fmt.Errorf("blob: create %s: %w", cfg.Dir, err)
	}
	root, err := os.OpenRoot(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("blob: open %s: %w", cfg.Dir, err)
	}
	for _, d := range []string{"objects", "meta"} {
		if err := root.MkdirAll(d, 0o750); err != nil {
			root.Close()
			return nil, fmt.Errorf("blob: create %s/%s: %w", cfg.Dir, d, err)
		}
	}
	return &FS{
		root: root, baseURL: strings.TrimSuffix(cfg.BaseURL, "/"), prefix: cfg.Prefix,
		secret: cfg.Secret, now: cfg.Now, log: cfg.Logger,
	}, nil
}

// Close releases the directory.
func (s *FS) Close() error { return s.root.Close() }

func objectPath(key string) string { return "objects/" + key }

func metaPath(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "meta/" + hex.EncodeToString(sum[:]) + ".json"
}

// Put implements Store. The body is written to a temporary file and
// renamed into place, so a reader never sees half a file.
func (s *FS) Put(ctx context.Context, key, contentType string, body []byte) (Object, error) {
	if err := ValidateKey(key); err != nil {
		return Object{}, err
	}
	if err := ctx.Err(); err != nil {
		return Object{}, err
	}
	meta, err := json.Marshal(fsMeta{ContentType: contentType})
	if err != nil {
		return Object{}, fmt.Errorf("blob: encode meta: %w", err)
	}
	// The meta file goes first: an object file implies its meta.
	if err := s.writeAtomic(metaPath(key), meta); err != nil {
		return Object{}, err
	}
	if err := s.root.MkdirAll(path.Dir(objectPath(key)), 0o750); err != nil {
		return Object{}, fmt.Errorf("blob: put %s: %w", key, err)
	}
	if err := s.writeAtomic(objectPath(key), body); err != nil {
		return Object{}, err
	}
	return Object{Key: key, ContentType: contentType, Size: int64(len(body))}, nil
}

func (s *FS) writeAtomic(name string, data []byte) error {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:]) // crypto/rand.Read never fails
	tmp := name + ".tmp-" + hex.EncodeToString(rnd[:])
	if err := s.root.WriteFile(tmp, data, 0o640); err != nil {
		return fmt.Errorf("blob: write %s: %w", name, err)
	}
	if err := s.root.Rename(tmp, name); err != nil {
		_ = s.root.Remove(tmp)
		return fmt.Errorf("blob: rename %s: %w", name, err)
	}
	return nil
}

// Head implements Store.
func (s *FS) Head(ctx context.Context, key string) (Object, error) {
	if err := ValidateKey(key); err != nil {
		return Object{}, err
	}
	fi, err := s.root.Stat(objectPath(key))
	if err != nil {
		return Object{}, s.notFound(key, err)
	}
	if !fi.Mode().IsRegular() {
		return Object{}, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return s.object(key, fi.Size())
}

func (s *FS) object(key string, size int64) (Object, error) {
	raw, err := s.root.ReadFile(metaPath(key))
	if err != nil {
		return Object{}, fmt.Errorf("blob: read meta of %s: %w", key, err)
	}
	var m fsMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		return Object{}, fmt.Errorf("blob: decode meta of %s: %w", key, err)
	}
	return Object{Key: key, ContentType: m.ContentType, Size: size}, nil
}

func (s *FS) notFound(key string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	if errors.Is(err, syscall.ENOTDIR) { // a segment of the key is a file
		return fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return fmt.Errorf("blob: %s: %w", key, err)
}

// Get implements Store; the reader is an *os.File (an io.ReadSeeker).
func (s *FS) Get(ctx context.Context, key string) (io.ReadCloser, Object, error) {
	f, obj, err := s.open(key)
	if err != nil {
		return nil, Object{}, err
	}
	return f, obj, nil
}

func (s *FS) open(key string) (*os.File, Object, error) {
	if err := ValidateKey(key); err != nil {
		return nil, Object{}, err
	}
	f, err := s.root.Open(objectPath(key))
	if err != nil {
		return nil, Object{}, s.notFound(key, err)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, Object{}, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	obj, err := s.object(key, fi.Size())
	if err != nil {
		f.Close()
		return nil, Object{}, err
	}
	return f, obj, nil
}

// Delete implements Store: the object file first (a link then finds
// nothing), then its meta.
func (s *FS) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	fi, err := s.root.Stat(objectPath(key))
	if err != nil {
		if err = s.notFound(key, err); errors.Is(err, ErrNotFound) {
			return nil
		}
		return fmt.Errorf("blob: delete: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil // a folder of other keys, not an object
	}
	if err := s.root.Remove(objectPath(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blob: delete %s: %w", key, err)
	}
	if err := s.root.Remove(metaPath(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blob: delete meta of %s: %w", key, err)
	}
	return nil
}

// URL implements Store: BaseURL + Prefix + key, with the expiry time and an
// HMAC-SHA256 of key and expiry.
func (s *FS) URL(ctx context.Context, key string, ttl time.Duration) (string, error) {
	if _, err := s.Head(ctx, key); err != nil {
		return "", err
	}
	if ttl <= 0 {
		return "", fmt.Errorf("blob: URL ttl %v is not positive", ttl)
	}
	exp := strconv.FormatInt(s.now().Add(ttl).Unix(), 10)
	return s.baseURL + s.prefix + escapeKey(key) + "?exp=" + exp + "&sig=" + s.sign(key, exp), nil
}

func (s *FS) sign(key, exp string) string {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte(key + "|" + exp))
	return hex.EncodeToString(m.Sum(nil))
}

// verify checks a URL's expiry and signature.
func (s *FS) verify(key, exp, sig string) error {
	if exp == "" || sig == "" {
		return errors.New("the link is not signed")
	}
	unix, err := strconv.ParseInt(exp, 10, 64)
	if err != nil {
		return errors.New("the link is not signed")
	}
	want, err := hex.DecodeString(sig)
	if err != nil || !hmac.Equal(want, mustHex(s.sign(key, exp))) {
		return errors.New("the link's signature is not valid")
	}
	if !s.now().Before(time.Unix(unix, 0)) {
		return errors.New("the link has expired")
	}
	return nil
}

func mustHex(s string) []byte {
	b, _ := hex.DecodeString(s) // s comes from hex.EncodeToString
	return b
}
