package offlinemodel

import (
	"encoding/json"
	"slices"
	"strings"
)

// A call's arguments are built from the schema the request gives its tool,
// the way a model writes them from what it is shown: the scenario scripts
// only the values that matter to the teacher, the schema decides the rest.

// schema is as much of a JSON schema as filling arguments needs.
type schema struct {
	Type       json.RawMessage    `json:"type"`
	Properties map[string]*schema `json:"properties"`
	Required   []string           `json:"required"`
	Items      *schema            `json:"items"`
	Enum       []any              `json:"enum"`
	Minimum    *float64           `json:"minimum"`
}

func (s *schema) typ() string {
	if s == nil {
		return ""
	}
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		return one
	}
	var many []string
	if json.Unmarshal(s.Type, &many) == nil {
		for _, t := range many {
			if t != "null" {
				return t
			}
		}
	}
	if s.Properties != nil {
		return "object"
	}
	return ""
}

// keep drops the arguments the schema does not declare, when it declares
// any, so that a strict tool never sees an unknown field.
func (s *schema) keep(args map[string]any) map[string]any {
	if args == nil {
		args = map[string]any{}
	}
	if s == nil || len(s.Properties) == 0 {
		return args
	}
	for k := range args {
		if _, ok := s.Properties[k]; !ok {
			delete(args, k)
		}
	}
	return args
}

// allows reports whether v is one of the schema's enum values (any value
// when it has none).
func (s *schema) allows(v any) bool {
	if s == nil || len(s.Enum) == 0 {
		return true
	}
	return slices.ContainsFunc(s.Enum, func(e any) bool { return mustJSON(e) == mustJSON(v) })
}

// argsFor is the arguments of a call of the request's tool name: the
// scripted values its schema declares (an enum's value kept only when the
// enum has it), and for each property the script leaves out, the hint
// named like it (case and underscores ignored) or, when the schema requires
// it, a plain value of its type. hints nil: the request's (argHints).
func (c *call) argsFor(name string, scripted, hints map[string]any) map[string]any {
	s := c.tools[name]
	args := s.keep(scripted)
	if s == nil {
		return args
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		p := s.Properties[k]
		if v, ok := args[k]; ok && p.allows(v) {
			continue
		}
		if hints == nil {
			hints = c.argHints()
		}
		_, hinted := hints[hintKey(k)]
		required := slices.Contains(s.Required, k)
		if !hinted && !required {
			delete(args, k)
			continue
		}
		if v := fillValue(k, p, hints, 0); v != nil && (v != "" || required) {
			args[k] = v
		}
	}
	return args
}

// toolCall is a reply that calls the request's tool name with arguments
// from its schema (argsFor).
func (c *call) toolCall(name string, scripted map[string]any) reply {
	return callReply(name, mustJSON(c.argsFor(name, scripted, nil)))
}

func hintKey(name string) string { return strings.ToLower(strings.ReplaceAll(name, "_", "")) }

// fillValue is a value for a property: the hint named like it, an enum's
// first value, or a plain value of its type. Depth is bounded, so a
// recursive schema cannot loop.
func fillValue(name string, s *schema, hints map[string]any, depth int) any {
	hint, hasHint := hints[hintKey(name)]
	if s != nil && len(s.Enum) > 0 {
		if hasHint && s.allows(hint) {
			return hint
		}
		return s.Enum[0]
	}
	switch s.typ() {
	case "string", "":
		if str, ok := hint.(string); ok && hasHint {
			return str
		}
		return ""
	case "integer", "number":
		if n, ok := hint.(int); ok && hasHint {
			return n
		}
		if s.Minimum != nil {
			return *s.Minimum
		}
		return 1
	case "boolean":
		return false
	case "array":
		if depth > 3 {
			return []any{}
		}
		item := fillValue(strings.TrimSuffix(name, "s"), s.Items, hints, depth+1)
		if item == nil || item == "" {
			return []any{}
		}
		return []any{item}
	case "object":
		if depth > 3 {
			return map[string]any{}
		}
		obj := map[string]any{}
		for k, p := range s.Properties {
			if v := fillValue(k, p, hints, depth+1); v != nil && v != "" {
				obj[k] = v
			}
		}
		return obj
	}
	return nil
}

// argHints are values for arguments named like these, used to fill the
// schema of a tool no scenario knows.
func (c *call) argHints() map[string]any {
	topic := topicOf(c.lang, c.user)
	if topic == "" {
		topic = c.user
	}
	n := questionCount(c.user)
	if n == 0 {
		n = 5
	}
	return map[string]any{
		"topic": topic, "title": topic, "subject": subjectOf(c.lang, c.user), "grade": gradeMention(c.user),
		"language": c.lang.code(), "classid": classMention(c.user), "query": c.user, "prompt": c.user,
		"request": c.user, "description": c.user, "requirements": c.user, "instructions": c.user,
		"content": c.user, "count": n, "slidecount": 8, "numslides": 8, "difficulty": difficulty(c.user),
		"questiontype": questionType(c.user),
	}
}
