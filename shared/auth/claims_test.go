package auth_test

import (
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/insightedge/insightedge/shared/auth"
)

// TestSchoolAndRoleClaims (issue 26): the school and the operator role come
// from the token's claims, their names configurable; a malformed school is
// none.
func TestSchoolAndRoleClaims(t *testing.T) {
	cases := []struct {
		name     string
		v        auth.JWT
		edit     func(jwt.MapClaims)
		school   string
		operator bool
	}{
		{"none", auth.JWT{}, nil, "", false},
		{"school and role", auth.JWT{}, func(c jwt.MapClaims) { c["school"] = "sch-1"; c["role"] = "operator" }, "sch-1", true},
		{"roles as a list", auth.JWT{}, func(c jwt.MapClaims) { c["role"] = []any{"teacher", "operator"} }, "", true},
		{"another role", auth.JWT{}, func(c jwt.MapClaims) { c["role"] = "teacher" }, "", false},
		{"claims named", auth.JWT{SchoolClaim: "org", RoleClaim: "roles"},
			func(c jwt.MapClaims) { c["org"] = "sch-2"; c["school"] = "other"; c["roles"] = []any{"operator"} }, "sch-2", true},
		{"malformed school", auth.JWT{}, func(c jwt.MapClaims) { c["school"] = "a/b" }, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := c.v
			v.Secret, v.Issuer, v.Audience = secret, "insightedge-test", "teachers"
			id, err := v.Authenticate(request("Bearer " + sign(t, jwt.SigningMethodHS256, secret, claims(c.edit))))
			if err != nil {
				t.Fatal(err)
			}
			if id.TeacherID != "t-042" || id.School != c.school || id.Operator != c.operator {
				t.Fatalf("identity %+v, want school %q operator %v", id, c.school, c.operator)
			}
		})
	}
	r := request("")
	r.Header.Set("X-School-Id", "sch-9")
	r.Header.Set("X-Role", "operator")
	if id, err := (auth.Dev{Default: "t-001"}).Authenticate(r); err != nil || id.School != "sch-9" || !id.Operator {
		t.Fatalf("dev %+v %v", id, err)
	}
}
