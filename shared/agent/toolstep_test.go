package agent

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/tools"
)

// The model reads a data error's code and message, never its causes, which
// name internal addresses and ids.
func TestModelToolErrorHidesCauses(t *testing.T) {
	cause := errors.New(`Get "http://10.0.3.7:8080/api/dify/teacher/t-001/submissions/students/Wong%20Ka%20Ho": dial tcp 10.0.3.7:8080: connection refused`)
	err := fmt.Errorf("tool: %w", apperr.Wrap(cause, apperr.DataError, "the data service is unreachable"))
	got := modelToolError(err)
	if got["error"] != "the data service is unreachable" || got["code"] != "DATA_ERROR" {
		t.Errorf("model reads %v", got)
	}
	if msg := userToolError(err, i18n.Chinese, i18n.None); strings.Contains(msg, "10.0.3.7") || strings.Contains(msg, "Wong") {
		t.Errorf("teacher reads %q", msg)
	}
	// An argument error stays whole: the model must fix its call.
	ae := &tools.ArgumentError{Tool: "get_class_detail", Err: errors.New("classId is required")}
	if got := modelToolError(ae); !strings.Contains(got["error"], "classId is required") {
		t.Errorf("argument error %v", got)
	}
}

// What a teacher reads of a failed tool is a catalogue text in their
// language naming what failed, never the tool's name or English internals.
func TestUserToolErrorIsFromTheCatalogue(t *testing.T) {
	pdf := i18n.PDFThing
	tests := []struct {
		err   error
		l     i18n.Lang
		thing i18n.Msg
		want  string
	}{
		{errors.New("render_pdf: PDF output is not available on this server"), i18n.Chinese, pdf, "PDF 导出暂不可用，请稍后再试。"},
		{errors.New("render_pdf: PDF output is not available on this server"), i18n.English, pdf, "PDF export is not available right now; please try again later."},
		{errors.New("panic: runtime error: index out of range [3]\ngoroutine 1 [running]"), i18n.Chinese, i18n.None, "这一步暂时没有成功，请稍后再试。"},
		{apperr.New(apperr.ServiceUnavailable, "the data service is unavailable"), i18n.Chinese, i18n.DataThing, "数据服务暂时不可用，请稍后再试。"},
		{apperr.New(apperr.DataError, "the data service sent a malformed body"), i18n.Chinese, i18n.DataThing, "数据获取失败：数据服务这次没有返回可用的数据，请稍后再试。"},
		{apperr.New(apperr.EntityNotFound, `no class of this teacher matches "9Z"`), i18n.Chinese, i18n.DataThing, i18n.Chinese.Text(i18n.ToolNothingFound)},
		{&tools.ArgumentError{Tool: "generate_docx", Err: errors.New("title is empty")}, i18n.Chinese, i18n.None, i18n.Chinese.Text(i18n.ToolArgsRetry)},
	}
	for _, tt := range tests {
		got := userToolError(tt.err, tt.l, tt.thing)
		if got != tt.want {
			t.Errorf("%v: teacher reads %q, want %q", tt.err, got, tt.want)
		}
		if tt.l == i18n.Chinese && (strings.Contains(got, "_") || strings.ContainsAny(got, "abcdefghijklmnopqrstuvwxyz")) {
			t.Errorf("%v: a Chinese teacher reads English or a tool name: %q", tt.err, got)
		}
	}
}
