package blueprint

import (
	"fmt"
	"strings"

	"github.com/insightedge/insightedge/shared/apperr"
)

// Reference kinds of a binding argument.
const (
	RefLiteral = ""        // not a reference
	RefInput   = "input"   // $input.<input id>
	RefContext = "context" // $context.<key>
	RefData    = "data"    // $data.<binding id>[.<path>]
	RefItem    = "item"    // $item[.<path>], inside a forEach binding
)

// Ref is a parsed argument value.
type Ref struct {
	Kind string
	// Name is the input id, context key or binding id (empty for $item).
	Name string
	// Path is the dotted path below it.
	Path []string
	// Literal is the value of a literal.
	Literal string
}

// ParseRef parses an argument value. A value that does not start with "$"
// is a literal; "$$…" is the literal "$…".
func ParseRef(v string) (Ref, error) {
	if !strings.HasPrefix(v, "$") {
		return Ref{Literal: v}, nil
	}
	if strings.HasPrefix(v, "$$") {
		return Ref{Literal: v[1:]}, nil
	}
	head, rest, _ := strings.Cut(v[1:], ".")
	var parts []string
	if rest != "" {
		parts = strings.Split(rest, ".")
	}
	for _, p := range parts {
		if p == "" {
			return Ref{}, fmt.Errorf("reference %q has an empty path segment", v)
		}
	}
	switch head {
	case RefItem:
		return Ref{Kind: RefItem, Path: parts}, nil
	case RefInput, RefContext:
		if len(parts) != 1 {
			return Ref{}, fmt.Errorf("reference %q: want $%s.<name>", v, head)
		}
		return Ref{Kind: head, Name: parts[0]}, nil
	case RefData:
		if len(parts) == 0 {
			return Ref{}, fmt.Errorf("reference %q: want $data.<binding id>[.<path>]", v)
		}
		return Ref{Kind: RefData, Name: parts[0], Path: parts[1:]}, nil
	}
	return Ref{}, fmt.Errorf("reference %q: unknown root $%s (use $input, $context, $data or $item)", v, head)
}

// Lookup follows path through decoded JSON (objects by key, arrays by
// index); ok is false where the path does not exist. A missing path is not
// an error of the blueprint: the data may simply not have it.
func Lookup(v any, path []string) (any, bool) {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			n, ok := x[p]
			if !ok {
				return nil, false
			}
			v = n
		case []any:
			var i int
			if _, err := fmt.Sscanf(p, "%d", &i); err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// ResolveInputs returns the value of every input: the build context's
// value under the input's id (or id+"Id", as in {"classId": …}), else the
// planned Value. A required input without a value is a VALIDATION_ERROR
// naming it, so that the client can ask the teacher to pick one.
func ResolveInputs(bp Blueprint, context map[string]any) (map[string]string, error) {
	out := make(map[string]string, len(bp.DataContract.Inputs))
	var missing []string
	for _, in := range bp.DataContract.Inputs {
		v := strings.TrimSpace(in.Value)
		for _, k := range []string{in.ID, in.ID + "Id"} {
			if s, ok := context[k].(string); ok && strings.TrimSpace(s) != "" {
				v = strings.TrimSpace(s)
				break
			}
		}
		if v == "" && in.Required {
			missing = append(missing, in.ID)
		}
		out[in.ID] = v
	}
	if len(missing) > 0 {
		return nil, apperr.New(apperr.ValidationError, "choose a value for the input(s) %s (in context or the blueprint)",
			strings.Join(missing, ", ")).WithDetails(map[string]any{"missingInputs": missing})
	}
	return out, nil
}
