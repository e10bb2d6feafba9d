package e2e

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestHeartbeat(t *testing.T) {
	s := NewLocal(t, map[string]string{"SSE_HEARTBEAT": "20ms"})
	st := postStream(t, s.URL, `{"message":"What is photosynthesis? [[offline:slow]]"}`)
	if st.Comment == 0 {
		t.Fatalf("no ': ping' comment in a slow stream:\n%s", st.Raw)
	}
	if !bytes.Contains(st.Raw, []byte("\n: ping\n")) && !bytes.HasPrefix(st.Raw, []byte(": ping\n")) {
		t.Fatalf("heartbeat is not the ': ping' comment")
	}
	aiSDK(t, st.Raw)
}

func TestRestartKeepsConversations(t *testing.T) {
	dir := t.TempDir()
	s1 := startIn(t, dir)
	st := postStream(t, s1.URL, `{"message":"出 5 道牛顿第一定律的选择题"}`)
	conv := st.Header.Get("X-Conversation-Id")
	if err := s1.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	s2 := newLocalIn(t, dir, nil)
	var got struct{ Messages []map[string]any }
	if code := GetJSON(t, s2.URL+"/api/conversation/"+conv+"/messages", &got); code != 200 || len(got.Messages) != 2 {
		t.Fatalf("after a restart: %d, %d messages", code, len(got.Messages))
	}
	// And the conversation goes on.
	next := postStream(t, s2.URL, `{"message":"再出 3 道","conversationId":"`+conv+`"}`)
	if n := len(next.data(t, "data-quiz-question")); n != 3 {
		t.Fatalf("follow-up after restart made %d questions", n)
	}
}

func TestJWTMode(t *testing.T) {
	secret := "a-test-secret-of-sufficient-length"
	s := NewLocal(t, map[string]string{"AUTH_JWT_SECRET": secret, "AUTH_JWT_ISSUER": "insight-auth"})
	sign := func(claims jwt.MapClaims) string {
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(secret))
		if err != nil {
			t.Fatal(err)
		}
		return "Bearer " + tok
	}
	exp := time.Now().Add(time.Hour).Unix()
	cases := []struct {
		name   string
		auth   string
		status int
	}{
		{"no token", "", 401},
		{"dev token refused", "Bearer dev:t-001", 401},
		{"wrong issuer", sign(jwt.MapClaims{"teacherId": "t-001", "iss": "other", "exp": exp}), 401},
		{"expired", sign(jwt.MapClaims{"teacherId": "t-001", "iss": "insight-auth", "exp": time.Now().Add(-time.Minute).Unix()}), 401},
		{"valid", sign(jwt.MapClaims{"teacherId": "t-001", "iss": "insight-auth", "exp": exp}), 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := postStream(t, s.URL, `{"message":"你好"}`, "Authorization", c.auth, "X-Teacher-Id", "t-001")
			if st.Status != c.status {
				t.Fatalf("status %d, want %d: %s", st.Status, c.status, st.Raw)
			}
		})
	}
}
