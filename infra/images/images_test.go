package images_test

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/google/go-containerregistry/pkg/v1/validate"

	"github.com/insightedge/insightedge/infra/images"
)

func bins() images.Binaries {
	return images.Binaries{"router": {Data: []byte("router binary")}, "filetool": {Data: []byte("filetool binary")},
		images.ProductName: {Data: []byte("product binary")}}
}

func TestFunctionImage(t *testing.T) {
	imgs, err := images.All("arm64", bins(), &images.File{Data: []byte("font")})
	if err != nil {
		t.Fatal(err)
	}
	for name, img := range imgs {
		mt, _ := img.MediaType()
		if mt != types.OCIManifestSchema1 {
			t.Errorf("%s: manifest %s, want OCI", name, mt)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cf.OS != "linux" || cf.Architecture != "arm64" || cf.Config.User != images.User || cf.Config.User == "" || cf.Config.User[0] == '0' {
			t.Errorf("%s: %s/%s user %q", name, cf.OS, cf.Architecture, cf.Config.User)
		}
		if !cf.Created.IsZero() {
			t.Errorf("%s: created %v, want none (reproducible)", name, cf.Created)
		}
		entry := images.Bootstrap
		if name == images.ProductName {
			entry = images.ProductBinary
		}
		if !slices.Equal(cf.Config.Entrypoint, []string{entry}) {
			t.Errorf("%s: entrypoint %v, want %s", name, cf.Config.Entrypoint, entry)
		}
		data, mode, err := images.ReadFile(img, entry)
		if err != nil || !bytes.Equal(data, bins()[name].Data) || mode&0o111 == 0 {
			t.Errorf("%s: %s = %q mode %o, %v; want the binary, executable", name, entry, data, mode, err)
		}
		_, _, fontErr := images.ReadFile(img, images.FontPath)
		if wantFont := slices.Contains(images.FontUsers, name); (fontErr == nil) != wantFont {
			t.Errorf("%s: font in the image %v, want %v", name, fontErr == nil, wantFont)
		}
	}
	if env := imgsEnv(t, imgs["router"]); !slices.Contains(env, "LAMBDA_TASK_ROOT="+images.TaskRoot) {
		t.Errorf("function env %v lacks LAMBDA_TASK_ROOT", env)
	}
	if env := imgsEnv(t, imgs[images.ProductName]); !slices.Contains(env, "ADDR=0.0.0.0:"+images.ProductPort) {
		t.Errorf("product env %v: it must listen on the container's interfaces", env)
	}
}

func imgsEnv(t *testing.T, img v1.Image) []string {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	return cf.Config.Env
}

// TestReproducible: the same binaries give the same digests, written to
// and read back from an OCI layout; another binary another digest.
func TestReproducible(t *testing.T) {
	a, err := images.All("arm64", bins(), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "layout")
	if err := images.WriteLayout(dir, a); err != nil {
		t.Fatal(err)
	}
	b, err := images.ReadLayout(dir)
	if err != nil {
		t.Fatal(err)
	}
	other := bins()
	other["router"] = images.File{Data: []byte("another router")}
	c, err := images.All("arm64", other, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name := range a {
		da, _ := a[name].Digest()
		db, _ := b[name].Digest()
		dc, _ := c[name].Digest()
		// Read back from disk, the image is whole: the manifest, the
		// config and the layers match their digests and sizes.
		if err := validate.Image(b[name]); err != nil {
			t.Errorf("%s: not a valid image in the layout: %v", name, err)
		}
		if da != db {
			t.Errorf("%s: %s built, %s read back from the layout", name, da, db)
		}
		if (da == dc) != (name != "router") {
			t.Errorf("%s: digest %s with the other binaries %s", name, da, dc)
		}
	}
	if _, err := images.Build(images.Spec{Arch: "386"}); err == nil {
		t.Error("an image for 386 was built; Lambda runs arm64 and amd64 only")
	}
}
