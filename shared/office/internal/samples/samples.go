// Package samples builds realistic documents and decks for the office
// tests and benchmarks, in Chinese and in English.
package samples

import (
	"fmt"
	"time"

	"github.com/insightedge/insightedge/shared/office"
)

// Created is the creation time the office tests write their files at, so
// that the files (and the golden ones) are the same on every run.
var Created = time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)

// The samples' words, each in English ([0]) and Chinese ([1]); the %d
// verbs take a part, slide or step number.
var (
	deckTitle    = [2]string{"Pythagorean Theorem: Proofs and Uses", "勾股定理：从证明到应用"}
	deckSubtitle = [2]string{"Mathematics · Grade 8", "数学 · 八年级"}
	slideTitle   = [2]string{"Part %d: right triangles", "第%d部分：直角三角形"}
	// bullets' second line takes the part number.
	bullets = [2][]string{{
		"In a right triangle, a² + b² = c², where c is the hypotenuse",
		"Worked example %d: legs 3 and 4 give a hypotenuse of 5",
		"Proof by rearranging four **congruent** triangles",
		"Everyday uses: ladders, ramps and screen sizes",
	}, {
		"直角三角形中，两直角边的平方和等于斜边的平方：a² + b² = c²",
		"例题%d：两条直角边分别为 3 和 4，斜边为 5",
		"赵爽弦图：用四个**全等**的直角三角形拼出证明",
		"生活中的应用：梯子、坡道与屏幕尺寸",
	}}
	notes = [2]string{
		"Ask the class to measure a ladder against the wall (slide %d).\nGive them two minutes.",
		"请学生量一量靠在墙上的梯子（第%d页）。\n给学生两分钟时间讨论。",
	}

	docTitle    = [2]string{"Lesson Plan: The Pythagorean Theorem", "《勾股定理》教案"}
	docSubtitle = [2]string{"Mathematics · Grade 8 · Lesson plan", "数学 · 八年级 · 教案"}
	objectives  = [2]string{"1. Objectives", "一、教学目标"}
	goals       = [2][]string{
		{"State the theorem and when it applies", "Follow **two** proofs", "Solve problems about distances"},
		{"理解勾股定理的内容及适用条件", "掌握**两种**证明方法", "能用勾股定理解决距离问题"},
	}
	flow        = [2]string{"2. Lesson flow", "二、教学过程"}
	flowHeaders = [2][]string{{"Stage", "Time", "Activity"}, {"环节", "时间", "活动内容"}}
	flowRows    = [2][][]string{{
		{"Warm-up", "5 min", "Measure the classroom diagonal"},
		{"Explore", "15 min", "Cut and rearrange four triangles"},
		{"Practice", "15 min", "Textbook exercises 1 to 4"},
	}, {
		{"导入", "5 分钟", "测量教室对角线，提出问题"},
		{"探究", "15 分钟", "小组合作拼图，猜想三边关系"},
		{"练习", "15 分钟", "完成课本例题 1～4"},
	}}
	stepHeading = [2]string{"Step %d", "第%d步"}
	stepText    = [2]string{
		"Students work in pairs to discover the relationship between the sides of a right triangle. " +
			"They cut four congruent triangles out of paper, arrange them inside a square, and compare the areas before and after. " +
			"The teacher walks around, asks guiding questions and collects the pairs' conjectures on the board.",
		"学生两人一组，用四个全等的直角三角形纸片在正方形中拼图，比较拼图前后的面积，" +
			"发现直角三角形三边之间的关系。教师巡视指导，提出引导性问题，并把各组的猜想写在黑板上（例如“a² + b² = c²”）。" +
			"最后请一组学生上台展示，全班讨论证明过程是否严密。",
	}
	stepItems = [2][]string{
		{"Ask: what stays the same when we move the pieces?", "Write the conjecture a² + b² = c² on the board"},
		{"提问：移动纸片时，什么保持不变？", "板书猜想：a² + b² = c²"},
	}
)

// lang indexes the tables above.
func lang(zh bool) int {
	if zh {
		return 1
	}
	return 0
}

// Deck returns a deck of n content slides in Chinese (zh) or English.
func Deck(n int, zh bool) office.Deck {
	l := lang(zh)
	d := office.Deck{Title: deckTitle[l], Subtitle: deckSubtitle[l]}
	for i := range n {
		b := append([]string(nil), bullets[l]...)
		b[1] = fmt.Sprintf(b[1], i+1)
		d.Slides = append(d.Slides, office.Slide{
			Title:   fmt.Sprintf(slideTitle[l], i+1),
			Bullets: b,
			Notes:   fmt.Sprintf(notes[l], i+2),
		})
	}
	return d
}

// Document returns a lesson plan in Chinese (zh) or English with the given
// number of teaching steps; about six steps fill a page.
func Document(steps int, zh bool) office.Document {
	l := lang(zh)
	doc := office.Document{
		Title: docTitle[l], Subtitle: docSubtitle[l],
		Sections: []office.Section{
			{Heading: objectives[l], Blocks: []office.Block{
				office.List{Ordered: true, Items: goals[l]},
			}},
			{Heading: flow[l], Blocks: []office.Block{
				office.Table{Headers: flowHeaders[l], Rows: flowRows[l]},
			}},
		},
	}
	for i := range steps {
		doc.Sections = append(doc.Sections, office.Section{Heading: fmt.Sprintf(stepHeading[l], i+1), Level: 2, Blocks: []office.Block{
			office.Paragraph{Text: stepText[l]},
			office.List{Items: stepItems[l]},
		}})
	}
	return doc
}
