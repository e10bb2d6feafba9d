package edge

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/auth"
	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/blueprint/blueprinttest"
	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/i18n"
)

// The fuzz targets of every request decoder. `go test` runs their seed
// corpus (f.Add and testdata/fuzz); `go test -fuzz=FuzzX ./shared/edge`
// explores. Each asserts the contract: a refusal is a 4xx with a seed code,
// never a panic or a 5xx, and what is accepted keeps the limits.

// clientError fails unless err is nil or a 4xx apperr.
func clientError(t *testing.T, err error) bool {
	t.Helper()
	if err == nil {
		return false
	}
	if s := apperr.As(err).HTTPStatus(); s < 400 || s > 499 {
		t.Fatalf("status %d for %v", s, err)
	}
	return true
}

func post(body []byte) (*httptest.ResponseRecorder, *http.Request) {
	return httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/x", bytes.NewReader(body))
}

func validBlueprintJSON() []byte {
	b, _ := json.Marshal(blueprinttest.Analysis("class-hk-f1a"))
	return b
}

func fuzzConversation(f *testing.F, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		w, r := post(body)
		req, err := decodeRequest(w, r, 64<<10, auth.Identity{TeacherID: "t-001"}, nil)
		if clientError(t, err) {
			return
		}
		if req.Message == "" || !utf8.ValidString(req.Message) || utf8.RuneCountInString(req.Message) > MaxMessageRunes {
			t.Fatalf("accepted message %q", req.Message)
		}
		if !i18n.ValidTag(req.Language) || req.ConversationID != nil && *req.ConversationID != "" && !validID(*req.ConversationID) {
			t.Fatalf("accepted %q %v", req.Language, req.ConversationID)
		}
		// A follow-up's blueprint is accepted only as /api/page/generate
		// would accept it (issue 14 F10).
		if req.page != nil && len(req.page.Blueprint) > 0 {
			bp, err := blueprint.Parse(req.page.Blueprint)
			if err == nil {
				err = blueprint.Validate(bp, nil)
			}
			if err != nil {
				t.Fatalf("accepted an invalid blueprint: %v", err)
			}
		}
	})
}

func FuzzConversationRequest(f *testing.F) {
	fuzzConversation(f, `{"message":"出 5 道题"}`, `{"message":"hi","language":"en","mode":"strict","conversationId":"conv-1"}`,
		`{"message":"  "}`, `{"message":"x","language":"`+string(bytes.Repeat([]byte("a"), 200))+`"}`,
		`{"message":"x","conversationId":"../x"}`, `{"message":1}`, `[]`, `{"message":"\xff"}`, `{"message":"a"}{}`,
		`{"message":"x","context":{"a":[1,{"b":null}]},"blueprint":{"x":1}}`,
		`{"message":"把分析总结改得更简短","blueprint":`+string(validBlueprintJSON())+`,"pageContext":{"meta":{"pageTitle":"1A"},"dataSummary":"均分 72"}}`,
		`{"message":"x","pageContext":{"meta":{"pageTitle":1}}}`)
}

func FuzzUseChatBody(f *testing.F) {
	fuzzConversation(f, `{"id":"chat-1","messages":[{"id":"m1","role":"user","parts":[{"type":"text","text":"hello"}]}],"trigger":"submit-message"}`,
		`{"id":"chat-1","messages":[{"role":"assistant","parts":[{"type":"text","text":"a"}]}]}`,
		`{"id":"../..","messages":[{"role":"user","parts":[{"type":"text","text":"x"}]}]}`,
		`{"messages":[{"role":"user","parts":[{"type":"file","text":"x"},{"type":"text"}]}]}`, `{"messages":null}`)
}

func FuzzBlueprint(f *testing.F) {
	f.Add(validBlueprintJSON())
	f.Add([]byte(`{"name":"x"}`))
	f.Add([]byte(`{"name":"x","language":"` + string(bytes.Repeat([]byte("z"), 200)) + `"}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"dataContract":{"inputs":[{"id":"1"}]},"computeGraph":{"nodes":[{"id":"n","op":"stats","input":"$data.x"}]}}`))
	tools := []string{"get_class_detail", "get_assignment_submissions"}
	f.Fuzz(func(t *testing.T, raw []byte) {
		bp, err := parseBlueprint(raw, tools)
		if clientError(t, err) {
			return
		}
		if !i18n.ValidTag(bp.Language) || bp.Name == "" || utf8.RuneCountInString(bp.Name) > blueprint.MaxTextRunes {
			t.Fatalf("accepted blueprint %q %q", bp.Language, bp.Name)
		}
		if err := blueprint.Validate(bp, tools); err != nil {
			t.Fatalf("accepted, then invalid: %v", err)
		}
	})
}

func FuzzPatchPlan(f *testing.F) {
	f.Add([]byte(`{"scope":"rebuild"}`))
	f.Add([]byte(`{"scope":"patch","instructions":[{"op":"recompose","blockId":"kpis"}]}`))
	f.Add([]byte(`{"scope":"patch","instructions":[{"op":"restyle","blockId":"nope","prompt":"x"}]}`))
	f.Add([]byte(`{"scope":"patch","extra":1}`))
	f.Add([]byte(`{"scope":"patch","instructions":[]}`))
	bp := blueprinttest.Analysis("class-hk-f1a")
	f.Fuzz(func(t *testing.T, raw []byte) {
		var plan blueprint.PatchPlan
		if err := strictJSON(raw, &plan); err != nil {
			return // answered as a BLUEPRINT_ERROR by the route
		}
		clientError(t, blueprint.ValidatePatch(plan, bp))
	})
}

func FuzzSaveApp(f *testing.F) {
	bp := string(validBlueprintJSON())
	f.Add([]byte(`{"name":"1A","blueprint":` + bp + `,"context":{"classId":"class-hk-f1a"},"schedule":{"every":"1h"}}`))
	f.Add([]byte(`{"name":"1A","blueprint":` + bp + `,"schedule":{"every":"1s"}}`))
	f.Add([]byte(`{"name":"","blueprint":` + bp + `,"context":{"classId":7}}`))
	f.Add([]byte(`{"blueprint":{}}`))
	f.Add([]byte(`{"name":"x","blueprint":` + bp + `,"schedule":{"cron":"* * * * *"}}`))
	db, err := boltstore.Open(filepath.Join(f.TempDir(), "a.db"), boltstore.Options{NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = db.Close() })
	mux := http.NewServeMux()
	NewApps(db.Apps(), NewRelay(db.Events(), RelayOptions{}), auth.Dev{Default: "t-001"}, nil, AppsOptions{}).Mount(mux)
	f.Fuzz(func(t *testing.T, body []byte) {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/api/apps", bytes.NewReader(body)))
		var e struct{ Error *struct{ Code string } }
		if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil {
			t.Fatalf("not JSON: %d %q", w.Code, w.Body)
		}
		switch {
		case w.Code == http.StatusCreated:
		case w.Code >= 400 && w.Code < 500 && e.Error != nil && e.Error.Code != "":
		default:
			t.Fatalf("%d %s", w.Code, w.Body)
		}
	})
}

func FuzzResumeCursor(f *testing.F) {
	for _, s := range []string{"", "0", "17", "-1", "1e3", "99999999999999999999", " 5", "0x10", "٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		r := httptest.NewRequest(http.MethodGet, "/x", nil)
		r.Header.Set("Last-Event-ID", v)
		n, err := resumePoint(r)
		if !clientError(t, err) && n < 0 {
			t.Fatalf("cursor %q read as %d", v, n)
		}
	})
}
