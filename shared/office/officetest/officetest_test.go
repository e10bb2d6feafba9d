package officetest

import (
	"image"
	"image/color"
	"os"
	"path/filepath"
	"testing"
)

func TestInk(t *testing.T) {
	blank := image.NewRGBA(image.Rect(0, 0, 10, 10))
	for y := range 10 {
		for x := range 10 {
			blank.Set(x, y, color.White)
		}
	}
	if share, colours := Ink(blank); share != 0 || colours != 1 {
		t.Fatalf("blank page: ink %v, %d colours", share, colours)
	}
	drawn := image.NewRGBA(image.Rect(0, 0, 10, 10))
	for y := range 10 {
		for x := range 10 {
			c := color.RGBA{255, 255, 255, 255}
			if x < 5 {
				c = color.RGBA{20, 60, 200, 255}
			}
			if y < 2 {
				c = color.RGBA{0, 0, 0, 255}
			}
			drawn.Set(x, y, c)
		}
	}
	if share, colours := Ink(drawn); share != 0.6 || colours != 3 {
		t.Fatalf("drawn page: ink %v, %d colours, want 0.6 and 3", share, colours)
	}
}

func TestRepoDir(t *testing.T) {
	dir, err := repoDir("testdata/officeparser")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(dir)), "go.mod")); err != nil {
		t.Fatalf("%s is not under the module root: %v", dir, err)
	}
}
