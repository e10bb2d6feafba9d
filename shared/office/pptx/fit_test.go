package pptx

import (
	"strings"
	"testing"
)

func TestFitBody(t *testing.T) {
	tests := []struct {
		name    string
		bullets []string
		want    int
	}{
		{"three short", []string{"一", "二", "三"}, 2800},
		{"seven one-liners", strings.Split(strings.Repeat("直角三角形两直角边的平方和等于斜边的平方,", 6)+"end", ","), 2800},
		{"eight one-liners", strings.Split(strings.Repeat("直角三角形两直角边的平方和等于斜边的平方,", 7)+"end", ","), 2400},
		{"ten long", strings.Split(strings.Repeat(strings.Repeat("很长的要点", 12)+",", 10), ","), 1400},
	}
	for _, tt := range tests {
		if got := fitBody(tt.bullets); got != tt.want {
			t.Errorf("%s: fitBody = %d, want %d", tt.name, got, tt.want)
		}
	}
	// More text never gets a larger size.
	prev := fitBody([]string{"x"})
	for n := 2; n < 15; n++ {
		got := fitBody(strings.Split(strings.Repeat("勾股定理的证明方法,", n), ","))
		if got > prev {
			t.Errorf("%d bullets: size %d grew from %d", n, got, prev)
		}
		prev = got
	}
}

func TestFitTitle(t *testing.T) {
	if got := fitTitle("学习目标", 36, titleWidth, titleHeight, []int{36, 32, 28, 24}); got != 0 {
		t.Errorf("a short title got size %d, want the default", got)
	}
	long := strings.Repeat("很长的标题", 8)
	if got := fitTitle(long, 36, titleWidth, titleHeight, []int{36, 32, 28, 24}); got == 0 || got > 3200 {
		t.Errorf("a 40-character title got size %d, want a smaller one", got)
	}
}
