package javaapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/javaapi/internal/jsonread"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
)

// The contract of the fast decoding (decode.go): for every body, the
// outcome (code, message, data, error) is encoding/json's. These tests
// check it for each endpoint's data type, and that the fast path does take
// the answers the service sends (else it would be correct but slow).

// decodeCase is one endpoint's decoding: check decodes body both ways,
// reports a difference, and tells whether the fast path read it.
type decodeCase struct {
	name  string
	check func(t *testing.T, body string) (fast bool)
	// full are Results whose data sets every member of the DTOs.
	full []string
}

func decodeCases() []decodeCase {
	return []decodeCase{
		{"classes", sameAsJSON(listOf((*classDTO).read)), fullResults[[]classDTO]()},
		{"class", sameAsJSON((*classDTO).read), fullResults[classDTO]()},
		{"assignments", sameAsJSON(listOf((*assignmentDTO).read)), fullResults[[]assignmentDTO]()},
		{"assignment submissions", sameAsJSONObjectOrArray((*assignmentSubmissionsDTO).read, readSubmissions),
			append(fullResults[assignmentSubmissionsDTO](), fullResults[[]submissionDTO]()...)},
		{"student submissions", sameAsJSONObjectOrArray((*studentSubmissionsDTO).read, readSubmissions),
			append(fullResults[studentSubmissionsDTO](), fullResults[[]submissionDTO]()...)},
		{"documents", sameAsJSON(listOf((*documentDTO).read)), fullResults[[]documentDTO]()},
		{"rubrics", sameAsJSON(listOf((*rubricDTO).read)), fullResults[[]rubricDTO]()},
		{"rubric", sameAsJSON((*rubricDTO).read), fullResults[rubricDTO]()},
		{"error patterns", sameAsJSON(listOf((*errorPatternDTO).read)), fullResults[[]errorPatternDTO]()},
	}
}

// sameAsJSON checks decodeResult against encoding/json.
func sameAsJSON[T any](read reader[T]) func(*testing.T, string) bool {
	return func(t *testing.T, body string) bool {
		t.Helper()
		var want resultOf[T]
		werr := json.Unmarshal([]byte(body), &want)
		var got T
		code, msg, err := decodeResult(body, read, &got)
		if d := diffOutcome(code, msg, err, want.Code, want.Message, werr); d != "" {
			t.Errorf("%s\n%s", body, d)
		} else if !reflect.DeepEqual(got, want.Data) {
			t.Errorf("%s\ndata = %+v\nencoding/json: %+v", body, got, want.Data)
		}
		var probe T
		_, _, ferr := readResult(body, func(r *jsonread.Reader) { read(&probe, r) })
		return ferr == nil
	}
}

// sameAsJSONObjectOrArray checks decodeObjectOrArray against
// unmarshalObjectOrArray (encoding/json).
func sameAsJSONObjectOrArray[O, A any](readObj reader[O], readArr reader[A]) func(*testing.T, string) bool {
	return func(t *testing.T, body string) bool {
		t.Helper()
		var (
			wantObj, gotObj O
			wantArr, gotArr A
		)
		wcode, wmsg, werr := unmarshalObjectOrArray([]byte(body), &wantObj, &wantArr)
		code, msg, err := decodeObjectOrArray(body, readObj, readArr, &gotObj, &gotArr)
		if d := diffOutcome(code, msg, err, wcode, wmsg, werr); d != "" {
			t.Errorf("%s\n%s", body, d)
		} else if !reflect.DeepEqual(gotObj, wantObj) || !reflect.DeepEqual(gotArr, wantArr) {
			t.Errorf("%s\ndata = %+v / %+v\nencoding/json: %+v / %+v", body, gotObj, gotArr, wantObj, wantArr)
		}
		var (
			probeObj O
			probeArr A
		)
		_, _, ferr := readResult(body, readObjectOrArray(readObj, readArr, &probeObj, &probeArr))
		return ferr == nil
	}
}

func diffOutcome(code *int, msg string, err error, wcode *int, wmsg string, werr error) string {
	show := func(c *int) string {
		if c == nil {
			return "<nil>"
		}
		return fmt.Sprint(*c)
	}
	if show(code) != show(wcode) || msg != wmsg || fmt.Sprint(err) != fmt.Sprint(werr) {
		return fmt.Sprintf("code %s, message %q, err %v\nencoding/json: code %s, message %q, err %v",
			show(code), msg, err, show(wcode), wmsg, werr)
	}
	return ""
}

// fullResults returns Results whose data, of type T, has every member of
// the DTOs set (identifiers as strings, then as numbers), plus an unknown
// member: a field that a read method forgot shows as a difference.
func fullResults[T any]() []string {
	var out []string
	for _, numericIDs := range []bool{false, true} {
		data := fullJSON(reflect.TypeFor[T](), "", numericIDs)
		out = append(out, `{"code":200,"message":"success","data":`+data+`,"timestamp":"2025-09-24T13:13:00"}`)
	}
	return out
}

func fullJSON(t reflect.Type, name string, numericIDs bool) string {
	switch {
	case t == reflect.TypeFor[flexID]() && numericIDs:
		return fmt.Sprint(len(name) * 1001)
	case t.Kind() == reflect.String:
		return fmt.Sprintf("%q", name+" value é")
	case t.Kind() == reflect.Float64:
		return "12.5"
	case t.Kind() == reflect.Int:
		return "7"
	case t.Kind() == reflect.Pointer:
		return fullJSON(t.Elem(), name, numericIDs)
	case t.Kind() == reflect.Slice:
		e := fullJSON(t.Elem(), name, numericIDs)
		return "[" + e + "," + e + "]"
	case t.Kind() == reflect.Struct:
		var members []string
		for f := range t.Fields() {
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tag == "" || tag == "-" {
				panic(fmt.Sprintf("%s.%s has no JSON name", t, f.Name))
			}
			members = append(members, fmt.Sprintf("%q:%s", tag, fullJSON(f.Type, tag, numericIDs)))
		}
		members = append(members, `"unknown_member":{"a":[1,true,null,"x"]}`)
		return "{" + strings.Join(members, ",") + "}"
	}
	panic(fmt.Sprintf("no JSON for %s", t))
}

// mockResults are Results built from the mock data as the mock server
// builds them (it cannot be imported here: it imports this package), by
// the name of the decode case that reads them.
func mockResults(t testing.TB) map[string][]string {
	d := mockdata.Default()
	a, _ := d.Assignment("a-f1a-01")
	c, _ := d.Class("class-hk-f1a")
	st, _ := d.Student("s-f1a-01")
	type summary struct {
		UID     string `json:"uid"`
		Title   string `json:"title"`
		Subject string `json:"subject"`
	}
	var rubrics []summary
	for _, rb := range d.Rubrics {
		rubrics = append(rubrics, summary{rb.UID, rb.Title, rb.Subject})
	}
	data := map[string][]any{
		"classes": {d.ClassesOf("t-001")},
		"class": {struct {
			mockdata.Class
			Students []mockdata.Student `json:"students"`
		}{c, d.StudentsOf(c.UID)}},
		"assignments": {d.AssignmentsOf(c.UID)},
		"assignment submissions": {struct {
			UID         string                `json:"uid"`
			Title       string                `json:"title"`
			MaxScore    float64               `json:"max_score"`
			ClassID     string                `json:"class_id"`
			Submissions []mockdata.Submission `json:"submissions"`
		}{a.UID, a.Title, a.MaxScore, a.ClassID, d.SubmissionsOf(a.UID)}, d.SubmissionsOf(a.UID)},
		"student submissions": {struct {
			StudentID   string                `json:"student_id"`
			StudentName string                `json:"student_name"`
			Submissions []mockdata.Submission `json:"submissions"`
		}{st.UID, st.Name, d.SubmissionsBy(st.UID)}, d.SubmissionsBy(st.UID)},
		"documents":      {d.SearchDocuments("t-001", "subject-verb agreement")},
		"rubrics":        {rubrics},
		"rubric":         {d.Rubrics[0]},
		"error patterns": {d.ErrorPatternsOf(st.UID)},
	}
	// Each answer as the mock server writes it, then with "&" and the
	// like escaped (encoding/json's default), so with escapes in strings.
	out := map[string][]string{}
	for name, vs := range data {
		for _, v := range vs {
			for _, escapeHTML := range []bool{false, true} {
				var b strings.Builder
				enc := json.NewEncoder(&b)
				enc.SetEscapeHTML(escapeHTML)
				if err := enc.Encode(map[string]any{"code": 200, "message": "success", "data": v, "timestamp": "2026-01-01T00:00:00"}); err != nil {
					t.Fatal(err)
				}
				out[name] = append(out[name], b.String())
			}
		}
	}
	return out
}

// edgeResults are bodies the service should not send but might: each must
// decode as encoding/json decodes it, by the fast path or not.
func edgeResults() []string {
	return []string{
		`{"code":200,"message":"success","data":[{"id":123,"name":"X","student_count":null}]}`,
		`{"code":200,"message":"success","data":[{"uid":" padded ","class_id":null,"id":-1.5e3}]}`,
		`{"code":200,"message":"success","data":[{"uid":"class\u002dx","name":"a\"b\\c\n"}]}`,
		`{"code":200,"message":"success","data":[{"UID":"upper","Name":"N","Student_Count":3,"Other":1}]}`,
		`{"code":200,"message":"success","data":[{"uid":"a","uid":"b"}]}`,
		`{"code":200,"message":"success","data":[{"uid":true}]}`,
		`{"code":200,"message":"success","data":[{"uid":{}}]}`,
		`{"code":200,"message":"success","data":[{"nam\u0065":"escaped key","uid":"1"}]}`,
		`{"code":200,"message":"success","data":[{"K":"kelvin","uid":"1"}]}`,
		"{\"code\":200,\"message\":\"bad \xff utf-8\",\"data\":[{\"name\":\"\xfe\",\"uid\":\"\xfd\"}]}",
		`{"code":200,"message":"success","data":{"uid":"a","submissions":[{"student_id":"s","skills":{"grammar":1}}],"submissions":[{"score":2}]}}`,
		`{"code":200,"message":"success","data":{"submissions":[{"student_id":"s","skills":{"grammar":1},"skills":{"reading":2}}]}}`,
		`{"code":200,"message":"success","data":{"submissions":[{"skills":{"grammar":1},"skills":null}]}}`,
		`{"code":200,"message":"success","data":[{"skills":"x"}]}`,
		`{"code":200,"message":"success","data":[{"score":"1"}]}`,
		`{"code":200,"message":"success","data":[{"count":1.5}]}`,
		`{"code":200,"message":"success","data":[{"criteria":[{"levels":[{"score":1}]},{"levels":null},{"levels":[]}]}]}`,
		`{"code":200,"message":"success","data":{"uid":"a"},"data":[]}`,
		`{"code":200,"message":"success","data":[],"data":{"uid":"a"}}`,
		`{"code":200,"message":"success","data":[]}`,
		`{"code":200,"message":"success","data":{}}`,
		`{"code":200,"message":"success","data":null}`,
		`{"code":200,"message":"success"}`,
		`{"code":null,"message":null,"data":null}`,
		`{"code":"200","message":"success","data":[]}`,
		`{"code":200.0,"message":"success","data":[]}`,
		`{"CODE":200,"Message":"success","Data":[]}`,
		`{"code":200,"message":"success","data":[],"code":404}`,
		`{"code":404,"message":"Assignment gone","data":"n/a"}`,
		`{"code":500,"message":"Database connection lost","data":null}`,
		`{"classes":[]}`,
		`{"code":200,"message":"success","data":[]} trailing`,
		`{"code":200,"message":"success","data":[}`,
		`[{"code":200}]`,
		`null`,
		``,
		"\ufeff{\"code\":200}",
	}
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	mock := mockResults(t)
	for _, dc := range decodeCases() {
		t.Run(dc.name, func(t *testing.T) {
			if len(mock[dc.name]) == 0 {
				t.Fatal("no mock answer")
			}
			for _, body := range dc.full {
				if !dc.check(t, body) {
					t.Errorf("the fast path left a complete answer to encoding/json:\n%s", body)
				}
			}
			for name, bodies := range mock {
				for _, body := range bodies {
					if fast := dc.check(t, body); name == dc.name && !fast {
						t.Errorf("the fast path left the mock's answer to encoding/json:\n%.300s", body)
					}
				}
			}
			for _, body := range edgeResults() {
				dc.check(t, body)
			}
		})
	}
}

func FuzzDecodeMatchesEncodingJSON(f *testing.F) {
	for _, dc := range decodeCases() {
		for _, body := range dc.full {
			f.Add(body)
		}
	}
	for _, bodies := range mockResults(f) {
		for _, body := range bodies {
			f.Add(body)
		}
	}
	for _, body := range edgeResults() {
		f.Add(body)
	}
	cases := decodeCases()
	f.Fuzz(func(t *testing.T, body string) {
		for _, dc := range cases {
			dc.check(t, body)
		}
	})
}

// BenchmarkDecodeSubmissions decodes the mock's 35-record submission list
// (about 13 KB, as the mock server writes it): the fast path, and
// encoding/json as before.
func BenchmarkDecodeSubmissions(b *testing.B) {
	body := mockResults(b)["assignment submissions"][0]
	b.Run("jsonread", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var obj assignmentSubmissionsDTO
			var arr []submissionDTO
			if _, _, err := readResult(body, readObjectOrArray((*assignmentSubmissionsDTO).read, readSubmissions, &obj, &arr)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var obj assignmentSubmissionsDTO
			var arr []submissionDTO
			if _, _, err := unmarshalObjectOrArray([]byte(body), &obj, &arr); err != nil {
				b.Fatal(err)
			}
		}
	})
}
