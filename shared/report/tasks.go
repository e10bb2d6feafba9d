package report

// UserTask is a task as the user or the planner submits it (seed 002, "参考文件型
// 任务"): the leaf's position and what to read.
type UserTask struct {
	ID             int      `json:"id"`
	RequiredInputs []string `json:"required_inputs,omitempty"`
	Hints          []string `json:"hints,omitempty"`
	Notes          string   `json:"notes,omitempty"`
}

// SectionTask is the full task a solver runs: the user's task filled from the
// template leaf it names.
type SectionTask struct {
	ID             int      `json:"id"`
	Title          string   `json:"title"`
	Objective      string   `json:"objective"`
	Template       string   `json:"template"`
	RequiredInputs []string `json:"required_inputs,omitempty"`
	Hints          []string `json:"hints,omitempty"`
	Notes          string   `json:"notes,omitempty"`
}

// Section is a solver's output.
type Section struct {
	ID      int    `json:"id"`
	Title   string `json:"title"`
	Content string `json:"content"`
	// Tables are the Markdown tables of Content, parsed (issue 30).
	Tables []Table `json:"tables,omitempty"`
}

// Table is a table a solver wrote in its section: the header row's cells
// and each body row's cells, as plain text.
type Table struct {
	Headers []string   `json:"headers"`
	Rows    [][]string `json:"rows"`
}

// Report is the aggregated report.
type Report struct {
	Content string `json:"content"`
	VFSPath string `json:"vfs_path,omitempty"`
	Path    string `json:"path,omitempty"`
	// Files are download links of the report in other formats (beyond the
	// seed): {"docx": url, "pdf": url}.
	Files map[string]string `json:"files,omitempty"`
}

// Output is aggregate.completed's content.output.
type Output struct {
	Sections []Section `json:"sections"`
	Report   Report    `json:"report"`
}

// ReportPath is where the aggregator writes the report in the session's VFS.
const ReportPath = "reports/generated_report.md"
