package layers

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocsNameTheLayers: docs/architecture.md's "Layers" table has a row
// per layer, in Layers' order, whose packages column names (in backticks,
// `a/{b,c}` for a/b and a/c, `functions/*` for functions) exactly the
// layer's packages.
func TestDocsNameTheLayers(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := layersTable(string(doc))
	var names []string
	for _, r := range rows {
		names = append(names, r.name)
	}
	var want []string
	for _, l := range Layers {
		want = append(want, l.Name)
	}
	if !slices.Equal(names, want) {
		t.Fatalf("the Layers table's rows are %v, want %v (test/layers/layers.go)", names, want)
	}
	for i, r := range rows {
		got, want := slices.Sorted(slices.Values(r.packages)), slices.Sorted(slices.Values(Layers[i].Packages))
		if !slices.Equal(got, want) {
			t.Errorf("layer %s: the docs name %v, test/layers/layers.go %v", r.name, got, want)
		}
	}
}

type docRow struct {
	name     string
	packages []string
}

var backticked = regexp.MustCompile("`([^`]+)`")

// layersTable reads the table under "## Layers" (its first two columns).
func layersTable(doc string) []docRow {
	_, section, _ := strings.Cut(doc, "\n## Layers\n")
	section, _, _ = strings.Cut(section, "\n## ")
	var rows []docRow
	for line := range strings.Lines(section) {
		cells := strings.Split(strings.TrimSpace(line), "|")
		if len(cells) < 4 || cells[0] != "" {
			continue
		}
		name := strings.TrimSpace(cells[1])
		if name == "layer" || strings.Trim(name, "- ") == "" {
			continue
		}
		r := docRow{name: name}
		for _, m := range backticked.FindAllStringSubmatch(cells[2], -1) {
			r.packages = append(r.packages, expand(strings.TrimSuffix(m[1], "/*"))...)
		}
		rows = append(rows, r)
	}
	return rows
}

// expand turns "a/{b,c}" into a/b and a/c.
func expand(p string) []string {
	head, rest, ok := strings.Cut(p, "{")
	if !ok {
		return []string{p}
	}
	alts, tail, _ := strings.Cut(rest, "}")
	var out []string
	for _, a := range strings.Split(alts, ",") {
		out = append(out, head+a+tail)
	}
	return out
}
