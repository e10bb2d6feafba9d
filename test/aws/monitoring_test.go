package awstest

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/agent"
	"github.com/insightedge/insightedge/shared/edge"
	"github.com/insightedge/insightedge/shared/javaapi"
	"github.com/insightedge/insightedge/shared/llm"
)

// issue28Metrics are the metrics of seed 004 §4.2 that the code writes as
// EMF lines through obs.Metric, named by the constants it writes them
// with (their packages' tests read the names back from the lines).
var issue28Metrics = []string{
	llm.MetricModelCall, llm.MetricModelLatency,
	javaapi.MetricJavaCall, javaapi.MetricJavaLatency, javaapi.MetricBreakerState, javaapi.MetricBreakerOpen,
	edge.MetricActiveStreams,
	agent.MetricSafetyFlag, agent.MetricCapabilityPaused, agent.MetricRolloutFallback,
}

// dashboardMetrics returns the metrics the dashboard reads, as
// "namespace/name": its metric rows and its SEARCH expressions.
func dashboardMetrics(t *testing.T, tp template) map[string]bool {
	t.Helper()
	body, _ := tp.properties("Dashboard")["DashboardBody"].(string)
	body = regexp.MustCompile(`\$\{[^}]+\}`).ReplaceAllString(strings.TrimPrefix(body, "sub:"), "1")
	var dash struct {
		Widgets []struct{ Properties struct{ Metrics [][]any } }
	}
	if err := json.Unmarshal([]byte(body), &dash); err != nil {
		t.Fatalf("DashboardBody is not JSON: %v", err)
	}
	search := regexp.MustCompile(`SEARCH\('\{([^,}]+)[^}]*\} MetricName="([^"]+)"`)
	out := map[string]bool{}
	for _, w := range dash.Widgets {
		for _, row := range w.Properties.Metrics {
			if len(row) >= 2 {
				if ns, ok := row[0].(string); ok {
					name, _ := row[1].(string)
					out[ns+"/"+name] = true
				}
			}
			opts, _ := row[len(row)-1].(map[string]any)
			if e, ok := opts["expression"].(string); ok {
				for _, m := range search.FindAllStringSubmatch(e, -1) {
					out[m[1]+"/"+m[2]] = true
				}
			}
		}
	}
	return out
}

// TestSeed004Monitoring (issue 28): the alarms of seed 004 §4.2 exist and
// notify the alarm topic; every metric an alarm reads is on the dashboard;
// and every InsightEdge metric the dashboard or any alarm names is one the
// code writes.
func TestSeed004Monitoring(t *testing.T) {
	repo := repoRoot(t)
	tp := openTemplate(t, repo)
	emitted := emittedMetrics(t, repo)
	dash := dashboardMetrics(t, tp)
	for m := range dash {
		if name, ok := strings.CutPrefix(m, "InsightEdge/"); ok && !emitted[name] {
			t.Errorf("the dashboard reads %s, which no code writes", m)
		}
	}
	as := alarms(tp)
	read := func(a alarm) []string {
		var out []string
		if a.metric != "" {
			out = append(out, a.namespace+"/"+a.metric)
		}
		for _, m := range a.metrics {
			ns, _ := m["Namespace"].(string)
			name, _ := m["MetricName"].(string)
			out = append(out, ns+"/"+name)
		}
		return out
	}
	for _, a := range as {
		for _, m := range read(a) {
			if name, ok := strings.CutPrefix(m, "InsightEdge/"); ok && !emitted[name] {
				t.Errorf("%s reads %s, which no code writes", a.name, m)
			}
		}
	}
	want := map[string][]string{
		"JavaBreakerOpenAlarm":    {"InsightEdge/" + javaapi.MetricBreakerOpen},
		"JavaSuccessRateAlarm":    {"InsightEdge/" + javaapi.MetricJavaCall},
		"ModelSuccessRateAlarm":   {"InsightEdge/" + llm.MetricModelCall},
		"ModelLatencyAlarm":       {"InsightEdge/" + llm.MetricModelLatency},
		"StreamFirstTextP99Alarm": {"InsightEdge/" + edge.MetricTimeToFirstText},
		"ApiLatencyP99Alarm":      {"AWS/ApiGateway/Latency"},
		"Http5xxRateAlarm":        {"AWS/ApiGateway/5xx", "AWS/ApiGateway/Count", "AWS/Lambda/Url5xxCount", "AWS/Lambda/UrlRequestCount"},
	}
	for name, metrics := range want {
		i := slices.IndexFunc(as, func(a alarm) bool { return a.name == name })
		if i < 0 {
			t.Errorf("no %s", name)
			continue
		}
		a := as[i]
		if !slices.Equal(a.actions, []string{"ref:AlarmTopic"}) {
			t.Errorf("%s notifies %v, want the alarm topic", name, a.actions)
		}
		got := read(a)
		for _, m := range metrics {
			if !slices.Contains(got, m) {
				t.Errorf("%s reads %v, want %s", name, got, m)
			}
			if !dash[m] {
				t.Errorf("%s's metric %s is not on the dashboard", name, m)
			}
		}
	}
	if !dash["InsightEdge/"+edge.MetricActiveStreams] || !dash["InsightEdge/"+javaapi.MetricBreakerState] {
		t.Error("the dashboard shows no active-stream gauge or breaker state")
	}
}
