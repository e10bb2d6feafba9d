package javaapitest_test

import (
	"net/http/httptest"
	"testing"

	"github.com/insightedge/insightedge/shared/javaapi/javaapitest"
	"github.com/insightedge/insightedge/shared/javaapi/javaapitest/seedjava"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
	"github.com/insightedge/insightedge/shared/javaapi/mockserver"
)

// The project's mock passes the contract.
func TestMockServer(t *testing.T) {
	javaapitest.Run(t, func(t *testing.T) javaapitest.Target {
		srv := mockserver.New(mockdata.Default(), mockserver.Options{Token: "tok"})
		hs := httptest.NewServer(srv)
		t.Cleanup(hs.Close)
		return javaapitest.Target{BaseURL: hs.URL, Token: "tok", Teacher: "t-001", OtherClass: "class-hk-f2a",
			HealthPath: mockserver.HealthPath, Requests: func() []string {
				var out []string
				for _, r := range srv.Requests() {
					out = append(out, r.Path)
				}
				return out
			}}
	})
}

// A service written from seed 004 §2 alone, with its own choices where the
// seed leaves shapes open, passes it too.
func TestSeedStandIn(t *testing.T) {
	javaapitest.Run(t, func(t *testing.T) javaapitest.Target {
		srv := seedjava.New()
		hs := httptest.NewServer(srv)
		t.Cleanup(hs.Close)
		return javaapitest.Target{BaseURL: hs.URL, Token: seedjava.Token, Teacher: "t-100", OtherClass: "class-5501",
			HealthPath: seedjava.HealthPath, Requests: seedPaths(srv)}
	})
}

// The suite can fail: a stand-in with a defect fails the check it breaks.
func TestSuiteCatchesDefects(t *testing.T) {
	tests := []struct {
		name    string
		defects seedjava.Defects
		check   string
	}{
		{"class fields missing", seedjava.Defects{ClassFieldsMissing: true}, "classes are complete and the teacher's"},
		{"nameless student", seedjava.Defects{NamelessStudent: true}, "classes, rosters, assignments and submissions agree"},
		{"no max score", seedjava.Defects{NoMaxScore: true}, "classes, rosters, assignments and submissions agree"},
		{"code as a string", seedjava.Defects{CodeAsString: true}, "classes are complete and the teacher's"},
		{"down", seedjava.Defects{Down: true}, "health probe"},
	}
	t.Run("a made-up teacher", func(t *testing.T) {
		srv := seedjava.New()
		hs := httptest.NewServer(srv)
		defer hs.Close()
		// A service whose log shows a request as teacher health-check
		// during the probe (what the old probe did).
		paths := seedPaths(srv)
		got := javaapitest.Failures(javaapitest.Target{BaseURL: hs.URL, Token: seedjava.Token, Teacher: "t-100", OtherClass: "class-5501",
			HealthPath: seedjava.HealthPath, Requests: func() []string {
				return append(paths(), "/api/dify/teacher/health-check/classes/me")
			}})
		if len(got["health probe"]) == 0 {
			t.Errorf("a request as a made-up teacher passed; failures: %v", got)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := seedjava.New()
			srv.SetDefects(tt.defects)
			hs := httptest.NewServer(srv)
			defer hs.Close()
			got := javaapitest.Failures(javaapitest.Target{BaseURL: hs.URL, Token: seedjava.Token, Teacher: "t-100", OtherClass: "class-5501",
				HealthPath: seedjava.HealthPath, Requests: seedPaths(srv)})
			if len(got[tt.check]) == 0 {
				t.Errorf("check %q passed a service with %s; failures: %v", tt.check, tt.name, got)
			}
		})
	}
}

func seedPaths(srv *seedjava.Server) func() []string {
	return func() []string {
		var out []string
		for _, r := range srv.Requests() {
			out = append(out, r.Path)
		}
		return out
	}
}
