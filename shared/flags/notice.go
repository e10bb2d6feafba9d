package flags

import (
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/protocol"
)

// pausedMsgs are the notices of the paused capabilities.
var pausedMsgs = map[Capability]i18n.Msg{
	Tools:           i18n.PausedTools,
	PageBuilds:      i18n.PausedPageBuilds,
	Research:        i18n.PausedResearch,
	TemplateReports: i18n.PausedTemplateReports,
	FileGeneration:  i18n.PausedFileGeneration,
}

// Notice is the data-notice of paused c (CAPABILITY_PAUSED), in l.
func Notice(c Capability, l i18n.Lang) protocol.Notice {
	return protocol.Notice{Code: protocol.NoticePaused, Message: l.Text(pausedMsgs[c])}
}
