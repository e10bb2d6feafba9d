package auth_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/auth"
)

var secret = []byte("test-secret-0123456789abcdef0123")

func sign(t *testing.T, method jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// claims returns valid claims for the verifier in TestJWT, changed by edit.
func claims(edit func(jwt.MapClaims)) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{
		"iss":       "insightedge-test",
		"aud":       "teachers",
		"exp":       now.Add(time.Hour).Unix(),
		"iat":       now.Add(-time.Minute).Unix(),
		"teacherId": "t-042",
		"sub":       "user-7",
	}
	if edit != nil {
		edit(c)
	}
	return c
}

func request(authorization string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/api/sessions", nil)
	if authorization != "" {
		r.Header.Set("Authorization", authorization)
	}
	return r
}

// wantUnauthorized checks that err is an AUTH_ERROR answered with 401.
func wantUnauthorized(t *testing.T, err error) {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v (%T), want *apperr.Error", err, err)
	}
	if ae.Code != apperr.AuthError || ae.HTTPStatus() != http.StatusUnauthorized {
		t.Errorf("err = %v with status %d, want AUTH_ERROR 401", err, ae.HTTPStatus())
	}
}

func TestJWT(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	verifier := auth.JWT{Secret: secret, Issuer: "insightedge-test", Audience: "teachers"}
	hs := func(c jwt.MapClaims) string { return "Bearer " + sign(t, jwt.SigningMethodHS256, secret, c) }

	cases := []struct {
		name   string
		v      auth.JWT
		header string
		want   string // teacher id; "" means 401
	}{
		{"teacherId claim", verifier, hs(claims(nil)), "t-042"},
		{"sub when no teacherId", verifier, hs(claims(func(c jwt.MapClaims) { delete(c, "teacherId") })), "user-7"},
		{"sub when teacherId is not a string", verifier, hs(claims(func(c jwt.MapClaims) { c["teacherId"] = 42 })), "user-7"},
		{"configured claim", auth.JWT{Secret: secret, Claim: "tid"}, hs(claims(func(c jwt.MapClaims) { c["tid"] = "t-900" })), "t-900"},
		{"configured claim missing falls back", auth.JWT{Secret: secret, Claim: "tid"}, hs(claims(nil)), "t-042"},
		{"audience among several", verifier, hs(claims(func(c jwt.MapClaims) { c["aud"] = []string{"admins", "teachers"} })), "t-042"},
		{"no issuer or audience required", auth.JWT{Secret: secret}, hs(claims(func(c jwt.MapClaims) { delete(c, "iss"); delete(c, "aud") })), "t-042"},
		{"scheme is case-insensitive", verifier, "bearer " + sign(t, jwt.SigningMethodHS256, secret, claims(nil)), "t-042"},

		{"missing header", verifier, "", ""},
		{"other scheme", verifier, "Basic dXNlcjpwYXNz", ""},
		{"empty bearer", verifier, "Bearer ", ""},
		{"not a JWT", verifier, "Bearer abc.def", ""},
		{"expired", verifier, hs(claims(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Minute).Unix() })), ""},
		{"no expiry", verifier, hs(claims(func(c jwt.MapClaims) { delete(c, "exp") })), ""},
		{"not yet valid", verifier, hs(claims(func(c jwt.MapClaims) { c["nbf"] = time.Now().Add(time.Hour).Unix() })), ""},
		{"wrong signature", verifier, "Bearer " + sign(t, jwt.SigningMethodHS256, []byte("another-secret-another-secret-00"), claims(nil)), ""},
		{"wrong issuer", verifier, hs(claims(func(c jwt.MapClaims) { c["iss"] = "someone-else" })), ""},
		{"missing issuer", verifier, hs(claims(func(c jwt.MapClaims) { delete(c, "iss") })), ""},
		{"wrong audience", verifier, hs(claims(func(c jwt.MapClaims) { c["aud"] = "students" })), ""},
		{"missing audience", verifier, hs(claims(func(c jwt.MapClaims) { delete(c, "aud") })), ""},
		{"alg none", verifier, "Bearer " + sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims(nil)), ""},
		{"RS256", verifier, "Bearer " + sign(t, jwt.SigningMethodRS256, rsaKey, claims(nil)), ""},
		{"HS512 with the right secret", verifier, "Bearer " + sign(t, jwt.SigningMethodHS512, secret, claims(nil)), ""},
		{"issued a day in the future", verifier, hs(claims(func(c jwt.MapClaims) { c["iat"] = time.Now().Add(24 * time.Hour).Unix() })), ""},
		{"expires in 100 years", verifier, hs(claims(func(c jwt.MapClaims) { c["exp"] = time.Now().AddDate(100, 0, 0).Unix() })), ""},
		{"lives longer than the maximum from its iat", auth.JWT{Secret: secret, MaxLife: time.Hour},
			hs(claims(func(c jwt.MapClaims) {
				c["iat"], c["exp"] = time.Now().Add(-3*time.Hour).Unix(), time.Now().Add(30*time.Minute).Unix()
			})), ""},
		{"iat within the clock skew", verifier, hs(claims(func(c jwt.MapClaims) { c["iat"] = time.Now().Add(30 * time.Second).Unix() })), "t-042"},
		{"a configured longer life", auth.JWT{Secret: secret, MaxLife: 72 * time.Hour},
			hs(claims(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(48 * time.Hour).Unix() })), "t-042"},
		{"no teacher id at all", verifier, hs(claims(func(c jwt.MapClaims) { delete(c, "teacherId"); delete(c, "sub") })), ""},
		{"teacher id unsafe for keys", verifier, hs(claims(func(c jwt.MapClaims) { c["teacherId"] = "../t-1" })), ""},
		{"teacher id too long", verifier, hs(claims(func(c jwt.MapClaims) { c["teacherId"] = strings.Repeat("a", 65) })), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id, err := c.v.Authenticate(request(c.header))
			if c.want == "" {
				wantUnauthorized(t, err)
				if id.TeacherID != "" {
					t.Errorf("a rejected token gave teacher %q", id.TeacherID)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if id.TeacherID != c.want || id.Dev {
				t.Errorf("identity = %+v, want teacher %q, verified", id, c.want)
			}
		})
	}
}

func TestNewJWTRefusesWeakSecrets(t *testing.T) {
	for _, s := range []string{"", "secret", strings.Repeat("x", auth.MinSecretLength-1)} {
		if _, err := auth.NewJWT(auth.JWT{Secret: []byte(s)}); !errors.Is(err, auth.ErrWeakSecret) {
			t.Errorf("NewJWT(%d bytes) = %v, want ErrWeakSecret", len(s), err)
		}
	}
	if _, err := auth.NewJWT(auth.JWT{Secret: secret}); err != nil {
		t.Errorf("a 32-byte secret: %v", err)
	}
}

func TestDev(t *testing.T) {
	d := auth.Dev{Default: "t-001"}
	cases := []struct {
		name   string
		header string // X-Teacher-Id
		bearer string // Authorization
		want   string // "" means 401
	}{
		{name: "header", header: "t-123", want: "t-123"},
		{name: "header is trimmed", header: "  t-123 ", want: "t-123"},
		{name: "dev token", bearer: "Bearer dev:t-456", want: "t-456"},
		{name: "header wins over token", header: "t-123", bearer: "Bearer dev:t-456", want: "t-123"},
		{name: "default", want: "t-001"},
		{name: "invalid header", header: "t 1/../x", want: ""},
		{name: "empty dev token: default", bearer: "Bearer dev:", want: "t-001"},
		{name: "invalid id in token", bearer: "Bearer dev:a/b", want: ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := request(c.bearer)
			if c.header != "" {
				r.Header.Set("X-Teacher-Id", c.header)
			}
			id, err := d.Authenticate(r)
			if c.want == "" {
				wantUnauthorized(t, err)
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if id.TeacherID != c.want || !id.Dev {
				t.Errorf("identity = %+v, want teacher %q marked Dev", id, c.want)
			}
		})
	}
}

func TestDevInvalidDefault(t *testing.T) {
	_, err := auth.Dev{Default: "not valid"}.Authenticate(request(""))
	wantUnauthorized(t, err)
}

func TestNewDevWarnsAndDefaults(t *testing.T) {
	var buf bytes.Buffer
	d := auth.NewDev("", slog.New(slog.NewJSONHandler(&buf, nil)))
	if d.Default != "t-001" {
		t.Errorf("default = %q, want t-001", d.Default)
	}
	if !strings.Contains(buf.String(), `"level":"WARN"`) || !strings.Contains(buf.String(), "NOT verified") {
		t.Errorf("log = %q, want a warning that identities are not verified", buf.String())
	}
	if d := auth.NewDev("t-777", slog.New(slog.DiscardHandler)); d.Default != "t-777" {
		t.Errorf("default = %q, want t-777", d.Default)
	}
}

func TestValidTeacherID(t *testing.T) {
	for id, want := range map[string]bool{
		"t-001": true, "T_9.x": true, "a": true, strings.Repeat("a", 64): true,
		"": false, "-lead": false, ".hidden": false, "a/b": false, "a b": false, "教师": false, strings.Repeat("a", 65): false,
	} {
		if got := auth.ValidTeacherID(id); got != want {
			t.Errorf("ValidTeacherID(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestCheck(t *testing.T) {
	id := auth.Identity{TeacherID: "t-1"}
	if err := auth.Check(id, "t-1"); err != nil {
		t.Errorf("own resource: %v", err)
	}
	if err := auth.Check(id, "t-2"); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("other teacher's resource: %v, want ErrForbidden", err)
	}
}
