package main

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/auth"
)

// TestToken: the edge's own JWT check accepts the token, with issuer and
// audience, and another secret's check does not.
func TestToken(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-secret", "s3cret-s3cret-s3cret", "-teacher", "t-001", "-iss", "https://auth.school.test/", "-aud", "insightedge"}, &out, time.Now); err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/api/health", nil)
	r.Header.Set("Authorization", "Bearer "+strings.TrimSpace(out.String()))
	id, err := auth.JWT{Secret: []byte("s3cret-s3cret-s3cret"), Issuer: "https://auth.school.test/", Audience: "insightedge"}.Authenticate(r)
	if err != nil || id.TeacherID != "t-001" {
		t.Fatalf("Authenticate = %+v, %v", id, err)
	}
	if _, err := (auth.JWT{Secret: []byte("another-secret-entirely")}).Authenticate(r); err == nil {
		t.Error("a token was accepted with another secret")
	}
	if err := run([]string{"-teacher", "t-001"}, &out, time.Now); err == nil {
		t.Error("no secret: want an error")
	}
}
