package gentools_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools/gentools"
)

// TestInteractiveDrafts (issue 30): read at every length as the model
// writes them, an interactive tool's arguments show the page planned, then
// each section written, in order, each change once.
func TestInteractiveDrafts(t *testing.T) {
	tests := []struct {
		tool, args string
		want       []protocol.InteractiveProgress
	}{
		{gentools.RequestInteractiveContent,
			`{"title":"Photosynthesis","template":"flashcards","items":[{"front":"Light","back":"energy"},{"front":"Water","back":"split"}]}`,
			[]protocol.InteractiveProgress{{Stage: "planning"}, {Stage: "planning", Title: "Photosynthesis"},
				{Stage: "writing", Title: "Photosynthesis", Section: "Light"}, {Stage: "writing", Title: "Photosynthesis", Section: "Water"}}},
		{gentools.GenerateInteractiveHTML,
			`{"title":"Free fall","html":"<h2>Drop</h2><p>x</p><h3>Measure <b>g</b></h3><script>1</script>"}`,
			[]protocol.InteractiveProgress{{Stage: "planning"}, {Stage: "planning", Title: "Free fall"},
				{Stage: "writing", Title: "Free fall"}, {Stage: "writing", Title: "Free fall", Section: "Drop"},
				{Stage: "writing", Title: "Free fall", Section: "Measure g"}}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			e := newEnv(t, false)
			tool, _ := e.reg.Get(tt.tool)
			if tool.Drafts != protocol.DataInteractiveProgress || tool.NewDrafter == nil {
				t.Fatalf("%s shows no progress: %q", tt.tool, tool.Drafts)
			}
			d := tool.NewDrafter()
			var got []protocol.InteractiveProgress
			for n := 0; n <= len(tt.args); n++ {
				if p, changed := d.Draft(tt.args[:n]); changed {
					got = append(got, p.(protocol.InteractiveProgress))
				}
			}
			if a, b := enc(t, got), enc(t, tt.want); a != b {
				t.Fatalf("drafts\n got %s\nwant %s", a, b)
			}
		})
	}
}

// TestPageShownBuildingBeforeContent: the tool shows the page being built,
// then its content, both under the call's id; a page that fails its
// checks shows neither.
func TestPageShownBuildingBeforeContent(t *testing.T) {
	e := newEnv(t, false)
	if _, err := e.run(gentools.RequestInteractiveContent, "call_b", `{"title":"T","template":"timeline","items":[{"heading":"1","body":"a"}]}`); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, c := range e.chunks {
		types = append(types, c.ChunkType()+"#"+c.(protocol.Data).ID)
	}
	if strings.Join(types, ",") != "data-interactive-progress#call_b,data-interactive-content#call_b" {
		t.Fatalf("chunks %v", types)
	}
	e.chunks = nil
	if _, err := e.run(gentools.RequestInteractiveContent, "call_c", `{"title":"T","template":"matching","items":[{"front":"1","back":"a"}]}`); err == nil || len(e.chunks) != 0 {
		t.Fatalf("a one-pair matching exercise: %v, emitted %d", err, len(e.chunks))
	}
}

func enc(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
