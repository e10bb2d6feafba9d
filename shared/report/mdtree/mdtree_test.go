package mdtree

import (
	"reflect"
	"strings"
	"testing"
)

const zhTemplate = `---
title: 学期教学工作总结
author: 教务处
---

# 学期教学工作总结

<!-- 本模板供科组长使用 -->

## 一、班级概况

### 1.1 学生人数与构成

填写人数。

### 1.2 学业水平

## 二、教学成效

### 2.1 成绩分析
### 2.2 典型问题

## 三、下学期计划
`

func TestParseZh(t *testing.T) {
	d, err := Parse(zhTemplate)
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "学期教学工作总结" || !d.TitleFromH1 || d.FrontMatter["author"] != "教务处" {
		t.Fatalf("title %q fromH1 %v fm %v", d.Title, d.TitleFromH1, d.FrontMatter)
	}
	var titles []string
	for _, l := range d.Leaves {
		titles = append(titles, l.Title)
	}
	want := []string{"1.1 学生人数与构成", "1.2 学业水平", "2.1 成绩分析", "2.2 典型问题", "三、下学期计划"}
	if !reflect.DeepEqual(titles, want) {
		t.Fatalf("leaves %q, want %q", titles, want)
	}
	if d.Leaves[0].ID != 1 || d.Leaves[4].ID != 5 {
		t.Errorf("ids %d..%d", d.Leaves[0].ID, d.Leaves[4].ID)
	}
	if got := d.Leaves[0].Template; got != "### 1.1 学生人数与构成\n\n填写人数。\n" {
		t.Errorf("template %q", got)
	}
	if got := d.Leaves[2].Template; got != "### 2.1 成绩分析\n" {
		t.Errorf("template %q", got)
	}
	if !reflect.DeepEqual(d.Leaves[1].Path, []string{"学期教学工作总结", "一、班级概况"}) {
		t.Errorf("path %q", d.Leaves[1].Path)
	}
	if len(d.Tree) != 1 || len(d.Tree[0].Children) != 3 || len(d.Tree[0].Children[1].Children) != 2 {
		t.Errorf("tree shape wrong: %+v", d.Tree)
	}
}

func TestParseVariants(t *testing.T) {
	tests := []struct {
		name, md   string
		title      string
		fromH1     bool
		leaves     []string
		headingsNo int
	}{
		{"no title", "## A\n\n## B\n", "", false, []string{"A", "B"}, 2},
		{"front matter only", "---\ntitle: Mid-term Report\n---\n## Scores\n", "Mid-term Report", false, []string{"Scores"}, 1},
		{"setext and inline", "Report\n======\n\nThe *first* part\n----------------\n\n## `code` part\n", "Report", true, []string{"The first part", "code part"}, 3},
		{"heading in code block is not one", "# T\n\n```\n# not\n```\n## Real\n", "T", true, []string{"Real"}, 2},
		{"thematic break is not front matter", "---\n\n# T\n", "T", true, []string{"T"}, 1},
	}
	for _, tt := range tests {
		d, err := Parse(tt.md)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var got []string
		for _, l := range d.Leaves {
			got = append(got, l.Title)
		}
		if d.Title != tt.title || d.TitleFromH1 != tt.fromH1 || !reflect.DeepEqual(got, tt.leaves) || len(d.Headings) != tt.headingsNo {
			t.Errorf("%s: title %q/%v leaves %q headings %d", tt.name, d.Title, d.TitleFromH1, got, len(d.Headings))
		}
	}
	if _, err := Parse("---\ntitle: [unclosed\n---\n# x\n"); err == nil {
		t.Error("bad YAML accepted")
	}
}

func TestAssembleKeepsTheTree(t *testing.T) {
	d, err := Parse(zhTemplate)
	if err != nil {
		t.Fatal(err)
	}
	contents := map[int]string{
		1: "### 1.1 学生人数与构成\n\n全班 32 人。", // repeats its heading
		2: "## 细项\n\n均分 71.5。",           // a heading of its own
		3: "成绩稳定。",
		5: "继续跟进。",
	}
	out := Assemble(d, contents, "fallback")
	got, err := Outline(out)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Outline(zhTemplate)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("outline\n%q\nwant\n%q\nreport:\n%s", got, want, out)
	}
	for _, s := range []string{"全班 32 人。", "**细项**", "均分 71.5。", "继续跟进。"} {
		if !strings.Contains(out, s) {
			t.Errorf("report lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "本模板供科组长使用") || strings.Count(out, "1.1 学生人数与构成") != 1 {
		t.Errorf("guidance kept or heading repeated:\n%s", out)
	}
}

func TestAssembleTitles(t *testing.T) {
	d, _ := Parse("---\ntitle: Mid-term Report\n---\n## Scores\n")
	if out := Assemble(d, map[int]string{1: "Fine."}, "x"); out != "# Mid-term Report\n\n## Scores\n\nFine.\n" {
		t.Errorf("front matter title: %q", out)
	}
	d, _ = Parse("## Scores\n")
	if out := Assemble(d, nil, "Plan summary"); out != "# Plan summary\n\n## Scores\n" {
		t.Errorf("fallback title: %q", out)
	}
}

func TestFromHTML(t *testing.T) {
	md, err := FromHTML(`<html><head><title>Class Mid-term Analysis</title></head><body>
<h2>Overview</h2><p>Describe the <b>class</b>.</p><h3>Scores</h3><ul><li>mean</li><li>median</li></ul><h2>Next steps</h2></body></html>`)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(md)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range d.Leaves {
		got = append(got, l.Title)
	}
	if d.Title != "Class Mid-term Analysis" || !reflect.DeepEqual(got, []string{"Scores", "Next steps"}) {
		t.Fatalf("title %q leaves %q from\n%s", d.Title, got, md)
	}
	if !strings.Contains(d.Leaves[0].Template, "- mean") {
		t.Errorf("list lost: %q", d.Leaves[0].Template)
	}
}
