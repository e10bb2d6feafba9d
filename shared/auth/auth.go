// Package auth turns a request into a teacher identity: a verified JWT in
// production, or a clearly logged development mode locally.
package auth

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/insightedge/insightedge/shared/apperr"
)

// Identity is who is calling.
type Identity struct {
	TeacherID string
	// School is the teacher's school, from the token's school claim
	// (JWT.SchoolClaim; X-School-Id in development mode); "" when it names
	// none (issue 26: the fair-use limits count such a teacher as their own
	// school).
	School string
	// Operator is true when the token's role claim names "operator"
	// (X-Role: operator in development mode): the fair-use admin routes.
	Operator bool
	// Dev is true when the identity was taken without verification.
	Dev bool
}

// teacherIDPattern keeps ids safe to use in keys and paths; compiled on first
// use, not at start-up (its {0,63} makes a large program).
var teacherIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

// ValidTeacherID reports whether id is a well-formed teacher id.
func ValidTeacherID(id string) bool { return teacherIDPattern().MatchString(id) }

// JWT verifies HS256 bearer tokens: signature, expiry, issuer and audience,
// and that the token is not from the future nor valid for longer than
// MaxLife.
type JWT struct {
	Secret   []byte
	Issuer   string
	Audience string
	// Claim holds the teacher id; default "teacherId", then "sub".
	Claim string
	// SchoolClaim holds the teacher's school [school]; RoleClaim their
	// role, a string or a list of strings [role] (issue 26).
	SchoolClaim string
	RoleClaim   string
	// MaxLife bounds a token's life: its exp may be at most MaxLife after
	// now (and after its iat) [DefaultMaxLife].
	MaxLife time.Duration
	// Skew is the clock difference tolerated on exp, nbf and iat
	// [DefaultSkew].
	Skew time.Duration
	// Now is the clock [time.Now].
	Now func() time.Time
}

// Defaults of JWT's bounds, and the shortest secret NewJWT accepts (HS256
// wants a key as long as its hash: 32 bytes).
const (
	DefaultMaxLife  = 24 * time.Hour
	DefaultSkew     = time.Minute
	MinSecretLength = 32
)

// ErrWeakSecret is NewJWT's refusal of a secret shorter than MinSecretLength.
var ErrWeakSecret = errors.New("auth: the JWT secret is too short")

// NewJWT returns a verifier, refusing a weak secret (at start-up, not at
// the first request).
func NewJWT(j JWT) (JWT, error) {
	if len(j.Secret) < MinSecretLength {
		return j, fmt.Errorf("%w: %d bytes, want at least %d random bytes", ErrWeakSecret, len(j.Secret), MinSecretLength)
	}
	return j, nil
}

// Authenticate implements the edge's Authenticator.
func (j JWT) Authenticate(r *http.Request) (Identity, error) {
	raw, ok := bearer(r)
	if !ok {
		return Identity{}, apperr.New(apperr.AuthError, "missing bearer token").WithStatus(http.StatusUnauthorized)
	}
	now := time.Now
	if j.Now != nil {
		now = j.Now
	}
	maxLife, skew := cmp.Or(j.MaxLife, DefaultMaxLife), cmp.Or(j.Skew, DefaultSkew)
	opts := []jwt.ParserOption{jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(), jwt.WithLeeway(skew), jwt.WithTimeFunc(now)}
	if j.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(j.Issuer))
	}
	if j.Audience != "" {
		opts = append(opts, jwt.WithAudience(j.Audience))
	}
	claims := jwt.MapClaims{}
	if _, err := jwt.ParseWithClaims(raw, claims, func(*jwt.Token) (any, error) { return j.Secret, nil }, opts...); err != nil {
		return Identity{}, apperr.Wrap(err, apperr.AuthError, "invalid token").WithStatus(http.StatusUnauthorized)
	}
	if err := checkLife(claims, now(), maxLife, skew); err != nil {
		return Identity{}, apperr.Wrap(err, apperr.AuthError, "invalid token").WithStatus(http.StatusUnauthorized)
	}
	id := claimString(claims, j.Claim)
	if id == "" {
		id = claimString(claims, "teacherId")
	}
	if id == "" {
		id, _ = claims.GetSubject()
	}
	if !ValidTeacherID(id) {
		return Identity{}, apperr.New(apperr.AuthError, "token has no valid teacher id").WithStatus(http.StatusUnauthorized)
	}
	return Identity{TeacherID: id, School: validSchool(claimString(claims, cmp.Or(j.SchoolClaim, "school"))),
		Operator: hasRole(claims[cmp.Or(j.RoleClaim, "role")], RoleOperator)}, nil
}

// RoleOperator is the role of an operator (issue 26: the fair-use admin
// routes).
const RoleOperator = "operator"

// hasRole reports whether a role claim (a string or a list) names role.
func hasRole(claim any, role string) bool {
	switch v := claim.(type) {
	case string:
		return v == role
	case []any:
		for _, r := range v {
			if r == role {
				return true
			}
		}
	}
	return false
}

// validSchool is s if it is a well-formed id (as a teacher id), else "":
// a school id goes into keys.
func validSchool(s string) string {
	if !ValidTeacherID(s) {
		return ""
	}
	return s
}

// checkLife refuses a token that lives longer than maxLife: from now, or
// from its iat when it has one.
func checkLife(c jwt.MapClaims, now time.Time, maxLife, skew time.Duration) error {
	exp, err := c.GetExpirationTime()
	if err != nil || exp == nil {
		return errors.New("no expiry")
	}
	if exp.Sub(now) > maxLife+skew {
		return fmt.Errorf("the token expires in %v, more than the %v allowed", exp.Sub(now).Round(time.Second), maxLife)
	}
	if iat, err := c.GetIssuedAt(); err == nil && iat != nil && exp.Sub(iat.Time) > maxLife+skew {
		return fmt.Errorf("the token lives %v, more than the %v allowed", exp.Sub(iat.Time).Round(time.Second), maxLife)
	}
	return nil
}

func claimString(c jwt.MapClaims, name string) string {
	if name == "" {
		return ""
	}
	s, _ := c[name].(string)
	return s
}

// Dev is the local development mode: the teacher id comes from the
// X-Teacher-Id header, or a "Bearer dev:<id>" token, or Default. Nothing is
// verified, which is why New logs it loudly.
type Dev struct {
	Default string
}

// NewDev returns the development authenticator and logs that it is in use.
func NewDev(def string, log *slog.Logger) Dev {
	if def == "" {
		def = "t-001"
	}
	log.Warn("auth: development mode, identities are NOT verified (set AUTH_JWT_SECRET to require tokens)", "defaultTeacher", def)
	return Dev{Default: def}
}

// Authenticate implements the edge's Authenticator.
func (d Dev) Authenticate(r *http.Request) (Identity, error) {
	id := strings.TrimSpace(r.Header.Get("X-Teacher-Id"))
	if id == "" {
		if raw, ok := bearer(r); ok && strings.HasPrefix(raw, "dev:") {
			id = strings.TrimPrefix(raw, "dev:")
		}
	}
	if id == "" {
		id = d.Default
	}
	if !ValidTeacherID(id) {
		return Identity{}, apperr.New(apperr.AuthError, "invalid teacher id %q", id).WithStatus(http.StatusUnauthorized)
	}
	return Identity{TeacherID: id, Dev: true, School: validSchool(strings.TrimSpace(r.Header.Get("X-School-Id"))),
		Operator: strings.TrimSpace(r.Header.Get("X-Role")) == RoleOperator}, nil
}

func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	const p = "Bearer "
	if len(h) <= len(p) || !strings.EqualFold(h[:len(p)], p) {
		return "", false
	}
	return strings.TrimSpace(h[len(p):]), true
}

// ErrForbidden is returned by Check when a resource belongs to another teacher.
var ErrForbidden = errors.New("auth: resource belongs to another teacher")

// Check returns ErrForbidden unless owner is the identity's teacher.
func Check(id Identity, owner string) error {
	if id.TeacherID != owner {
		return fmt.Errorf("%w", ErrForbidden)
	}
	return nil
}
