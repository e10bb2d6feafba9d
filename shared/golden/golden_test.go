package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of reporting
// them, so that Check's own failures can be tested.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(string, ...any) { r.failed = true }

func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "out.golden")
	steps := []struct {
		name       string
		got        string
		update     bool
		wantFailed bool
	}{
		{"no golden file yet", "a\n", false, true},
		{"written with update", "a\n", true, false},
		{"the same output", "a\n", false, false},
		{"another output", "b\n", false, true},
	}
	for _, st := range steps {
		r := &recorder{TB: t}
		Check(r, path, []byte(st.got), st.update)
		if r.failed != st.wantFailed {
			t.Errorf("%s: failed %v, want %v", st.name, r.failed, st.wantFailed)
		}
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "a\n" {
		t.Errorf("golden file %q, %v; want the output written with update", b, err)
	}
}

func TestJSON(t *testing.T) {
	got := string(JSON(t, map[string]any{"a": "<b> & c", "n": []int{1}}))
	want := "{\n  \"a\": \"<b> & c\",\n  \"n\": [\n    1\n  ]\n}\n"
	if got != want {
		t.Errorf("JSON = %q, want %q", got, want)
	}
}
