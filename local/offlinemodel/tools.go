package offlinemodel

import (
	"github.com/insightedge/insightedge/shared/prompts"
	"github.com/insightedge/insightedge/shared/report/vfs"
	"github.com/insightedge/insightedge/shared/tools/datatools"
	"github.com/insightedge/insightedge/shared/tools/gentools"
	"github.com/insightedge/insightedge/shared/tools/quiz"
)

// The tools the scenarios call, by the names the product gives them: a new
// tool is named once, in its own package. A scenario calls a tool only when
// the request offers it (call.offers) and builds the arguments from the
// schema the request carries (call.argsFor): the script writes only what
// matters to the teacher (a topic, the questions, the slides).
const (
	finalResultTool = prompts.FinalResultTool
	toolGuide       = prompts.GuideUserTool

	toolClasses     = datatools.GetTeacherClasses
	toolClassDetail = datatools.GetClassDetail
	toolSubmissions = datatools.GetAssignmentSubmissions
	toolWeakness    = datatools.AnalyzeStudentWeakness
	toolDocuments   = datatools.SearchTeacherDocuments
	toolRubrics     = datatools.ListAvailableRubrics

	toolQuiz        = quiz.Name
	toolOutline     = gentools.ProposePptxOutline
	toolPptx        = gentools.GeneratePptx
	toolDocx        = gentools.GenerateDocx
	toolPDF         = gentools.RenderPDF
	toolInteractive = gentools.RequestInteractiveContent
	toolHTML        = gentools.GenerateInteractiveHTML

	toolListDir   = vfs.ToolListDir
	toolReadFile  = vfs.ToolReadFile
	toolSplitTree = vfs.ToolSplitTree
)
