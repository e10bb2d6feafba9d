package auth_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/auth"
)

// FuzzJWTClaims signs any claims payload with the right secret: a token
// is either refused with a 401, or names a valid teacher and lives no
// longer than the maximum (its exp is checked against the clock).
func FuzzJWTClaims(f *testing.F) {
	now := time.Now().Unix()
	for _, c := range []string{
		`{"teacherId":"t-1","exp":` + itoa(now+3600) + `}`,
		`{"sub":"t-1","exp":` + itoa(now+3600) + `,"iat":` + itoa(now+86400) + `}`,
		`{"teacherId":"t-1","exp":` + itoa(now+100*365*86400) + `}`,
		`{"teacherId":"t-1","exp":"soon"}`, `{"teacherId":["t"],"exp":1e300}`, `{"teacherId":"../x","exp":` + itoa(now+60) + `}`,
		`{"exp":-1}`, `[]`, `null`, `{"teacherId":"t-1","exp":` + itoa(now+60) + `,"nbf":` + itoa(now+7200) + `}`,
	} {
		f.Add([]byte(c))
	}
	v := auth.JWT{Secret: secret}
	f.Fuzz(func(t *testing.T, claims []byte) {
		r := httptest.NewRequest(http.MethodGet, "/x", nil)
		r.Header.Set("Authorization", "Bearer "+signRaw(`{"alg":"HS256","typ":"JWT"}`, claims))
		id, err := v.Authenticate(r)
		if err != nil {
			if s := apperr.As(err).HTTPStatus(); s != http.StatusUnauthorized {
				t.Fatalf("status %d for %v", s, err)
			}
			return
		}
		if !auth.ValidTeacherID(id.TeacherID) || id.Dev {
			t.Fatalf("accepted %+v from %s", id, claims)
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// signRaw signs a header and a payload as they are, so that the fuzzer
// reaches the claims decoding with a valid signature.
func signRaw(header string, payload []byte) string {
	enc := base64.RawURLEncoding
	s := enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString(payload)
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(s))
	return s + "." + enc.EncodeToString(m.Sum(nil))
}
