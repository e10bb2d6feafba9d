package javaapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
)

// The contract of the fast decoding (decode.go): for every body, the
// outcome (code, message, data, error) is encoding/json's. These tests
// check it for each endpoint's data type, and that the fast path does take
// the answers the service sends (else it would be correct but slow).

// decodeCase is one endpoint's decoding: check decodes body both ways,
// reports a difference, and tells whether the fast path took it.
type decodeCase struct {
	name  string
	check func(t *testing.T, body string) (fast bool)
	// full are Results whose data sets every member of the DTOs.
	full []string
}

func decodeCases() []decodeCase {
	return []decodeCase{
		{"classes", sameAsJSON[[]classDTO], fullResults[[]classDTO]()},
		{"class", sameAsJSON[classDTO], fullResults[classDTO]()},
		{"assignments", sameAsJSON[[]assignmentDTO], fullResults[[]assignmentDTO]()},
		{"assignment submissions", sameAsJSONObjectOrArray[assignmentSubmissionsDTO, []submissionDTO],
			append(fullResults[assignmentSubmissionsDTO](), fullResults[[]submissionDTO]()...)},
		{"student submissions", sameAsJSONObjectOrArray[studentSubmissionsDTO, []submissionDTO],
			append(fullResults[studentSubmissionsDTO](), fullResults[[]submissionDTO]()...)},
		{"documents", sameAsJSON[[]documentDTO], fullResults[[]documentDTO]()},
		{"rubrics", sameAsJSON[[]rubricDTO], fullResults[[]rubricDTO]()},
		{"rubric", sameAsJSON[rubricDTO], fullResults[rubricDTO]()},
		{"error patterns", sameAsJSON[[]errorPatternDTO], fullResults[[]errorPatternDTO]()},
	}
}

// sameAsJSON checks decodeResult against encoding/json.
func sameAsJSON[T any](t *testing.T, body string) bool {
	t.Helper()
	var want resultOf[T]
	werr := json.Unmarshal([]byte(body), &want)
	var got T
	code, msg, err := decodeResult([]byte(body), &got)
	if d := diffOutcome(code, msg, err, want.Code, want.Message, werr); d != "" {
		t.Errorf("%s\n%s", body, d)
	} else if !reflect.DeepEqual(got, want.Data) {
		t.Errorf("%s\ndata = %+v\nencoding/json: %+v", body, got, want.Data)
	}
	return fastResult([]byte(body), &resultOf[T]{})
}

// sameAsJSONObjectOrArray checks decodeObjectOrArray against
// unmarshalObjectOrArray (encoding/json).
func sameAsJSONObjectOrArray[O, A any](t *testing.T, body string) bool {
	t.Helper()
	var (
		wantObj, gotObj O
		wantArr, gotArr A
	)
	wcode, wmsg, werr := unmarshalObjectOrArray([]byte(body), &wantObj, &wantArr)
	code, msg, err := decodeObjectOrArray([]byte(body), &gotObj, &gotArr)
	if d := diffOutcome(code, msg, err, wcode, wmsg, werr); d != "" {
		t.Errorf("%s\n%s", body, d)
	} else if !reflect.DeepEqual(gotObj, wantObj) || !reflect.DeepEqual(gotArr, wantArr) {
		t.Errorf("%s\ndata = %+v / %+v\nencoding/json: %+v / %+v", body, gotObj, gotArr, wantObj, wantArr)
	}
	var (
		probeObj O
		probeArr A
	)
	_, _, fast := fastObjectOrArray([]byte(body), &probeObj, &probeArr)
	return fast
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
// member: a member that one decoder misses shows as a difference.
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
	case t == reflect.TypeFor[optStr]():
		return fmt.Sprintf("%q", name+" value é")
	case t == reflect.TypeFor[optNum]():
		return "12.5"
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
		// What go-json takes but encoding/json refuses (decode.go).
		`{"code":200,"message":"success","data":[{"uid":"1","unknown":1.2.3}]}`,
		`{"code":200,"message":"success","data":[{"uid":"1","unknown":"\q"}]}`,
		`{"code":200,"message":"success","data":[{"uid":"1","unknown":{"a" 1}}]}`,
		`{"code":200,"message":"success","data":[{"uid":"1","unknown":[1 2,]}]}`,
		`{"code":200,"message":"success","data":[{"uid":01,"max_score":1.,"count":01}]}`,
		`{"code":200,"message":"success","data":{"submissions":[{"student_id":"s","score":-01}]}}`,
		"{\"code\":200,\"message\":\"tab\there\",\"data\":[]}",
		`{"code":9999999999999999999,"message":"success","data":[]}`,
		`{"code":200,"message":"success","data":[{"uid":"1","student_count":9223372036854775808}]}`,
		`{"code":200,"message":"success","data":[{"count":-9223372036854775809}]}`,
		`{"code":200,"message":"success","data":[{"uid":9223372036854775807,"student_count":-9223372036854775808}]}`,
		"{\"code\":200,\"message\":\"success\",\"data\":{\"submissions\":[{\"\u017ftudent_id\":\"s1\",\"s\u212aills\":{\"grammar\":2}}]}}",
		`{"code":200,"message":"success","data":{"submissions":[{"student_id":"s1","\u017ftatus":"ok","\u017Fcore":3,"s\u212Aills":{"grammar":2}}]}}`,
		"{\"code\":200,\"message\":\"success\",\"data\":[{\"uid\":\"1\",\"\u017fubject\":\"s\",\"\u212aey\":1}]}",
		// Keys with broken escapes (goccy/go-json issues #575, #604).
		`{"\`,
		"{\"\\\x00d\\",
		`{"code":200,"message":"success","data":[{"hAs\`,
		`{"classes":[]}`,
		`{"code":200,"message":"success","data":[]} trailing`,
		`{"code":200,"message":"success","data":[}`,
		`[{"code":200}]`,
		`null`,
		// go-json marks the end of its input with a NUL byte.
		"null\x00",
		"0\x00",
		"{\"code\":200,\"message\":\"a\x00b\",\"data\":[]}\x00",
		``,
		"\ufeff{\"code\":200}",
	}
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	mock := mockResults(t)
	kinds := kindResults()
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
			for _, body := range kinds {
				dc.check(t, body)
			}
		})
	}
}

// kindResults returns Results in which each member of the DTOs
// (at every depth, in an object and in a list), and the Result's own
// members, hold each kind of JSON value: the type mismatches, nulls and
// empty values a decoder might take differently.
func kindResults() []string {
	values := []string{`"3"`, `""`, `" 3 "`, `3`, `-3.5e1`, `true`, `false`, `null`,
		`{}`, `{"grammar":"x"}`, `[]`, `[1]`, `[null]`, `[{}]`}
	var out []string
	var walk func(t reflect.Type, wrap func(string) string)
	walk = func(t reflect.Type, wrap func(string) string) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		for f := range t.Fields() {
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			for _, v := range values {
				out = append(out, wrap(fmt.Sprintf(`{"uid":"u",%q:%s}`, tag, v)),
					wrap(fmt.Sprintf(`[{"uid":"u",%q:%s}]`, tag, v)))
			}
			walk(f.Type, func(s string) string { return wrap(fmt.Sprintf(`{%q:%s}`, tag, s)) })
			walk(f.Type, func(s string) string { return wrap(fmt.Sprintf(`{%q:[%s]}`, tag, s)) })
		}
	}
	for _, t := range []reflect.Type{
		reflect.TypeFor[classDTO](), reflect.TypeFor[assignmentDTO](),
		reflect.TypeFor[assignmentSubmissionsDTO](), reflect.TypeFor[studentSubmissionsDTO](),
		reflect.TypeFor[documentDTO](), reflect.TypeFor[rubricDTO](), reflect.TypeFor[errorPatternDTO](),
	} {
		walk(t, func(s string) string { return `{"code":200,"message":"success","data":` + s + `}` })
	}
	for _, v := range values {
		out = append(out, `{"code":`+v+`,"message":"m","data":null}`, `{"code":200,"message":`+v+`,"data":null}`)
	}
	return out
}

// hasIntAboveMaxInt64 must find every run of exactly 19 digits above
// math.MaxInt64 wherever it sits (it looks at one position in 19 first).
func TestHasIntAboveMaxInt64(t *testing.T) {
	runs := []struct {
		digits string
		above  bool
	}{
		{"9223372036854775808", true},
		{"9999999999999999999", true},
		{maxInt64, false},
		{"1000000000000000000", false},
		{"999999999999999999", false},   // 18 digits
		{"99999999999999999999", false}, // 20 digits: go-json refuses it
		{"123456789012345678901234567890", false},
	}
	for _, r := range runs {
		for before := range 45 {
			for _, after := range []string{"", "}", ",1234567890123456789", ",9223372036854775808"} {
				b := []byte(strings.Repeat(`"`, before) + r.digits + after)
				want := r.above || strings.Contains(after, "9223372036854775808")
				if got := hasIntAboveMaxInt64(b); got != want {
					t.Errorf("hasIntAboveMaxInt64(%s) = %v, want %v", b, got, want)
				}
			}
		}
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
// (about 13 KB, as the mock server writes it): the fast path (go-json
// after its checks), and encoding/json alone as before.
func BenchmarkDecodeSubmissions(b *testing.B) {
	body := []byte(mockResults(b)["assignment submissions"][0])
	var obj assignmentSubmissionsDTO
	var arr []submissionDTO
	if _, _, fast := fastObjectOrArray(body, &obj, &arr); !fast {
		b.Fatal("the fast path leaves the body to encoding/json")
	}
	b.Run("goccy", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var obj assignmentSubmissionsDTO
			var arr []submissionDTO
			if _, _, err := decodeObjectOrArray(body, &obj, &arr); err != nil {
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
			if _, _, err := unmarshalObjectOrArray(body, &obj, &arr); err != nil {
				b.Fatal(err)
			}
		}
	})
}
