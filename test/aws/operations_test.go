package awstest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/session"
)

// issue 24: the operator's alarms, the socket relay's consumer and the
// documented numbers, checked against template.yaml.

// alarm is what the checks read of an AWS::CloudWatch::Alarm.
type alarm struct {
	name       string
	namespace  string
	metric     string
	dimensions map[string]string
	actions    []string
	metrics    []map[string]any // metric math: the MetricStat ones
}

func alarms(tp template) []alarm {
	var out []alarm
	resources, _ := tp.raw["Resources"].(map[string]any)
	for name := range resources {
		if tp.resourceType(name) != "AWS::CloudWatch::Alarm" {
			continue
		}
		p := tp.properties(name)
		a := alarm{name: name, dimensions: map[string]string{}, actions: strs(p["AlarmActions"])}
		a.namespace, _ = p["Namespace"].(string)
		a.metric, _ = p["MetricName"].(string)
		dims, _ := p["Dimensions"].([]any)
		for _, d := range dims {
			m, _ := d.(map[string]any)
			a.dimensions[fmt.Sprint(m["Name"])] = fmt.Sprint(m["Value"])
		}
		ms, _ := p["Metrics"].([]any)
		for _, x := range ms {
			m, _ := x.(map[string]any)
			stat, _ := m["MetricStat"].(map[string]any)
			if metric, ok := stat["Metric"].(map[string]any); ok {
				a.metrics = append(a.metrics, metric)
			}
		}
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// find returns the alarms on namespace/metric whose dimensions include dims.
func findAlarms(as []alarm, namespace, metric string, dims map[string]string) []alarm {
	var out []alarm
	for _, a := range as {
		if a.namespace != namespace || a.metric != metric {
			continue
		}
		ok := true
		for k, v := range dims {
			ok = ok && a.dimensions[k] == v
		}
		if ok {
			out = append(out, a)
		}
	}
	return out
}

// TestTemplateAlarms checks that the alarms an operator needs exist and
// reach someone: the topic's key lets CloudWatch publish; every function
// has an Errors and a Throttles alarm, every workflow its failed, timed-out
// and throttled executions', the table its throttled requests' (every
// operation the code uses), the stream consumer its iterator age's, both
// APIs their 5xx's; both APIs write access logs; docs/deploy.md's "When
// something is wrong" names every alarm.
func TestTemplateAlarms(t *testing.T) {
	repo := repoRoot(t)
	tp := openTemplate(t, repo)
	as := alarms(tp)
	for _, a := range as {
		if !slices.Equal(a.actions, []string{"ref:AlarmTopic"}) {
			t.Errorf("%s notifies %v, want the alarm topic", a.name, a.actions)
		}
	}

	// CloudWatch cannot use the AWS managed key of SNS.
	key, ok := strings.CutPrefix(fmt.Sprint(tp.properties("AlarmTopic")["KmsMasterKeyId"]), "ref:")
	if !ok || tp.resourceType(key) != "AWS::KMS::Key" {
		t.Fatalf("AlarmTopic's key is %v, want a customer managed key of the stack (alias/aws/sns cannot receive alarms)", tp.properties("AlarmTopic")["KmsMasterKeyId"])
	}
	policy, _ := tp.properties(key)["KeyPolicy"].(map[string]any)
	granted := false
	for _, x := range policy["Statement"].([]any) {
		st, _ := x.(map[string]any)
		principal, _ := st["Principal"].(map[string]any)
		if st["Effect"] == "Allow" && slices.Contains(strs(principal["Service"]), "cloudwatch.amazonaws.com") &&
			slices.Contains(strs(st["Action"]), "kms:Decrypt") && slices.Contains(strs(st["Action"]), "kms:GenerateDataKey*") {
			granted = true
		}
	}
	if !granted {
		t.Errorf("%s does not let cloudwatch.amazonaws.com use it (kms:Decrypt, kms:GenerateDataKey*): %v", key, policy)
	}

	fns := tp.functions(t)
	for name := range fns {
		for _, metric := range []string{"Errors", "Throttles"} {
			if len(findAlarms(as, "AWS/Lambda", metric, map[string]string{"FunctionName": "ref:" + name})) == 0 {
				t.Errorf("no alarm on %s's %s", name, metric)
			}
		}
		events, _ := fns[name].Props["Events"].(map[string]any)
		for _, x := range events {
			if e, _ := x.(map[string]any); e["Type"] == "DynamoDB" &&
				len(findAlarms(as, "AWS/Lambda", "IteratorAge", map[string]string{"FunctionName": "ref:" + name})) == 0 {
				t.Errorf("no alarm on %s's IteratorAge (it consumes a stream)", name)
			}
		}
	}
	for name := range tp.GetAllServerlessStateMachineResources() {
		for _, metric := range []string{"ExecutionsFailed", "ExecutionsTimedOut", "ExecutionThrottled"} {
			if len(findAlarms(as, "AWS/States", metric, map[string]string{"StateMachineArn": "ref:" + name})) == 0 {
				t.Errorf("no alarm on %s's %s", name, metric)
			}
		}
	}

	// ThrottledRequests exists per operation only: every operation of the
	// code's DynamoDB interfaces is summed.
	ops := map[string]bool{}
	for _, a := range slices.Concat(actions[dynamostore.API]("dynamodb"), actions[dynamostore.AppsAPI]("dynamodb")) {
		ops[strings.TrimPrefix(a, "dynamodb:")] = true
	}
	for _, a := range as {
		for _, m := range a.metrics {
			if m["Namespace"] != "AWS/DynamoDB" || m["MetricName"] != "ThrottledRequests" {
				continue
			}
			dims, _ := m["Dimensions"].([]any)
			for _, d := range dims {
				dm, _ := d.(map[string]any)
				if dm["Name"] == "Operation" {
					delete(ops, fmt.Sprint(dm["Value"]))
				}
			}
		}
	}
	if len(ops) > 0 {
		t.Errorf("no alarm on DynamoDB ThrottledRequests of %v", sortedKeys(ops))
	}

	if len(findAlarms(as, "AWS/ApiGateway", "5xx", map[string]string{"ApiId": "ref:HttpApi"})) == 0 {
		t.Error("no alarm on the HTTP API's 5xx")
	}
	for _, m := range []string{"IntegrationError", "ExecutionError"} {
		if len(findAlarms(as, "AWS/ApiGateway", m, map[string]string{"ApiId": "ref:TemplateSocketApi"})) == 0 {
			t.Errorf("no alarm on the WebSocket API's %s (its 5xx)", m)
		}
	}

	// Access logs of both APIs, to log groups with a retention.
	for name, settings := range map[string]any{"HttpApi": tp.properties("HttpApi")["AccessLogSettings"],
		"TemplateSocketStage": tp.properties("TemplateSocketStage")["AccessLogSettings"]} {
		s, _ := settings.(map[string]any)
		group, ok := strings.CutSuffix(strings.TrimPrefix(fmt.Sprint(s["DestinationArn"]), "getatt:"), ".Arn")
		if !ok || tp.resourceType(group) != "AWS::Logs::LogGroup" || tp.properties(group)["RetentionInDays"] == nil || s["Format"] == nil {
			t.Errorf("%s: access logs %v, want a Format and a log group of the stack with a retention", name, settings)
		}
	}

	// The docs name every alarm: by name, or as <Name>ErrorsAlarm /
	// <Name>ThrottlesAlarm with <Name> listed in that row.
	doc := readDeployDoc(t, repo)
	i := strings.Index(doc, "## When something is wrong")
	if i < 0 {
		t.Fatal(`docs/deploy.md has no "When something is wrong" section`)
	}
	section := doc[i:]
	section = section[:strings.Index(section[3:], "\n## ")+3]
	for _, a := range as {
		if strings.Contains(section, "`"+a.name+"`") {
			continue
		}
		m := regexp.MustCompile(`^(.+)(Errors|Throttles)Alarm$`).FindStringSubmatch(a.name)
		if m == nil || !strings.Contains(section, "`<Name>"+m[2]+"Alarm`") || !regexp.MustCompile("`<Name>Errors.*`"+m[1]+"`").MatchString(section) {
			t.Errorf("docs/deploy.md, \"When something is wrong\", does not name %s", a.name)
		}
	}
}

// TestTemplateSocketDeployment checks that the WebSocket API's deployment
// follows its routes: CloudFormation makes a deployment once per logical
// id, so the id ends with a hash of the routes and their integration.
func TestTemplateSocketDeployment(t *testing.T) {
	tp := openTemplate(t, repoRoot(t))
	resources, _ := tp.raw["Resources"].(map[string]any)
	var parts []string
	var deployments []string
	for _, name := range sortedKeys(resources) {
		switch tp.resourceType(name) {
		case "AWS::ApiGatewayV2::Route", "AWS::ApiGatewayV2::Integration":
			b, _ := json.Marshal(tp.properties(name))
			parts = append(parts, name+"="+string(b))
		case "AWS::ApiGatewayV2::Deployment":
			deployments = append(deployments, name)
		}
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\n")))
	want := "TemplateSocketDeployment" + hex.EncodeToString(sum[:])[:8]
	if !slices.Equal(deployments, []string{want}) {
		t.Fatalf("the socket API's deployments are %v; with these routes it must be %s (rename it, and the stage's DeploymentId, when a route changes)", deployments, want)
	}
	if got := tp.properties("TemplateSocketStage")["DeploymentId"]; got != "ref:"+want {
		t.Errorf("TemplateSocketStage.DeploymentId = %v, want ref:%s", got, want)
	}
}

// TestTemplateSocketRelay checks the consumer of the table's stream: one
// bad session must neither block its shard nor make it drop the others.
func TestTemplateSocketRelay(t *testing.T) {
	tp := openTemplate(t, repoRoot(t))
	n := 0
	for name, fn := range tp.functions(t) {
		events, _ := fn.Props["Events"].(map[string]any)
		for ev, x := range events {
			e, _ := x.(map[string]any)
			if e["Type"] != "DynamoDB" {
				continue
			}
			n++
			p, _ := e["Properties"].(map[string]any)
			dest, _ := p["DestinationConfig"].(map[string]any)
			onFailure, _ := dest["OnFailure"].(map[string]any)
			queue, _ := strings.CutSuffix(strings.TrimPrefix(fmt.Sprint(onFailure["Destination"]), "getatt:"), ".Arn")
			retries, _ := p["MaximumRetryAttempts"].(float64)
			if p["BisectBatchOnFunctionError"] != true || !slices.Equal(strs(p["FunctionResponseTypes"]), []string{"ReportBatchItemFailures"}) ||
				onFailure["Type"] != "SQS" || tp.resourceType(queue) != "AWS::SQS::Queue" || retries < 1 || retries > 10 {
				t.Errorf("%s.%s: %v; want BisectBatchOnFunctionError, ReportBatchItemFailures, an SQS on-failure destination of the stack and a few retries", name, ev, p)
			}
		}
	}
	if n == 0 {
		t.Fatal("no function consumes the table's stream")
	}
}

// memoryRow is a function's row in docs/deploy.md's "What gets deployed".
var memoryRow = regexp.MustCompile("(?m)^\\| `([A-Za-z]+Function)`[^\\n]*$")

// TestDeployDocsNumbers keeps the numbers docs/deploy.md gives equal to the
// template's: each function's memory and timeout in "What gets deployed",
// and the life of the claim-checked records, which must outlive the items
// that name them (DynamoDB's TTL of a session item, measured on an item the
// store writes).
func TestDeployDocsNumbers(t *testing.T) {
	repo := repoRoot(t)
	tp := openTemplate(t, repo)
	g, err := tp.GetServerlessGlobalFunction()
	if err != nil {
		t.Fatal(err)
	}
	doc := readDeployDoc(t, repo)
	rows := memoryRow.FindAllStringSubmatch(doc, -1)
	if len(rows) < 2 {
		t.Fatalf("docs/deploy.md: %d function rows in its tables", len(rows))
	}
	number := func(s string) int { n, _ := strconv.Atoi(strings.ReplaceAll(s, ",", "")); return n }
	checked := 0
	for _, row := range rows {
		fn, err := tp.GetServerlessFunctionWithName(row[1])
		if err != nil {
			continue
		}
		mem, timeout := *g.MemorySize, *g.Timeout
		if fn.MemorySize != nil {
			mem = *fn.MemorySize
		}
		if fn.Timeout != nil {
			timeout = *fn.Timeout
		}
		if m := regexp.MustCompile(`([0-9][0-9,]*) MB`).FindStringSubmatch(row[0]); m != nil {
			checked++
			if number(m[1]) != mem {
				t.Errorf("docs/deploy.md gives %s %s MB; the template %d", row[1], m[1], mem)
			}
		}
		if m := regexp.MustCompile(`([0-9]+) (s|min) timeout`).FindStringSubmatch(row[0]); m != nil {
			secs := number(m[1])
			if m[2] == "min" {
				secs *= 60
			}
			if secs != timeout {
				t.Errorf("docs/deploy.md gives %s a %s %s timeout; the template %d s", row[1], m[1], m[2], timeout)
			}
		}
	}
	if checked == 0 {
		t.Error("docs/deploy.md gives no function's memory")
	}

	// The records (claim checks) outlive the session items that name them.
	probe := &ttlProbe{}
	now := time.Now()
	store := dynamostore.New(probe, "t", dynamostore.Options{Now: func() time.Time { return now }})
	if err := store.Sessions().CreateSession(context.Background(), session.Session{ID: "s", TeacherID: "t-001", Kind: "conversation"}); err != nil {
		t.Fatal(err)
	}
	ttl, err := strconv.ParseInt(probe.ttl, 10, 64)
	if err != nil {
		t.Fatalf("the session item's %s: %q", dynamostore.AttrTTL, probe.ttl)
	}
	itemDays := time.Unix(ttl, 0).Sub(now).Hours() / 24
	b, err := tp.GetS3BucketWithName("FilesBucket")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range b.LifecycleConfiguration.Rules {
		if r.Prefix == nil || *r.Prefix != "records/" {
			continue
		}
		if r.ExpirationInDays == nil || float64(*r.ExpirationInDays) <= itemDays {
			t.Errorf("records/ expire after %v days, the items that name them after %.0f: a week-old conversation's history would not load", r.ExpirationInDays, itemDays)
		}
		if !strings.Contains(doc, fmt.Sprintf("`records/` after %d days", *r.ExpirationInDays)) {
			t.Errorf("docs/deploy.md does not say that records/ expire after %d days", *r.ExpirationInDays)
		}
	}
}

// ttlProbe stands in for DynamoDB (the outside world) and keeps the TTL of
// the item the store puts.
type ttlProbe struct {
	dynamostore.API
	ttl string
}

func (p *ttlProbe) PutItem(_ context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if v, ok := in.Item[dynamostore.AttrTTL].(*types.AttributeValueMemberN); ok {
		p.ttl = v.Value
	}
	return &dynamodb.PutItemOutput{}, nil
}

// readStateMachine reads an ASL file of infra/statemachines.
func readStateMachine(t *testing.T, repo, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repo, "infra", "statemachines", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
