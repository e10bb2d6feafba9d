package asl

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// refPath is a reference path: the JSONPath subset that selects a single node,
// which is what InputPath, OutputPath, ResultPath, ItemsPath, Choice variables
// and the ".$" fields of payload templates use in practice: $, $.a.b, $['a'],
// $["a"], $.a[0], $.a[-1], and the same rooted at $$ for the context object.
// Wildcards, filters, slices and deep scans are rejected when parsing.
type refPath struct {
	raw     string
	context bool // rooted at $$, the context object
	steps   []pathStep
}

type pathStep struct {
	key     string
	index   int
	isIndex bool
}

func (p *refPath) String() string { return p.raw }

// parsePath parses a reference path.
func parsePath(s string) (*refPath, error) {
	p := &refPath{raw: s}
	rest, ok := strings.CutPrefix(s, "$")
	if !ok {
		return nil, fmt.Errorf("path %q must start with $", s)
	}
	if r, ok := strings.CutPrefix(rest, "$"); ok {
		p.context, rest = true, r
	}
	for rest != "" {
		switch rest[0] {
		case '.':
			rest = rest[1:]
			if strings.HasPrefix(rest, ".") {
				return nil, fmt.Errorf("path %q: deep scan (..) is not supported in a reference path", s)
			}
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			name := rest[:end]
			if name == "" {
				return nil, fmt.Errorf("path %q: empty field name", s)
			}
			if i := strings.IndexAny(name, "*@?()],: \t'\""); i >= 0 {
				return nil, fmt.Errorf("path %q: character %q is not supported in a reference path", s, name[i])
			}
			p.steps = append(p.steps, pathStep{key: name})
			rest = rest[end:]
		case '[':
			step, n, err := parseBracket(rest)
			if err != nil {
				return nil, fmt.Errorf("path %q: %w", s, err)
			}
			p.steps = append(p.steps, step)
			rest = rest[n:]
		default:
			return nil, fmt.Errorf("path %q: unexpected %q", s, rest[0])
		}
	}
	return p, nil
}

// parseBracket parses ['name'], ["name"] or [N] at the start of s and returns
// the step and the number of bytes consumed.
func parseBracket(s string) (pathStep, int, error) {
	if len(s) < 3 {
		return pathStep{}, 0, fmt.Errorf("unterminated %q", s)
	}
	if q := s[1]; q == '\'' || q == '"' {
		var b strings.Builder
		for i := 2; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '\\' && i+1 < len(s):
				i++
				b.WriteByte(s[i])
			case c == q:
				if i+1 >= len(s) || s[i+1] != ']' {
					return pathStep{}, 0, fmt.Errorf("expected ] after the quoted name in %q", s)
				}
				return pathStep{key: b.String()}, i + 2, nil
			default:
				b.WriteByte(c)
			}
		}
		return pathStep{}, 0, fmt.Errorf("unterminated quoted name in %q", s)
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return pathStep{}, 0, fmt.Errorf("unterminated %q", s)
	}
	idx, err := strconv.Atoi(s[1:end])
	if err != nil {
		return pathStep{}, 0, fmt.Errorf("%q is not supported in a reference path (only [N], ['name'])", s[:end+1])
	}
	return pathStep{index: idx, isIndex: true}, end + 1, nil
}

// get selects the node p names in root (or in ctxObj when p is rooted at $$).
// ok is false when the node does not exist.
func (p *refPath) get(root, ctxObj any) (v any, ok bool) {
	v = root
	if p.context {
		v = ctxObj
	}
	for _, s := range p.steps {
		if s.isIndex {
			arr, isArr := v.([]any)
			if !isArr {
				return nil, false
			}
			i := s.index
			if i < 0 {
				i += len(arr)
			}
			if i < 0 || i >= len(arr) {
				return nil, false
			}
			v = arr[i]
			continue
		}
		obj, isObj := v.(map[string]any)
		if !isObj {
			return nil, false
		}
		v, ok = obj[s.key]
		if !ok {
			return nil, false
		}
	}
	return v, true
}

// set returns a copy of root with the node p names replaced by v, creating
// missing intermediate objects, as ResultPath does. It fails (the caller
// reports States.ResultPathMatchFailure) when a step runs into a value of the
// wrong type.
func (p *refPath) set(root, v any) (any, error) {
	return setSteps(root, true, p.steps, v, p.raw)
}

func setSteps(cur any, present bool, steps []pathStep, v any, raw string) (any, error) {
	if len(steps) == 0 {
		return v, nil
	}
	s := steps[0]
	if s.isIndex {
		arr, ok := cur.([]any)
		i := s.index
		if ok && i < 0 {
			i += len(arr)
		}
		if !ok || i < 0 || i >= len(arr) {
			return nil, fmt.Errorf("unable to apply ResultPath %s: [%d] does not select an existing array element in %s", raw, s.index, jsonString(cur))
		}
		child, err := setSteps(arr[i], true, steps[1:], v, raw)
		if err != nil {
			return nil, err
		}
		out := slices.Clone(arr)
		out[i] = child
		return out, nil
	}
	var obj map[string]any
	switch c := cur.(type) {
	case map[string]any:
		obj = c
	default:
		if present {
			return nil, fmt.Errorf("unable to apply ResultPath %s to %s: field %q of a %s", raw, jsonString(cur), s.key, typeName(cur))
		}
	}
	child, ok := obj[s.key]
	next, err := setSteps(child, ok, steps[1:], v, raw)
	if err != nil {
		return nil, err
	}
	out := cloneObject(obj)
	out[s.key] = next
	return out, nil
}
