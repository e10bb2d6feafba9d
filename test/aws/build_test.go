package awstest

import (
	"debug/elf"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// testBuild checks that every function builds for linux/arm64 and
// linux/amd64 as a static executable (provided.al2023 has no Go runtime and
// CGO_ENABLED=0 leaves no dynamic loader to need).
func (s *suite) testBuild(t *testing.T) {
	bins := s.binaries(t)
	var total float64
	var n int
	machines := map[string]elf.Machine{"arm64": elf.EM_AARCH64, "amd64": elf.EM_X86_64}
	for _, arch := range archs() {
		for _, fn := range s.functions(t) {
			path := filepath.Join(bins[arch], fn)
			f, err := elf.Open(path)
			if err != nil {
				t.Errorf("%s/%s: %v", arch, fn, err)
				continue
			}
			if want, ok := machines[arch]; ok && f.Machine != want {
				t.Errorf("%s/%s: ELF machine %s, want %s", arch, fn, f.Machine, want)
			}
			for _, p := range f.Progs {
				if p.Type == elf.PT_INTERP {
					t.Errorf("%s/%s is dynamically linked", arch, fn)
				}
			}
			f.Close()
			if st, err := os.Stat(path); err == nil && arch == "arm64" {
				t.Logf("linux/arm64 %-10s %5.1f MB", fn, float64(st.Size())/1e6)
				total += float64(st.Size()) / 1e6
				n++
			}
		}
	}
	// docs/deploy.md states the size sam build gives (these are built
	// the same way): it must stay true.
	doc, err := os.ReadFile(filepath.Join(s.repo, "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`binaries that ` + "`sam build`" + ` makes are about (\d+) MB each`).FindSubmatch(doc)
	if m == nil || n == 0 {
		t.Fatal("docs/deploy.md no longer states the binaries' size (\"… makes are about N MB each\")")
	}
	stated, _ := strconv.ParseFloat(string(m[1]), 64)
	if mean := total / float64(n); math.Abs(mean-stated) > stated/10 {
		t.Errorf("docs/deploy.md says about %.0f MB, the arm64 binaries are %.1f MB on average", stated, mean)
	}
}
