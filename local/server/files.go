package server

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/office/pdf"
	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/tools/gentools"
	"github.com/insightedge/insightedge/shared/wire"
)

// startFiles opens the file store (a directory under the data dir, served at
// /files/ with signed, expiring URLs) and returns the generation tools.
func (s *Server) startFiles(o Options, env *envOverlay) ([]tools.Tool, error) {
	secret, err := filesSecret(env.get("FILES_SECRET"), o.DataDir)
	if err != nil {
		return nil, err
	}
	base, err := publicBaseURL(env.get("PUBLIC_BASE_URL"))
	if err != nil {
		return nil, err
	}
	s.Files, err = blob.NewFS(blob.FSConfig{Dir: filepath.Join(o.DataDir, "files"), BaseURL: base, Secret: secret, Logger: o.Logger})
	if err != nil {
		return nil, fmt.Errorf("local: file store: %w", err)
	}
	s.closers = append(s.closers, func(context.Context) error { return s.Files.Close() })
	var paths []string
	if p := env.get("PDF_FONT_PATH"); p != "" {
		paths = strings.Split(p, ":")
	}
	var renderer gentools.PDFRenderer
	// Open finds the fonts; their 15 MB are read on the first PDF, not at start-up.
	if w, err := pdf.Open(paths...); err != nil {
		o.Logger.Warn("PDF output unavailable: render_pdf will offer a .docx instead", "err", err)
	} else {
		renderer, s.pdf = w, w
	}
	ttl, err := wire.FileLinkTTLFromEnv(env.get)
	if err != nil {
		return nil, err
	}
	// issue 31: export_quiz and /api/quiz/export read the quizzes the
	// conversation's turns streamed.
	deps := gentools.Deps{Blob: s.Files, PDF: renderer, Logger: o.Logger, URLTTL: ttl,
		Quizzes: gentools.QuizLog{Turns: s.DB.Sessions(), Log: s.DB.Events()}}
	s.quizExport = gentools.NewQuizExporter(deps)
	return gentools.New(deps), nil
}

// publicBaseURL is where the browser reaches this server, from
// PUBLIC_BASE_URL: the links to generated files and interactive pages
// start with it. Unset, links are relative ("/files/…"), so that they
// work on whatever origin serves the page, a frontend's proxy included.
// The server's own listening address is never used: behind a proxy or on
// another origin it is not where the browser is.
func publicBaseURL(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("PUBLIC_BASE_URL=%q: want an http(s) URL such as https://school.example or https://school.example/ai", v)
	}
	return strings.TrimSuffix(v, "/"), nil
}

// filesSecret is FILES_SECRET, or a random secret kept in the data dir so
// that download links survive a restart.
func filesSecret(fromEnv, dataDir string) ([]byte, error) {
	if fromEnv != "" {
		if len(fromEnv) < 16 {
			return nil, errors.New("FILES_SECRET must have at least 16 characters")
		}
		return []byte(fromEnv), nil
	}
	path := filepath.Join(dataDir, "files.secret")
	b, err := os.ReadFile(path)
	if err == nil && len(b) >= 32 {
		return b, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("local: read %s: %w", path, err)
	}
	b = make([]byte, 32)
	_, _ = rand.Read(b)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return nil, fmt.Errorf("local: write %s: %w", path, err)
	}
	return b, nil
}
