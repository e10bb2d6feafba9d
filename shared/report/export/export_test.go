package export

import (
	"reflect"
	"testing"

	"github.com/insightedge/insightedge/shared/office"
)

func TestDocument(t *testing.T) {
	doc := Document(`# 学期教学工作总结

## 一、班级基本情况

### 1.1 学生人数

Form 1A 共有 **35** 人，
任教老师为陈老师。

| 评估 | 平均分 |
| --- | --- |
| 小测 | 33.4 |

- Tang Hoi Kit (95.4%)
- Lau Hei Long (40.3%)

## 二、总结

1. 第一点
2. 第二点
`, "zh-CN")
	want := office.Document{Title: "学期教学工作总结", Lang: "zh-CN", Sections: []office.Section{
		{Heading: "一、班级基本情况", Level: 1},
		{Heading: "1.1 学生人数", Level: 2, Blocks: []office.Block{
			office.Paragraph{Text: "Form 1A 共有 **35** 人， 任教老师为陈老师。"},
			office.Table{Headers: []string{"评估", "平均分"}, Rows: [][]string{{"小测", "33.4"}}},
			office.List{Items: []string{"Tang Hoi Kit (95.4%)", "Lau Hei Long (40.3%)"}},
		}},
		{Heading: "二、总结", Level: 1, Blocks: []office.Block{office.List{Ordered: true, Items: []string{"第一点", "第二点"}}}},
	}}
	if !reflect.DeepEqual(doc, want) {
		t.Fatalf("got  %#v\nwant %#v", doc, want)
	}
}
