package blueprint

import (
	"encoding/json"
	"slices"

	"github.com/insightedge/insightedge/shared/protocol"
)

// Page is what a build produces and the frontend renders: the blueprint's
// tabs with every block filled with its computed data and written slots.
type Page struct {
	Meta   PageMeta  `json:"meta"`
	Layout string    `json:"layout"`
	Tabs   []PageTab `json:"tabs"`
}

// PageMeta describes the page.
type PageMeta struct {
	PageTitle   string `json:"pageTitle"`
	Summary     string `json:"summary,omitempty"`
	GeneratedAt string `json:"generatedAt"`
	DataSource  string `json:"dataSource,omitempty"`
	BlueprintID string `json:"blueprintId,omitempty"`
	// Notices are what the teacher must know about the page's data (sample
	// data, incomplete records, ungraded work), as the data-notice chunk's
	// payload: {code, message}.
	Notices []protocol.Notice `json:"notices,omitempty"`
}

// PageTab is a tab of the page.
type PageTab struct {
	ID     string      `json:"id"`
	Label  string      `json:"label"`
	Blocks []PageBlock `json:"blocks"`
}

// PageBlock is one rendered block. Which fields are set depends on Type:
// kpi_grid has Data; chart has XAxis and Series; table has Headers and
// Rows; markdown has Content; insight_list and suggestion_list have Content
// (as written) and Items (parsed from it). Caption is the written caption of
// a kpi_grid, chart or table.
type PageBlock struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Title   string `json:"title,omitempty"`
	Variant string `json:"variant,omitempty"`

	Data    []KPIItem  `json:"data,omitempty"`
	XAxis   []string   `json:"xAxis,omitempty"`
	Series  []Series   `json:"series,omitempty"`
	Headers []string   `json:"headers,omitempty"`
	Rows    []Row      `json:"rows,omitempty"`
	Items   []ListItem `json:"items,omitempty"`

	Content string `json:"content,omitempty"`
	Caption string `json:"caption,omitempty"`
}

// KPIItem is one card of a kpi_grid. Value is formatted for display; the
// number itself is in the compute results.
type KPIItem struct {
	Label   string `json:"label"`
	Value   string `json:"value"`
	Status  string `json:"status"` // up, down or neutral
	Subtext string `json:"subtext,omitempty"`
}

// Series is one series of a chart.
type Series struct {
	Name string    `json:"name"`
	Data []float64 `json:"data"`
}

// Row is one row of a table; Cells are strings and numbers.
type Row struct {
	Cells  []any  `json:"cells"`
	Status string `json:"status,omitempty"` // normal, warning, success or error
}

// ListItem is one entry of an insight_list or suggestion_list.
type ListItem struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Priority    string `json:"priority,omitempty"` // high, medium or low
	Category    string `json:"category,omitempty"`
}

// Slot returns the text of the slot key.
func (b *PageBlock) Slot(key string) string {
	switch key {
	case SlotContent:
		return b.Content
	case SlotCaption:
		return b.Caption
	}
	return ""
}

// SetSlot sets the text of the slot key.
func (b *PageBlock) SetSlot(key, text string) {
	switch key {
	case SlotContent:
		b.Content = text
	case SlotCaption:
		b.Caption = text
	}
}

// BlockIDs returns the ids of the page's blocks in page order.
func (p *Page) BlockIDs() []string {
	var ids []string
	for _, t := range p.Tabs {
		for _, b := range t.Blocks {
			ids = append(ids, b.ID)
		}
	}
	return ids
}

// FindBlock returns a pointer to the block with id, or nil.
func (p *Page) FindBlock(id string) *PageBlock {
	for i := range p.Tabs {
		for j := range p.Tabs[i].Blocks {
			if p.Tabs[i].Blocks[j].ID == id {
				return &p.Tabs[i].Blocks[j]
			}
		}
	}
	return nil
}

// SameStructure reports whether page was built from a blueprint with bp's
// tabs and blocks (ids, order and component types): the condition for
// patching it rather than rebuilding it.
func SameStructure(bp Blueprint, page Page) bool {
	if len(bp.UIComposition.Tabs) != len(page.Tabs) {
		return false
	}
	for i, t := range bp.UIComposition.Tabs {
		pt := page.Tabs[i]
		if t.ID != pt.ID || len(t.Blocks) != len(pt.Blocks) {
			return false
		}
		for j, b := range t.Blocks {
			if b.ID != pt.Blocks[j].ID || b.ComponentType != pt.Blocks[j].Type {
				return false
			}
		}
	}
	return true
}

// DataContext is the data of a build: each binding's tool output, by
// binding id (a list of outputs for a forEach binding).
type DataContext map[string]json.RawMessage

// ComputeResults are the results of the compute graph, by node id.
type ComputeResults map[string]json.RawMessage

// Keys returns the keys of a DataContext or ComputeResults, sorted.
func Keys[M ~map[string]json.RawMessage](m M) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
