package vfs

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/protocol"
	"github.com/insightedge/insightedge/shared/report/mdtree"
	"github.com/insightedge/insightedge/shared/tools"
)

// Tool names (seed 002).
const (
	ToolListTemplates = "list_local_templates"
	ToolListDir       = "list_local_dir"
	ToolReadFile      = "read_local_file"
	ToolSplitTree     = "split_markdown_tree"
)

// MaxReadChars bounds what read_local_file gives the model; longer files are
// cut with a note saying so.
const MaxReadChars = 24000

type noArgs struct{}

type dirArgs struct {
	Path string `json:"path" description:"a VFS folder such as datasets or template"`
}

type fileArgs struct {
	Path string `json:"path" description:"a VFS file path such as datasets/class_1A.json"`
}

type treeArgs struct {
	Path     string `json:"path,omitempty" description:"a Markdown file in the VFS, e.g. template/<name>.md"`
	Markdown string `json:"markdown,omitempty" description:"Markdown text to split instead of a file"`
}

// Tools are the session's VFS tools, bound to f.
func (f *FS) Tools() []tools.Tool {
	return []tools.Tool{
		tools.Define(ToolListTemplates, "List the report templates of this session (template/*.md).", tools.Base, i18n.ListTemplatesRunning,
			func(ctx context.Context, _ tools.Call, _ noArgs) (tools.Result, error) {
				es, err := f.List(ctx, "template")
				if err != nil {
					return tools.Result{}, err
				}
				var out []string
				for _, e := range es {
					if path.Ext(e.Path) == ".md" {
						out = append(out, e.Path)
					}
				}
				return result(out, nil)
			}),
		tools.Define(ToolListDir, "List the files under a folder of this session's VFS (template, datasets, reports).", tools.Base, i18n.ListFilesRunning,
			func(ctx context.Context, _ tools.Call, in dirArgs) (tools.Result, error) {
				return result(f.List(ctx, in.Path))
			}),
		tools.Define(ToolReadFile, "Read a file of this session's VFS.", tools.Base, i18n.ReadFileRunning,
			func(ctx context.Context, _ tools.Call, in fileArgs) (tools.Result, error) {
				b, err := f.Read(ctx, in.Path)
				return result(Truncate(string(b), MaxReadChars), err)
			}),
		tools.Define(ToolSplitTree, "Parse a Markdown template into its heading tree and its leaves (the smallest sections, numbered 1..N).", tools.Base, i18n.SplitTreeRunning,
			func(ctx context.Context, _ tools.Call, in treeArgs) (tools.Result, error) {
				md := in.Markdown
				if in.Path != "" {
					b, err := f.Read(ctx, in.Path)
					if err != nil {
						return tools.Result{}, err
					}
					md = string(b)
				}
				if strings.TrimSpace(md) == "" {
					return tools.Result{}, errors.New("give path or markdown")
				}
				return result(mdtree.Parse(md))
			}),
	}
}

// result is a tool's answer: v, unless err kept the tool from having it.
func result[T any](v T, err error) (tools.Result, error) {
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Status: protocol.ToolSuccess, Output: v}, nil
}

// Truncate cuts s to at most n characters, saying how much was left out.
func Truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + fmt.Sprintf("\n…[%d more characters not shown]", len(r)-n)
}
