package standin_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/local/standin"
)

func TestWriteJSONLeavesHTMLAsItIs(t *testing.T) {
	w := httptest.NewRecorder()
	standin.WriteJSON(w, http.StatusOK, map[string]string{"content": "<p>a & b</p>"})
	if got, want := w.Body.String(), `{"content":"<p>a & b</p>"}`+"\n"; got != want {
		t.Errorf("body %q, want %q", got, want)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
}

func TestReadJSON(t *testing.T) {
	tests := []struct {
		name, body string
		ok         bool
		wantBody   string // the 400's body when !ok
	}{
		{"a known field", `{"status":503}`, true, ""},
		{"an unknown field", `{"status":503,"colour":"red"}`, false, `{"error":"json: unknown field \"colour\""}` + "\n"},
		{"not JSON", `<soon>`, false, `{"error":"invalid character '<' looking for beginning of value"}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v struct {
				Status int `json:"status"`
			}
			w := httptest.NewRecorder()
			r := httptest.NewRequest(http.MethodPut, "/__x/fault", strings.NewReader(tt.body))
			if got := standin.ReadJSON(w, r, &v); got != tt.ok {
				t.Fatalf("ReadJSON = %v, want %v", got, tt.ok)
			}
			if tt.ok {
				if v.Status != 503 || w.Body.Len() != 0 {
					t.Errorf("decoded %+v, answered %q", v, w.Body)
				}
				return
			}
			if w.Code != http.StatusBadRequest || w.Body.String() != tt.wantBody {
				t.Errorf("answered %d %q, want 400 %q", w.Code, w.Body, tt.wantBody)
			}
		})
	}
}
