package guide

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/tools"
)

func TestGuideUser(t *testing.T) {
	tool := Tool()
	if tool.Artifact() || tool.Kind != tools.Guidance || len(tool.Emits) != 1 || tool.Emits[0] != protocol.DataGuide {
		t.Fatalf("guide_user facts: kind %v emits %v artifact %v", tool.Kind, tool.Emits, tool.Artifact())
	}
	cases := []struct {
		name    string
		args    string
		wantErr bool
		want    string
	}{
		{"guidance", `{"message":" 我可以帮你查看班级成绩。 ","missing":["班级",""],"suggestions":["查看 1A 班的作业提交","出 5 道题","查看 1A 班的作业提交"]}`, false,
			`{"type":"data-guide","id":"call_1","data":{"message":"我可以帮你查看班级成绩。","missing":["班级"],"suggestions":["查看 1A 班的作业提交","出 5 道题"]}}`},
		{"no missing facts", `{"message":"Hi!","suggestions":["a","b","c","d"]}`, false,
			`{"type":"data-guide","id":"call_1","data":{"message":"Hi!","missing":[],"suggestions":["a","b","c","d"]}}`},
		{"one suggestion", `{"message":"Hi","suggestions":["a"]}`, true, ""},
		{"five suggestions", `{"message":"Hi","suggestions":["a","b","c","d","e"]}`, true, ""},
		{"no message", `{"message":" ","suggestions":["a","b"]}`, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			call := tools.Call{CallID: "call_1", Emit: func(_ context.Context, ch protocol.Chunk) error {
				b, err := protocol.MarshalChunk(ch)
				got = append(got, string(b))
				return err
			}}
			res, err := tool.Run(context.Background(), call, json.RawMessage(c.args))
			if c.wantErr {
				var ae *tools.ArgumentError
				if !errors.As(err, &ae) || len(got) != 0 {
					t.Fatalf("err %v, emitted %v; want an argument error and nothing shown", err, got)
				}
				return
			}
			if err != nil || len(got) != 1 || got[0] != c.want {
				t.Fatalf("err %v, emitted %v\nwant %s", err, got, c.want)
			}
			if res.Status != protocol.ToolSuccess || res.Message == "" || !res.Output.(Output).Shown {
				t.Errorf("result %+v", res)
			}
		})
	}
}
