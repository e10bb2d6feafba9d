package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestChatCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	env := map[string]string{"DATA_DIR": t.TempDir()}
	err := run(context.Background(), []string{"chat", "出 5 道牛顿第一定律的选择题", "再出 3 道"}, &out, &errOut, func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("chat: %v\n%s", err, errOut.String())
	}
	got := out.String()
	for _, want := range []string{"› 出 5 道牛顿第一定律的选择题", "✓ generate_quiz_questions", "Q5.", "answer:", "› 再出 3 道", "[conversation conv-"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "[conversation ") != 2 || strings.Count(got, "Q3.") != 2 {
		t.Errorf("want two turns (5 then 3 questions) in one conversation:\n%s", got)
	}
}

func TestHeartbeat(t *testing.T) {
	s := newLocal(t, map[string]string{"SSE_HEARTBEAT": "20ms"})
	st := postStream(t, s.URL, `{"message":"What is photosynthesis? [[offline:slow]]"}`)
	if st.Comment == 0 {
		t.Fatalf("no ': ping' comment in a slow stream:\n%s", st.Raw)
	}
	if !bytes.Contains(st.Raw, []byte("\n: ping\n")) && !bytes.HasPrefix(st.Raw, []byte(": ping\n")) {
		t.Fatalf("heartbeat is not the ': ping' comment")
	}
	aiSDK(t, st.Raw)
}
