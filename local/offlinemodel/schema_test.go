package offlinemodel

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestArgsForFollowTheRequestsSchema(t *testing.T) {
	const params = `{"type":"object","properties":{
		"classId":{"type":"string"},
		"term":{"type":"string","enum":["autumn","spring"]},
		"limit":{"type":"integer","minimum":3},
		"refresh":{"type":"boolean"},
		"topic":{"type":"string"}},
		"required":["classId","term","limit"]}`
	tests := []struct {
		name     string
		params   string
		scripted map[string]any
		want     map[string]any
	}{
		{"scripted values kept, undeclared dropped, required filled",
			params, map[string]any{"classId": "1A", "skill": "grammar"},
			map[string]any{"classId": "1A", "term": "autumn", "limit": 3.0, "topic": "photosynthesis"}},
		{"an enum value the schema lacks is replaced",
			params, map[string]any{"classId": "1A", "term": "winter", "limit": 5},
			map[string]any{"classId": "1A", "term": "autumn", "limit": 5, "topic": "photosynthesis"}},
		{"no schema: the script as it is",
			"", map[string]any{"classId": "1A", "skill": "grammar"},
			map[string]any{"classId": "1A", "skill": "grammar"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tool wireTool
			tool.Function.Name = "lookup"
			tool.Function.Parameters = json.RawMessage(tt.params)
			req := &chatRequest{
				Messages: []wireMessage{{Role: "user", Content: "explain photosynthesis for 1A"}},
				Tools:    []wireTool{tool},
			}
			c := newCall(req, toolChoice{Mode: "auto"})
			if got := c.argsFor("lookup", tt.scripted, nil); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("argsFor = %#v, want %#v", got, tt.want)
			}
		})
	}
}
