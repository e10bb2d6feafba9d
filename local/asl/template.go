package asl

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A payload template (Parameters, ItemSelector, ResultSelector, a Pass state's
// Parameters) is compiled once: a field whose name ends in ".$" takes its value
// from a path or an intrinsic call, objects and arrays recurse, and everything
// else is copied as is.
type payload interface {
	eval(in, ctxObj any) (any, error)
}

type literalPayload struct{ v any }

func (p literalPayload) eval(any, any) (any, error) { return p.v, nil }

type objectPayload struct{ fields []payloadField }

type payloadField struct {
	name string
	val  payload
}

func (p objectPayload) eval(in, ctxObj any) (any, error) {
	out := make(map[string]any, len(p.fields))
	for _, f := range p.fields {
		v, err := f.val.eval(in, ctxObj)
		if err != nil {
			return nil, err
		}
		out[f.name] = v
	}
	return out, nil
}

type arrayPayload []payload

func (p arrayPayload) eval(in, ctxObj any) (any, error) {
	out := make([]any, len(p))
	for i, e := range p {
		v, err := e.eval(in, ctxObj)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

type pathPayload struct {
	field string
	path  *refPath
}

func (p pathPayload) eval(in, ctxObj any) (any, error) {
	v, ok := p.path.get(in, ctxObj)
	if !ok {
		src := in
		if p.path.context {
			src = ctxObj
		}
		return nil, runtimeError("the JSONPath %s specified for the field %q could not be found in the input %s", p.path, p.field, jsonString(src))
	}
	return v, nil
}

type callPayload struct{ call *intrinsicCall }

func (p callPayload) eval(in, ctxObj any) (any, error) { return p.call.eval(in, ctxObj) }

// compilePayload compiles a template from its decoded JSON.
func compilePayload(v any) (payload, error) {
	switch v := v.(type) {
	case map[string]any:
		obj := objectPayload{}
		dynamic := false
		for _, k := range slices.Sorted(maps.Keys(v)) {
			name, isDyn := strings.CutSuffix(k, ".$")
			if isDyn {
				if _, dup := v[name]; dup {
					return nil, fmt.Errorf("fields %q and %q both set %q", name, k, name)
				}
				s, ok := v[k].(string)
				if !ok {
					return nil, fmt.Errorf("field %q: the value of a field ending in .$ must be a path or an intrinsic call, got %s", k, typeName(v[k]))
				}
				var val payload
				if isIntrinsic(s) {
					c, err := parseIntrinsic(s)
					if err != nil {
						return nil, fmt.Errorf("field %q: %w", k, err)
					}
					val = callPayload{c}
				} else {
					p, err := parsePath(s)
					if err != nil {
						return nil, fmt.Errorf("field %q: %w", k, err)
					}
					val = pathPayload{field: k, path: p}
				}
				obj.fields = append(obj.fields, payloadField{name: name, val: val})
				dynamic = true
				continue
			}
			val, err := compilePayload(v[k])
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", k, err)
			}
			if _, lit := val.(literalPayload); !lit {
				dynamic = true
			}
			obj.fields = append(obj.fields, payloadField{name: k, val: val})
		}
		if !dynamic {
			return literalPayload{v}, nil
		}
		return obj, nil
	case []any:
		arr := make(arrayPayload, len(v))
		dynamic := false
		for i, e := range v {
			val, err := compilePayload(e)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			if _, lit := val.(literalPayload); !lit {
				dynamic = true
			}
			arr[i] = val
		}
		if !dynamic {
			return literalPayload{v}, nil
		}
		return arr, nil
	default:
		return literalPayload{v}, nil
	}
}
