package asl

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// machineDef is a compiled state machine: the top level, a Map's item
// processor or a Parallel branch.
type machineDef struct {
	startAt string
	states  map[string]*stateDef
	timeout time.Duration // top level only; 0: none
}

// optPath is a path field that may be null (InputPath, OutputPath, ResultPath).
type optPath struct {
	path *refPath // "$" when the field is absent
	null bool
}

// stateDef is one compiled state. Fields a state's type does not use stay zero.
type stateDef struct {
	name string
	typ  string
	next string
	end  bool

	inputPath, outputPath, resultPath optPath
	parameters, resultSelector        payload
	retry                             []retrier
	catch                             []catcher

	// Task
	resource    string
	timeout     int64 // seconds
	timeoutPath *refPath

	// Pass
	result    any
	hasResult bool

	// Choice
	choices     []choiceBranch
	defaultNext string

	// Wait
	seconds       int64
	secondsPath   *refPath
	timestamp     time.Time
	timestampPath *refPath
	waitKind      string // "Seconds", "SecondsPath", "Timestamp", "TimestampPath"

	// Fail
	errName, cause       string
	errorExpr, causeExpr payload // ErrorPath, CausePath

	// Map and Parallel
	itemsPath          *refPath
	itemSelector       payload
	processor          *machineDef
	maxConcurrency     int64
	maxConcurrencyPath *refPath
	branches           []*machineDef
}

type choiceBranch struct {
	rule choiceRule
	next string
}

type retrier struct {
	errorEquals []string
	interval    time.Duration
	maxAttempts int64
	backoffRate float64
	maxDelay    time.Duration // 0: no cap
	fullJitter  bool
}

type catcher struct {
	errorEquals []string
	resultPath  optPath
	next        string
}

// substitute replaces ${Name} placeholders the way CloudFormation's
// DefinitionSubstitutions do: textually, before the definition is parsed, so a
// placeholder may stand for a number too. ${!Name} is the literal ${Name}.
// Unlike CloudFormation, a placeholder without a substitution is an error:
// locally it can only be a wiring mistake.
func substitute(def []byte, subs map[string]string) ([]byte, error) {
	s := string(def)
	var b strings.Builder
	var missing []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i+2:]
		j := strings.IndexByte(s, '}')
		if j < 0 {
			return nil, errors.New("asl: unterminated ${ placeholder")
		}
		name := s[:j]
		s = s[j+1:]
		if lit, ok := strings.CutPrefix(name, "!"); ok {
			b.WriteString("${" + lit + "}")
			continue
		}
		v, ok := subs[name]
		if !ok {
			if !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
			continue
		}
		b.WriteString(v)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("asl: no substitution for placeholder(s) %s", strings.Join(missing, ", "))
	}
	return []byte(b.String()), nil
}

// fields reads a definition object, checking types and reporting where.
type fields struct {
	m     map[string]any
	where string
}

func (f fields) errorf(key, format string, args ...any) error {
	return fmt.Errorf("%s: field %q: %s", f.where, key, fmt.Sprintf(format, args...))
}

func (f fields) has(k string) bool { _, ok := f.m[k]; return ok }

func (f fields) str(k string) (string, error) {
	v, ok := f.m[k]
	if !ok {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", f.errorf(k, "must be a string, got %s", typeName(v))
	}
	return s, nil
}

func (f fields) nonEmptyStr(k string) (string, error) {
	s, err := f.str(k)
	if err == nil && f.has(k) && s == "" {
		err = f.errorf(k, "must not be empty")
	}
	return s, err
}

func (f fields) integer(k string, min int64) (int64, error) {
	v, ok := f.m[k]
	if !ok {
		return 0, nil
	}
	n, ok := integer(v)
	if !ok {
		return 0, f.errorf(k, "must be an integer, got %s", jsonString(v))
	}
	if n < min {
		return 0, f.errorf(k, "must be at least %d, got %d", min, n)
	}
	return n, nil
}

func (f fields) boolean(k string) (bool, error) {
	v, ok := f.m[k]
	if !ok {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, f.errorf(k, "must be a boolean, got %s", typeName(v))
	}
	return b, nil
}

func (f fields) path(k string) (*refPath, error) {
	s, err := f.nonEmptyStr(k)
	if err != nil || !f.has(k) {
		return nil, err
	}
	p, err := parsePath(s)
	if err != nil {
		return nil, f.errorf(k, "%v", err)
	}
	return p, nil
}

// optPath reads a nullable path; absent means "$". Paths into the context
// object are allowed except where the path is written (ResultPath).
func (f fields) optPath(k string, write bool) (optPath, error) {
	v, ok := f.m[k]
	if !ok {
		return optPath{path: &refPath{raw: "$"}}, nil
	}
	if v == nil {
		return optPath{null: true}, nil
	}
	p, err := f.path(k)
	if err != nil {
		return optPath{}, err
	}
	if write && p.context {
		return optPath{}, f.errorf(k, "cannot write into the context object")
	}
	return optPath{path: p}, nil
}

func (f fields) payload(k string) (payload, error) {
	v, ok := f.m[k]
	if !ok {
		return nil, nil
	}
	p, err := compilePayload(v)
	if err != nil {
		return nil, f.errorf(k, "%v", err)
	}
	return p, nil
}

// pathOrCall reads a field that holds a reference path or an intrinsic call
// (a Fail state's ErrorPath and CausePath).
func (f fields) pathOrCall(k string) (payload, error) {
	s, err := f.nonEmptyStr(k)
	if err != nil || !f.has(k) {
		return nil, err
	}
	if isIntrinsic(s) {
		c, err := parseIntrinsic(s)
		if err != nil {
			return nil, f.errorf(k, "%v", err)
		}
		return callPayload{c}, nil
	}
	p, err := parsePath(s)
	if err != nil {
		return nil, f.errorf(k, "%v", err)
	}
	return pathPayload{field: k, path: p}, nil
}

// checkKeys rejects fields the object's kind does not have, naming the ones
// Step Functions has but this interpreter does not implement.
func (f fields) checkKeys(kind string, allowed []string) error {
	for _, k := range slices.Sorted(maps.Keys(f.m)) {
		if slices.Contains(allowed, k) {
			continue
		}
		switch k {
		case "Credentials", "Assign", "Arguments", "Output", "Items", "QueryLanguage",
			"ItemReader", "ResultWriter", "ItemBatcher", "Label",
			"ToleratedFailurePercentage", "ToleratedFailurePercentagePath",
			"ToleratedFailureCount", "ToleratedFailureCountPath":
			return fmt.Errorf("%s: field %q is not supported by this interpreter", f.where, k)
		}
		return fmt.Errorf("%s: unknown field %q for %s", f.where, k, kind)
	}
	return nil
}

func allowedKeys(typ string) ([]string, bool) {
	io := []string{"InputPath", "OutputPath"}
	flow := []string{"Next", "End"}
	errs := []string{"Retry", "Catch"}
	var ks []string
	switch typ {
	case "Task":
		ks = slices.Concat(io, flow, errs, []string{"Parameters", "ResultSelector", "ResultPath", "Resource",
			"TimeoutSeconds", "TimeoutSecondsPath", "HeartbeatSeconds", "HeartbeatSecondsPath"})
	case "Pass":
		ks = slices.Concat(io, flow, []string{"Parameters", "ResultPath", "Result"})
	case "Choice":
		ks = slices.Concat(io, []string{"Choices", "Default"})
	case "Wait":
		ks = slices.Concat(io, flow, []string{"Seconds", "SecondsPath", "Timestamp", "TimestampPath"})
	case "Succeed":
		ks = io
	case "Fail":
		ks = []string{"Error", "Cause", "ErrorPath", "CausePath"}
	case "Map":
		ks = slices.Concat(io, flow, errs, []string{"ItemsPath", "ItemSelector", "Parameters", "ItemProcessor", "Iterator",
			"MaxConcurrency", "MaxConcurrencyPath", "ResultSelector", "ResultPath"})
	case "Parallel":
		ks = slices.Concat(io, flow, errs, []string{"Branches", "Parameters", "ResultSelector", "ResultPath"})
	default:
		return nil, false
	}
	return append(ks, "Type", "Comment"), true
}

// parseMachine compiles a state machine object. kind is "the definition",
// "an ItemProcessor" or "a branch"; where prefixes error messages.
func parseMachine(m map[string]any, kind, where string) (*machineDef, error) {
	f := fields{m: m, where: where}
	allowed := []string{"StartAt", "States", "Comment"}
	switch kind {
	case "the definition":
		allowed = append(allowed, "Version", "TimeoutSeconds")
		if ql, ok := m["QueryLanguage"]; ok && ql != "JSONPath" {
			return nil, fmt.Errorf("%s: QueryLanguage %v is not supported (only JSONPath)", where, ql)
		}
		allowed = append(allowed, "QueryLanguage")
	case "an ItemProcessor":
		allowed = append(allowed, "ProcessorConfig")
	}
	if err := f.checkKeys(kind, allowed); err != nil {
		return nil, err
	}
	md := &machineDef{states: map[string]*stateDef{}}
	var err error
	if md.startAt, err = f.nonEmptyStr("StartAt"); err != nil {
		return nil, err
	}
	if md.startAt == "" {
		return nil, fmt.Errorf("%s: StartAt is required", where)
	}
	if kind == "the definition" {
		t, err := f.integer("TimeoutSeconds", 1)
		if err != nil {
			return nil, err
		}
		md.timeout = time.Duration(t) * time.Second
	}
	states, ok := m["States"].(map[string]any)
	if !ok || len(states) == 0 {
		return nil, fmt.Errorf("%s: States must be a non-empty object", where)
	}
	for _, name := range slices.Sorted(maps.Keys(states)) {
		sm, ok := states[name].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: state %q must be an object", where, name)
		}
		s, err := parseState(name, sm, where)
		if err != nil {
			return nil, err
		}
		md.states[name] = s
	}
	if err := md.checkTransitions(where); err != nil {
		return nil, err
	}
	return md, nil
}

// checkTransitions checks that every transition names a state of this
// machine and that every state is reachable from StartAt, as Step Functions
// does when a definition is created.
func (md *machineDef) checkTransitions(where string) error {
	if _, ok := md.states[md.startAt]; !ok {
		return fmt.Errorf("%s: StartAt %q is not a state", where, md.startAt)
	}
	reached := map[string]bool{md.startAt: true}
	queue := []string{md.startAt}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		for _, t := range md.states[name].targets() {
			if _, ok := md.states[t]; !ok {
				return fmt.Errorf("%s: state %q: transition to %q, which is not a state", where, name, t)
			}
			if !reached[t] {
				reached[t] = true
				queue = append(queue, t)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(md.states)) {
		if !reached[name] {
			return fmt.Errorf("%s: state %q is not reachable from %q", where, name, md.startAt)
		}
	}
	return nil
}

func (s *stateDef) targets() []string {
	var ts []string
	if s.next != "" {
		ts = append(ts, s.next)
	}
	for _, c := range s.choices {
		ts = append(ts, c.next)
	}
	if s.defaultNext != "" {
		ts = append(ts, s.defaultNext)
	}
	for _, c := range s.catch {
		ts = append(ts, c.next)
	}
	return ts
}

func parseState(name string, m map[string]any, where string) (*stateDef, error) {
	f := fields{m: m, where: fmt.Sprintf("%s: state %q", where, name)}
	typ, err := f.str("Type")
	if err != nil {
		return nil, err
	}
	allowed, ok := allowedKeys(typ)
	if !ok {
		return nil, fmt.Errorf("%s: unknown or missing Type %q", f.where, typ)
	}
	if err := f.checkKeys("a "+typ+" state", allowed); err != nil {
		return nil, err
	}
	s := &stateDef{name: name, typ: typ}
	if s.next, err = f.nonEmptyStr("Next"); err != nil {
		return nil, err
	}
	if s.end, err = f.boolean("End"); err != nil {
		return nil, err
	}
	if slices.Contains(allowed, "Next") && (s.next == "") == !s.end {
		return nil, fmt.Errorf("%s: exactly one of Next and \"End\": true is required", f.where)
	}
	if s.inputPath, err = f.optPath("InputPath", false); err != nil {
		return nil, err
	}
	if s.outputPath, err = f.optPath("OutputPath", false); err != nil {
		return nil, err
	}
	if s.resultPath, err = f.optPath("ResultPath", true); err != nil {
		return nil, err
	}
	if s.parameters, err = f.payload("Parameters"); err != nil {
		return nil, err
	}
	if s.resultSelector, err = f.payload("ResultSelector"); err != nil {
		return nil, err
	}
	if s.retry, err = parseRetry(f); err != nil {
		return nil, err
	}
	if s.catch, err = parseCatch(f); err != nil {
		return nil, err
	}
	switch typ {
	case "Task":
		err = s.parseTask(f)
	case "Pass":
		s.result, s.hasResult = m["Result"]
	case "Choice":
		err = s.parseChoice(f)
	case "Wait":
		err = s.parseWait(f)
	case "Fail":
		err = s.parseFail(f)
	case "Map":
		err = s.parseMap(f)
	case "Parallel":
		err = s.parseParallel(f)
	}
	return s, err
}

func (s *stateDef) parseTask(f fields) error {
	var err error
	if s.resource, err = f.nonEmptyStr("Resource"); err != nil {
		return err
	}
	if s.resource == "" {
		return fmt.Errorf("%s: Resource is required", f.where)
	}
	if s.timeout, err = f.integer("TimeoutSeconds", 1); err != nil {
		return err
	}
	if s.timeoutPath, err = f.path("TimeoutSecondsPath"); err != nil {
		return err
	}
	if s.timeout > 0 && s.timeoutPath != nil {
		return fmt.Errorf("%s: TimeoutSeconds and TimeoutSecondsPath are exclusive", f.where)
	}
	// Heartbeats only matter for activities and callbacks, which local
	// handlers are not; the fields are accepted and checked, not enforced.
	hb, err := f.integer("HeartbeatSeconds", 1)
	if err != nil {
		return err
	}
	if hb > 0 && s.timeout > 0 && hb >= s.timeout {
		return fmt.Errorf("%s: HeartbeatSeconds must be smaller than TimeoutSeconds", f.where)
	}
	_, err = f.path("HeartbeatSecondsPath")
	return err
}

func (s *stateDef) parseChoice(f fields) error {
	var err error
	if s.defaultNext, err = f.nonEmptyStr("Default"); err != nil {
		return err
	}
	list, ok := f.m["Choices"].([]any)
	if !ok || len(list) == 0 {
		return fmt.Errorf("%s: Choices must be a non-empty array", f.where)
	}
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: Choices[%d] must be an object", f.where, i)
		}
		rule, next, err := parseChoiceRule(m, true)
		if err != nil {
			return fmt.Errorf("%s: Choices[%d]: %w", f.where, i, err)
		}
		s.choices = append(s.choices, choiceBranch{rule: rule, next: next})
	}
	return nil
}

func (s *stateDef) parseWait(f fields) error {
	var kinds []string
	for _, k := range []string{"Seconds", "SecondsPath", "Timestamp", "TimestampPath"} {
		if f.has(k) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) != 1 {
		return fmt.Errorf("%s: exactly one of Seconds, SecondsPath, Timestamp and TimestampPath is required", f.where)
	}
	s.waitKind = kinds[0]
	var err error
	switch s.waitKind {
	case "Seconds":
		s.seconds, err = f.integer("Seconds", 0)
	case "SecondsPath":
		s.secondsPath, err = f.path("SecondsPath")
	case "Timestamp":
		var ts string
		if ts, err = f.str("Timestamp"); err == nil {
			var ok bool
			if s.timestamp, ok = timestamp(ts); !ok {
				err = f.errorf("Timestamp", "%q is not an RFC 3339 timestamp", ts)
			}
		}
	case "TimestampPath":
		s.timestampPath, err = f.path("TimestampPath")
	}
	return err
}

func (s *stateDef) parseFail(f fields) error {
	var err error
	if s.errName, err = f.str("Error"); err != nil {
		return err
	}
	if s.cause, err = f.str("Cause"); err != nil {
		return err
	}
	if s.errorExpr, err = f.pathOrCall("ErrorPath"); err != nil {
		return err
	}
	if s.causeExpr, err = f.pathOrCall("CausePath"); err != nil {
		return err
	}
	if f.has("Error") && f.has("ErrorPath") || f.has("Cause") && f.has("CausePath") {
		return fmt.Errorf("%s: Error/ErrorPath and Cause/CausePath are exclusive", f.where)
	}
	return nil
}

func (s *stateDef) parseMap(f fields) error {
	var err error
	if !f.has("ItemsPath") {
		s.itemsPath = &refPath{raw: "$"}
	} else if s.itemsPath, err = f.path("ItemsPath"); err != nil {
		return err
	}
	if f.has("ItemSelector") && f.has("Parameters") {
		return fmt.Errorf("%s: ItemSelector and Parameters (its legacy name) are exclusive", f.where)
	}
	if s.itemSelector, err = f.payload("ItemSelector"); err != nil {
		return err
	}
	if s.itemSelector == nil {
		s.itemSelector, s.parameters = s.parameters, nil
	}
	if s.maxConcurrency, err = f.integer("MaxConcurrency", 0); err != nil {
		return err
	}
	if s.maxConcurrencyPath, err = f.path("MaxConcurrencyPath"); err != nil {
		return err
	}
	if f.has("MaxConcurrency") && s.maxConcurrencyPath != nil {
		return fmt.Errorf("%s: MaxConcurrency and MaxConcurrencyPath are exclusive", f.where)
	}
	key := "ItemProcessor"
	if f.has("Iterator") {
		key = "Iterator"
		if f.has("ItemProcessor") {
			return fmt.Errorf("%s: ItemProcessor and Iterator (its legacy name) are exclusive", f.where)
		}
	}
	pm, ok := f.m[key].(map[string]any)
	if !ok {
		return fmt.Errorf("%s: ItemProcessor (or Iterator) must be an object", f.where)
	}
	if pc, ok := pm["ProcessorConfig"]; ok {
		// DISTRIBUTED runs inline here: the items come from ItemsPath either
		// way (ItemReader is rejected), only the child executions differ.
		pcm, ok := pc.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: ProcessorConfig must be an object", f.where)
		}
		if mode, ok := pcm["Mode"]; ok && mode != "INLINE" && mode != "DISTRIBUTED" {
			return fmt.Errorf("%s: ProcessorConfig.Mode must be INLINE or DISTRIBUTED, got %v", f.where, mode)
		}
	}
	s.processor, err = parseMachine(pm, "an ItemProcessor", f.where+": "+key)
	return err
}

func (s *stateDef) parseParallel(f fields) error {
	list, ok := f.m["Branches"].([]any)
	if !ok || len(list) == 0 {
		return fmt.Errorf("%s: Branches must be a non-empty array", f.where)
	}
	for i, e := range list {
		bm, ok := e.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: Branches[%d] must be an object", f.where, i)
		}
		b, err := parseMachine(bm, "a branch", fmt.Sprintf("%s: Branches[%d]", f.where, i))
		if err != nil {
			return err
		}
		s.branches = append(s.branches, b)
	}
	return nil
}

// parseErrorEquals reads ErrorEquals; States.ALL must be alone and in the last
// retrier or catcher.
func parseErrorEquals(f fields, last bool) ([]string, error) {
	list, ok := f.m["ErrorEquals"].([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("%s: ErrorEquals must be a non-empty array of error names", f.where)
	}
	names := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok || s == "" {
			return nil, fmt.Errorf("%s: ErrorEquals[%d] must be an error name", f.where, i)
		}
		names[i] = s
	}
	if slices.Contains(names, StatesALL) && (len(names) != 1 || !last) {
		return nil, fmt.Errorf("%s: States.ALL must appear alone in the last ErrorEquals", f.where)
	}
	return names, nil
}

func objects(f fields, key string) ([]fields, error) {
	v, ok := f.m[key]
	if !ok {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: %s must be an array", f.where, key)
	}
	out := make([]fields, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: %s[%d] must be an object", f.where, key, i)
		}
		out[i] = fields{m: m, where: fmt.Sprintf("%s: %s[%d]", f.where, key, i)}
	}
	return out, nil
}

func parseRetry(f fields) ([]retrier, error) {
	list, err := objects(f, "Retry")
	if err != nil {
		return nil, err
	}
	var rs []retrier
	for i, rf := range list {
		if err := rf.checkKeys("a retrier", []string{"ErrorEquals", "IntervalSeconds", "MaxAttempts", "BackoffRate", "MaxDelaySeconds", "JitterStrategy", "Comment"}); err != nil {
			return nil, err
		}
		r := retrier{interval: time.Second, maxAttempts: 3, backoffRate: 2}
		if r.errorEquals, err = parseErrorEquals(rf, i == len(list)-1); err != nil {
			return nil, err
		}
		if rf.has("IntervalSeconds") {
			n, err := rf.integer("IntervalSeconds", 1)
			if err != nil {
				return nil, err
			}
			r.interval = time.Duration(n) * time.Second
		}
		if rf.has("MaxAttempts") {
			if r.maxAttempts, err = rf.integer("MaxAttempts", 0); err != nil {
				return nil, err
			}
		}
		if v, ok := rf.m["BackoffRate"]; ok {
			b, ok := number(v)
			if !ok || b < 1 {
				return nil, rf.errorf("BackoffRate", "must be a number of at least 1.0, got %s", jsonString(v))
			}
			r.backoffRate = b
		}
		if rf.has("MaxDelaySeconds") {
			n, err := rf.integer("MaxDelaySeconds", 1)
			if err != nil {
				return nil, err
			}
			r.maxDelay = time.Duration(n) * time.Second
		}
		switch j, err := rf.str("JitterStrategy"); {
		case err != nil:
			return nil, err
		case j == "FULL":
			r.fullJitter = true
		case j == "" && !rf.has("JitterStrategy"), j == "NONE":
		default:
			return nil, rf.errorf("JitterStrategy", "must be FULL or NONE, got %q", j)
		}
		rs = append(rs, r)
	}
	return rs, nil
}

func parseCatch(f fields) ([]catcher, error) {
	list, err := objects(f, "Catch")
	if err != nil {
		return nil, err
	}
	var cs []catcher
	for i, cf := range list {
		if err := cf.checkKeys("a catcher", []string{"ErrorEquals", "ResultPath", "Next", "Comment"}); err != nil {
			return nil, err
		}
		var c catcher
		if c.errorEquals, err = parseErrorEquals(cf, i == len(list)-1); err != nil {
			return nil, err
		}
		if c.resultPath, err = cf.optPath("ResultPath", true); err != nil {
			return nil, err
		}
		if c.next, err = cf.nonEmptyStr("Next"); err != nil {
			return nil, err
		}
		if c.next == "" {
			return nil, fmt.Errorf("%s: Next is required", cf.where)
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// delay is the wait before retry number n (0-based) of this retrier:
// IntervalSeconds × BackoffRate^n, capped by MaxDelaySeconds, and with FULL
// jitter a uniformly random duration up to that.
func (r retrier) delay(n int64, random func() float64) time.Duration {
	d := float64(r.interval) * math.Pow(r.backoffRate, float64(n))
	if r.maxDelay > 0 && d > float64(r.maxDelay) {
		d = float64(r.maxDelay)
	}
	if d > float64(math.MaxInt64) {
		d = float64(math.MaxInt64)
	}
	if r.fullJitter {
		d *= random()
	}
	return time.Duration(d)
}

// resources lists the Resource of every Task, nested ones included.
func (md *machineDef) resources(into map[string]bool) {
	for _, s := range md.states {
		if s.resource != "" {
			into[s.resource] = true
		}
		if s.processor != nil {
			s.processor.resources(into)
		}
		for _, b := range s.branches {
			b.resources(into)
		}
	}
}
