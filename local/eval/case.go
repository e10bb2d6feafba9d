// Package eval runs a suite of conversation cases against the product over
// its stream endpoint, judges each turn from the stream alone (what the
// frontend sees), and summarises the figures of seed 000 §6 and §7.8 per
// scene: success, false promises, tool success, validate retries, clarify
// rounds, latency, tokens. It also compares a run with a baseline under the
// seed's acceptance rules, writes JSON and HTML reports, and checks the models
// of each tier's fallback chain for what the product needs from them.
//
// It lives under local/ because it reads the model's words with heuristics
// (what counts as claiming an artifact), which the product itself never does.
package eval

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
)

// Scenes, in report order. The chat modes (issue 12) add theirs as rows.
var Scenes = []string{
	"quiz", "ppt", "document", "pdf", "interactive", "data", "knowledge",
	"smalltalk", "clarify", "build", "cross-scene",
}

// Paths a turn can take, as the stream shows them.
const (
	PathAnswer   = "answer"   // an agent or chat round answered in text
	PathArtifact = "artifact" // an artifact event (quiz, file, outline, page) arrived
	PathClarify  = "clarify"  // a data-clarify part asked the teacher back
	PathBuild    = "build"    // the build path's notice (no agent round)
	PathError    = "error"    // an error chunk closed the turn
)

// Modes of seed 003 / issue 12; empty means the product's default.
var Modes = []string{"", "natural", "free", "strict"}

// Case is one conversation of one or more turns.
type Case struct {
	ID    string `json:"id"`
	Scene string `json:"scene"`
	// Language is "zh" or "en": the teacher's language, sent as the request's language.
	Language string `json:"language"`
	// Mode is the chat mode sent with each turn (natural, free, strict); empty: the default.
	Mode string `json:"mode,omitempty"`
	// Intent is the router intent the case is about (documentation: the stream does not show it).
	Intent string `json:"intent,omitempty"`
	// Tags group cases across scenes in the report: adversarial, misbehaviour, multi-turn, …
	Tags  []string `json:"tags,omitempty"`
	Turns []Turn   `json:"turns"`
}

// Turn is one message of the teacher and what its answer must show.
type Turn struct {
	Message string `json:"message"`
	Expect  Expect `json:"expect"`
}

// Expect is what a turn's stream must show.
type Expect struct {
	// Path is one of answer, artifact, clarify, build, error; "" accepts any but error.
	Path string `json:"path,omitempty"`
	// Parts are data parts (without "data-") that must appear, e.g. quiz-complete, file-ready.
	Parts []string `json:"parts,omitempty"`
	// NoParts are data parts that must not appear.
	NoParts []string `json:"noParts,omitempty"`
	// Files are files that must be announced (file-ready or interactive-content) and must open.
	Files []FileExpect `json:"files,omitempty"`
	// QuizCount is the number of quiz questions expected (0: any).
	QuizCount int `json:"quizCount,omitempty"`
	// Text: each string must appear in the final text (case-insensitive).
	Text []string `json:"text,omitempty"`
	// AnyText: at least one must appear in the final text (case-insensitive).
	AnyText []string `json:"anyText,omitempty"`
	// NotText: none may appear in the final text (case-insensitive): what must not be claimed or leaked.
	NotText []string `json:"notText,omitempty"`
}

// FileExpect is a file a turn must produce.
type FileExpect struct {
	// Type is pptx, docx, pdf or html; zip, xlsx, xml or txt for a quiz
	// export (issue 31).
	Type string `json:"type"`
	// Mention: at least one must appear in the file's text (case-insensitive).
	Mention []string `json:"mention,omitempty"`
}

//go:embed cases/*.json
var builtin embed.FS

// Builtin returns the built-in suite.
func Builtin() ([]Case, error) {
	return loadFS(builtin, "cases")
}

// LoadFile reads cases from a JSON or YAML file (.yaml, .yml: the same
// fields) holding an array of cases or {"cases": [...]}, or from every
// *.json, *.yaml and *.yml file of a directory.
func LoadFile(name string) ([]Case, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("eval: cases: %w", err)
	}
	if st.IsDir() {
		return loadFS(os.DirFS(name), ".")
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("eval: cases: %w", err)
	}
	cs, err := parseNamed(name, b)
	if err != nil {
		return nil, fmt.Errorf("eval: %s: %w", name, err)
	}
	return cs, Validate(cs)
}

// parseNamed parses b as YAML when name says so, else as JSON.
func parseNamed(name string, b []byte) ([]Case, error) {
	if ext := path.Ext(name); ext == ".yaml" || ext == ".yml" {
		j, err := yaml.YAMLToJSON(b)
		if err != nil {
			return nil, fmt.Errorf("not YAML: %w", err)
		}
		b = j
	}
	return Parse(b)
}

func loadFS(fsys fs.FS, dir string) ([]Case, error) {
	var names []string
	for _, pat := range []string{"*.json", "*.yaml", "*.yml"} {
		n, err := fs.Glob(fsys, path.Join(dir, pat))
		if err != nil {
			return nil, err
		}
		names = append(names, n...)
	}
	slices.Sort(names)
	var all []Case
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		cs, err := parseNamed(n, b)
		if err != nil {
			return nil, fmt.Errorf("eval: %s: %w", n, err)
		}
		all = append(all, cs...)
	}
	return all, Validate(all)
}

// Parse decodes a case file; unknown fields are errors (a typo must not
// silently drop an expectation).
func Parse(b []byte) ([]Case, error) {
	trim := strings.TrimSpace(string(b))
	var cs []Case
	if strings.HasPrefix(trim, "{") {
		var f struct {
			Cases []Case `json:"cases"`
		}
		if err := strictJSON(b, &f); err != nil {
			return nil, err
		}
		cs = f.Cases
	} else if err := strictJSON(b, &cs); err != nil {
		return nil, err
	}
	return cs, nil
}

func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// Validate checks every case and reports all problems at once.
func Validate(cs []Case) error {
	var errs []error
	seen := map[string]bool{}
	paths := []string{"", PathAnswer, PathArtifact, PathClarify, PathBuild, PathError}
	for i, c := range cs {
		where := fmt.Sprintf("case %d (%s)", i+1, c.ID)
		bad := func(f string, a ...any) { errs = append(errs, fmt.Errorf("%s: %s", where, fmt.Sprintf(f, a...))) }
		switch {
		case c.ID == "":
			bad("id is required")
		case seen[c.ID]:
			bad("duplicate id")
		}
		seen[c.ID] = true
		if c.Scene == "" {
			bad("scene is required (one of %s, or your own)", strings.Join(Scenes, ", "))
		}
		if c.Language != "zh" && c.Language != "en" {
			bad("language %q: want zh or en", c.Language)
		}
		if !slices.Contains(Modes, c.Mode) {
			bad("mode %q: want natural, free or strict", c.Mode)
		}
		if len(c.Turns) == 0 {
			bad("at least one turn is required")
		}
		for j, t := range c.Turns {
			if strings.TrimSpace(t.Message) == "" {
				bad("turn %d: message is required", j+1)
			}
			if !slices.Contains(paths, t.Expect.Path) {
				bad("turn %d: path %q: want answer, artifact, clarify, build or error", j+1, t.Expect.Path)
			}
			for _, f := range t.Expect.Files {
				if !slices.Contains([]string{"pptx", "docx", "pdf", "html", "zip", "xlsx", "xml", "txt"}, f.Type) {
					bad("turn %d: file type %q: want pptx, docx, pdf, html, zip, xlsx, xml or txt", j+1, f.Type)
				}
			}
		}
	}
	return errors.Join(errs...)
}
