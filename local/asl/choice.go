package asl

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// choiceRule is a compiled Choice rule: a comparison, or And, Or, Not.
type choiceRule interface {
	eval(in, ctxObj any) (bool, error)
}

type andRule []choiceRule

func (r andRule) eval(in, ctxObj any) (bool, error) {
	for _, c := range r { // short-circuits, so IsPresent can guard a later rule
		ok, err := c.eval(in, ctxObj)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

type orRule []choiceRule

func (r orRule) eval(in, ctxObj any) (bool, error) {
	for _, c := range r {
		ok, err := c.eval(in, ctxObj)
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

type notRule struct{ rule choiceRule }

func (r notRule) eval(in, ctxObj any) (bool, error) {
	ok, err := r.rule.eval(in, ctxObj)
	return !ok, err
}

// comparison is a data-test expression: Variable, one operator and its operand.
type comparison struct {
	variable *refPath
	op       string // as written, e.g. "NumericLessThanEqualsPath"
	kind     string // String, Numeric, Timestamp, Boolean, Is, Matches
	relation string // Equals, LessThan, ... for String, Numeric, Timestamp, Boolean; the test for Is
	operand  any
	path     *refPath // operand path for the *Path operators
	pattern  []globToken
}

// comparisonOps lists the operator names with the JSON type of their literal operand.
func comparisonOp(op string) (kind, relation, operandType string, isPath, ok bool) {
	if op == "StringMatches" {
		return "Matches", "", "string", false, true
	}
	if rest, found := strings.CutPrefix(op, "Is"); found {
		switch rest {
		case "Null", "Present", "Numeric", "String", "Boolean", "Timestamp":
			return "Is", rest, "boolean", false, true
		}
		return "", "", "", false, false
	}
	base, isPath := strings.CutSuffix(op, "Path")
	for _, k := range []string{"String", "Numeric", "Timestamp", "Boolean"} {
		rel, found := strings.CutPrefix(base, k)
		if !found {
			continue
		}
		switch {
		case k == "Boolean" && rel == "Equals":
		case k != "Boolean" && slices.Contains([]string{"Equals", "LessThan", "GreaterThan", "LessThanEquals", "GreaterThanEquals"}, rel):
		default:
			return "", "", "", false, false
		}
		typ := map[string]string{"String": "string", "Numeric": "number", "Timestamp": "string", "Boolean": "boolean"}[k]
		if isPath {
			typ = "path"
		}
		return k, rel, typ, isPath, true
	}
	return "", "", "", false, false
}

// parseChoiceRule compiles one rule. Top-level rules carry a Next; nested
// ones (inside And, Or, Not) must not.
func parseChoiceRule(m map[string]any, top bool) (choiceRule, string, error) {
	var next string
	var ops []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch k {
		case "Comment", "Variable":
		case "Next":
			if !top {
				return nil, "", fmt.Errorf("a nested rule must not have Next")
			}
			s, ok := m[k].(string)
			if !ok || s == "" {
				return nil, "", fmt.Errorf("Next must be a state name")
			}
			next = s
		case "And", "Or", "Not":
			ops = append(ops, k)
		default:
			if _, _, _, _, ok := comparisonOp(k); !ok {
				return nil, "", fmt.Errorf("unknown field %q in a choice rule", k)
			}
			ops = append(ops, k)
		}
	}
	if top && next == "" {
		return nil, "", fmt.Errorf("a choice rule needs a Next")
	}
	if len(ops) != 1 {
		return nil, "", fmt.Errorf("a choice rule needs exactly one operator (And, Or, Not or a comparison), got %v", ops)
	}
	op := ops[0]
	switch op {
	case "And", "Or":
		if _, ok := m["Variable"]; ok {
			return nil, "", fmt.Errorf("%s must not have a Variable", op)
		}
		list, ok := m[op].([]any)
		if !ok || len(list) == 0 {
			return nil, "", fmt.Errorf("%s must be a non-empty array of rules", op)
		}
		rules := make([]choiceRule, len(list))
		for i, e := range list {
			em, ok := e.(map[string]any)
			if !ok {
				return nil, "", fmt.Errorf("%s[%d] must be a rule object", op, i)
			}
			r, _, err := parseChoiceRule(em, false)
			if err != nil {
				return nil, "", fmt.Errorf("%s[%d]: %w", op, i, err)
			}
			rules[i] = r
		}
		if op == "And" {
			return andRule(rules), next, nil
		}
		return orRule(rules), next, nil
	case "Not":
		if _, ok := m["Variable"]; ok {
			return nil, "", fmt.Errorf("Not must not have a Variable")
		}
		em, ok := m[op].(map[string]any)
		if !ok {
			return nil, "", fmt.Errorf("Not must be a rule object")
		}
		r, _, err := parseChoiceRule(em, false)
		if err != nil {
			return nil, "", fmt.Errorf("Not: %w", err)
		}
		return notRule{r}, next, nil
	}
	vs, ok := m["Variable"].(string)
	if !ok {
		return nil, "", fmt.Errorf("the %s comparison needs a Variable", op)
	}
	variable, err := parsePath(vs)
	if err != nil {
		return nil, "", fmt.Errorf("Variable: %w", err)
	}
	kind, relation, typ, isPath, _ := comparisonOp(op)
	c := &comparison{variable: variable, op: op, kind: kind, relation: relation, operand: m[op]}
	if typeName(c.operand) != typ && !(isPath && typeName(c.operand) == "string") {
		return nil, "", fmt.Errorf("%s takes a %s, got %s", op, typ, typeName(c.operand))
	}
	switch {
	case isPath:
		if c.path, err = parsePath(c.operand.(string)); err != nil {
			return nil, "", fmt.Errorf("%s: %w", op, err)
		}
	case kind == "Timestamp":
		if _, ok := timestamp(c.operand); !ok {
			return nil, "", fmt.Errorf("%s: %q is not an RFC 3339 timestamp", op, c.operand)
		}
	case kind == "Matches":
		c.pattern = compileGlob(c.operand.(string))
	}
	return c, next, nil
}

func (c *comparison) eval(in, ctxObj any) (bool, error) {
	v, ok := c.variable.get(in, ctxObj)
	if c.kind == "Is" && c.relation == "Present" {
		return ok == c.operand.(bool), nil
	}
	if !ok {
		return false, runtimeError("invalid path %s: the choice state's condition path references an invalid value", c.variable)
	}
	operand := c.operand
	if c.path != nil {
		if operand, ok = c.path.get(in, ctxObj); !ok {
			return false, runtimeError("invalid path %s in %s: the choice state's condition path references an invalid value", c.path, c.op)
		}
	}
	switch c.kind {
	case "Is":
		var is bool
		switch c.relation {
		case "Null":
			is = v == nil
		case "Numeric":
			_, is = v.(json.Number)
		case "String":
			_, is = v.(string)
		case "Boolean":
			_, is = v.(bool)
		case "Timestamp":
			_, is = timestamp(v)
		}
		return is == operand.(bool), nil
	case "Matches":
		s, ok := v.(string)
		return ok && matchGlob(c.pattern, s), nil
	case "Boolean":
		a, ok1 := v.(bool)
		b, ok2 := operand.(bool)
		return ok1 && ok2 && a == b, nil
	}
	var order int
	switch c.kind {
	case "String":
		a, ok1 := v.(string)
		b, ok2 := operand.(string)
		if !ok1 || !ok2 {
			return false, nil
		}
		order = strings.Compare(a, b)
	case "Numeric":
		a, ok1 := number(v)
		b, ok2 := number(operand)
		if !ok1 || !ok2 {
			return false, nil
		}
		order = cmp.Compare(a, b)
	case "Timestamp":
		a, ok1 := timestamp(v)
		b, ok2 := timestamp(operand)
		if !ok1 || !ok2 {
			return false, nil
		}
		order = a.Compare(b)
	}
	switch c.relation {
	case "Equals":
		return order == 0, nil
	case "LessThan":
		return order < 0, nil
	case "GreaterThan":
		return order > 0, nil
	case "LessThanEquals":
		return order <= 0, nil
	default: // GreaterThanEquals
		return order >= 0, nil
	}
}

// timestamp parses an RFC 3339 timestamp (uppercase T, Z or a numeric offset).
func timestamp(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// globToken is one element of a StringMatches pattern: a literal rune or *.
type globToken struct {
	r    rune
	star bool
}

// compileGlob compiles a StringMatches pattern: * matches any sequence, \* is
// a literal star and \\ a literal backslash.
func compileGlob(p string) []globToken {
	var toks []globToken
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch {
		case rs[i] == '\\' && i+1 < len(rs):
			i++
			toks = append(toks, globToken{r: rs[i]})
		case rs[i] == '*':
			toks = append(toks, globToken{star: true})
		default:
			toks = append(toks, globToken{r: rs[i]})
		}
	}
	return toks
}

// matchGlob matches s against a compiled pattern, backtracking only to the
// last star (linear in practice, O(len(p)·len(s)) at worst).
func matchGlob(p []globToken, s string) bool {
	rs := []rune(s)
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(rs) {
		switch {
		case pi < len(p) && p[pi].star:
			star, mark = pi, si
			pi++
		case pi < len(p) && p[pi].r == rs[si]:
			pi++
			si++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi].star {
		pi++
	}
	return pi == len(p)
}
