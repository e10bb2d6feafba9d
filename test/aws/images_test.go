package awstest

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/insightedge/insightedge/infra/images"
)

// functionImages builds the images of every function and of the product
// from the suite's binaries (once, for arm64 and the host's architecture),
// and takes the host's function binaries back out of their images into a
// directory: the Functions and BuildFunctions parts run those under the
// emulator, so what they prove holds for the images.
func (s *suite) functionImages(t *testing.T) map[string]map[string]v1.Image {
	t.Helper()
	bins := s.binaries(t)
	s.imageOnce.Do(func() {
		s.images = map[string]map[string]v1.Image{}
		for _, arch := range []string{"arm64", runtime.GOARCH} {
			if s.images[arch] != nil {
				continue
			}
			b, err := images.BinariesIn(bins[arch])
			if err != nil {
				s.imageErr = err
				return
			}
			if s.images[arch], err = images.All(arch, b, &images.File{Data: []byte("a font")}); err != nil {
				s.imageErr = err
				return
			}
		}
		dir, err := os.MkdirTemp("", "insightedge-image-bins-")
		if err != nil {
			s.imageErr = err
			return
		}
		s.root.Cleanup(func() { _ = os.RemoveAll(dir) })
		for name, img := range s.images[runtime.GOARCH] {
			if name == images.ProductName {
				continue
			}
			data, mode, err := images.ReadFile(img, images.Bootstrap)
			if err != nil {
				s.imageErr = err
				return
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, os.FileMode(mode)&0o777); err != nil {
				s.imageErr = err
				return
			}
		}
		s.imageBins = dir
	})
	if s.imageErr != nil {
		t.Fatalf("images: %v", s.imageErr)
	}
	return s.images
}

// imageBinaries is the directory of the host's function binaries taken out
// of their images.
func (s *suite) imageBinaries(t *testing.T) string {
	t.Helper()
	s.functionImages(t)
	return s.imageBins
}

// testImages checks the arm64 images template.yaml's image option deploys:
// one per function (a single-platform OCI manifest, linux/arm64, the
// binary as the entrypoint at Lambda's bootstrap path, a non-root user,
// LAMBDA_TASK_ROOT) holding exactly the binary sam build makes, one of the
// product (its server reachable from outside the container, its store in
// a volume), and the same digests when built again from the same binaries.
func (s *suite) testImages(t *testing.T) {
	all := s.functionImages(t)["arm64"]
	bins := s.binaries(t)["arm64"]
	fns := s.functions(t)
	var names []string
	for n := range all {
		names = append(names, n)
	}
	slices.Sort(names)
	if want := append(slices.Clone(fns), images.ProductName); !slices.Equal(names, slices.Sorted(slices.Values(want))) {
		t.Fatalf("images %v, want one per function and the product", names)
	}
	for _, name := range names {
		img := all[name]
		mt, _ := img.MediaType()
		m, err := img.Manifest()
		if err != nil || mt != types.OCIManifestSchema1 || m.Config.MediaType != types.OCIConfigJSON || len(m.Layers) != 1 {
			t.Errorf("%s: manifest %s %+v, %v: want an OCI manifest with one layer", name, mt, m, err)
			continue
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		c := cf.Config
		if cf.OS != "linux" || cf.Architecture != "arm64" {
			t.Errorf("%s: platform %s/%s, want linux/arm64 (template.yaml's Architectures)", name, cf.OS, cf.Architecture)
		}
		if c.User == "" || c.User == "root" || strings.HasPrefix(c.User, "0") {
			t.Errorf("%s: user %q, want a non-root numeric user", name, c.User)
		}
		entry := images.Bootstrap
		if name == images.ProductName {
			entry = images.ProductBinary
			if !slices.Contains(c.Env, "ADDR=0.0.0.0:8000") || !slices.Contains(c.Env, "DATA_DIR=/data") || c.Volumes["/data"] != struct{}{} {
				t.Errorf("product: env %v volumes %v, want ADDR on all interfaces and the store in the /data volume", c.Env, c.Volumes)
			}
		} else if !slices.Contains(c.Env, "LAMBDA_TASK_ROOT=/var/task") || c.WorkingDir != "/var/task" {
			t.Errorf("%s: env %v workdir %q, want LAMBDA_TASK_ROOT=/var/task", name, c.Env, c.WorkingDir)
		}
		if !slices.Equal(c.Entrypoint, []string{entry}) {
			t.Errorf("%s: entrypoint %v, want [%s]", name, c.Entrypoint, entry)
		}
		got, mode, err := images.ReadFile(img, entry)
		want, _ := os.ReadFile(filepath.Join(bins, name))
		if err != nil || !bytes.Equal(got, want) || mode&0o111 == 0 {
			t.Errorf("%s: %s in the image is not the built binary, executable (%d bytes, mode %o, %v)", name, entry, len(got), mode, err)
		}
	}
	// Reproducible: the same binaries, the same digests (three images, to
	// keep the test short: every digest costs a compression).
	b, err := images.BinariesIn(bins)
	if err != nil {
		t.Fatal(err)
	}
	for n := range b {
		if n != "router" && n != "stream" && n != images.ProductName {
			delete(b, n)
		}
	}
	again, err := images.All("arm64", b, &images.File{Data: []byte("a font")})
	if err != nil {
		t.Fatal(err)
	}
	for n := range again {
		d1, _ := all[n].Digest()
		d2, _ := again[n].Digest()
		if d1 != d2 {
			t.Errorf("%s: %s then %s from the same binary", n, d1, d2)
		}
		t.Logf("linux/arm64 image %-10s %s", n, d1)
	}
}
