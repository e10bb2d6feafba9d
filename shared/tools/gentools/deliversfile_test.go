package gentools_test

import (
	"testing"

	"github.com/insightedge/insightedge/shared/tools"
	"github.com/insightedge/insightedge/shared/tools/gentools"
)

// TestDeliversFile: the tools that render a file (a deck, a document, a
// PDF, an exported quiz) are the ones the conversation workflow runs on the
// file tool function; the others, which wait on the model, run on the
// small tool function (issue 25).
func TestDeliversFile(t *testing.T) {
	reg := tools.NewRegistry(gentools.New(gentools.Deps{Quizzes: gentools.QuizLog{}})...)
	for name, want := range map[string]bool{
		gentools.ProposePptxOutline:        false,
		gentools.GeneratePptx:              true,
		gentools.GenerateDocx:              true,
		gentools.RenderPDF:                 true,
		gentools.ExportQuiz:                true,
		gentools.RequestInteractiveContent: false,
		gentools.GenerateInteractiveHTML:   false,
		"not_a_tool":                       false,
	} {
		if got := reg.DeliversFile(name); got != want {
			t.Errorf("DeliversFile(%s) = %v, want %v", name, got, want)
		}
	}
}
