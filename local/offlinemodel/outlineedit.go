package offlinemodel

import (
	"slices"
	"strings"
)

// Changes to a proposed outline before it is confirmed ("再加一页关于呼吸作用
// 的对比", "去掉第 3 页", "add a slide on respiration"): the outline is
// proposed again with the change, and a later "可以" builds that one.

// revisedOutline is the last turn's outline with the change the message
// asks for; ok is false when there is no outline or no change it reads.
func revisedOutline(c *call) (outlineArgs, bool) {
	o, ok := pendingOutline(c.history)
	if !ok {
		return outlineArgs{}, false
	}
	s := strings.TrimSpace(teacherWords(c.user))
	if m := submatch(`(?:去掉|删除|删掉|不要)\s*第\s*`+numeral+`\s*页|(?i)\b(?:remove|drop|delete)\s+slide\s+(\d+)`, s); m != nil {
		n, ok := numberWord(m[1] + m[2])
		if !ok || n < 1 || n > len(o.Slides) {
			return outlineArgs{}, false
		}
		o.Slides = slices.Delete(slices.Clone(o.Slides), n-1, n)
		return o, true
	}
	m := submatch(`(?:再|另外)?(?:加|添加|增加|补充|补)\s*(?:一|1)?\s*页\s*(?:关于|讲|介绍)?\s*([^，。！？,.!?]+)|(?i)\badd\s+(?:a|one|another)?\s*slide\s+(?:on|about|for)\s+([^.!?,;]+)`, s)
	if m == nil {
		return outlineArgs{}, false
	}
	title := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(m[1]+m[2]), "的"))
	if title == "" {
		return outlineArgs{}, false
	}
	// The new slide goes before the closing one (summary and practice).
	at := max(0, len(o.Slides)-1)
	o.Slides = slices.Insert(slices.Clone(o.Slides), at, slideArg{Title: headline(title), Bullets: []string{title}})
	return o, true
}
