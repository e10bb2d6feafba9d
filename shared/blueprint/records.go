package blueprint

// The records of a build: the edge (or a replay) writes the request, each
// step writes its result for the next one, and the workflow's payload
// carries only the build's id (the claim-check pattern; Step Functions caps
// a state at 256 KB and a class's data is larger). They live in the session
// store's Records under the build's id.
const (
	RecordRequest = "build/request"
	RecordData    = "build/data"
	RecordCompute = "build/compute"
	RecordPage    = "build/page"
	// RecordFailure is written by the step that ends a build early; Finish
	// turns it into the closing ERROR.
	RecordFailure = "build/failure"
)

// Build modes.
const (
	ModeBuild = "build" // data → compute → compose
	ModePatch = "patch" // compose only, over the client's data and results
)

// Request is what a build runs on.
type Request struct {
	Mode      string    `json:"mode"`
	Blueprint Blueprint `json:"blueprint"`
	// Inputs are the values of the blueprint's inputs (ResolveInputs).
	Inputs map[string]string `json:"inputs"`
	// Context is the client's build context ($context references).
	Context  map[string]any `json:"context,omitempty"`
	Language string         `json:"language,omitempty"`
	// Page, DataContext, ComputeResults and Patch are a patch's: the page
	// to change and what it was built from.
	Page           *Page          `json:"page,omitempty"`
	DataContext    DataContext    `json:"dataContext,omitempty"`
	ComputeResults ComputeResults `json:"computeResults,omitempty"`
	Patch          *PatchPlan     `json:"patch,omitempty"`
}

// Failure is the stored reason a build ended early.
type Failure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}

// ResolvedEntity is an entity the teacher named, as the planner resolved it
// (ConversationResponse.resolvedEntities).
type ResolvedEntity struct {
	EntityType  string `json:"entityType"`
	Mention     string `json:"mention"`
	EntityID    string `json:"entityId"`
	DisplayName string `json:"displayName"`
	// InputID is the blueprint input the entity fills.
	InputID string `json:"inputId,omitempty"`
}
