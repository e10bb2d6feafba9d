// Package images builds the product's OCI container images without a
// Docker engine (github.com/google/go-containerregistry): one image per
// Lambda function, for Lambda's container-image packaging (PackageType:
// Image), and one image of the whole local product (`go run ./local` as a
// server). The images are made of the same static binaries `sam build`
// deploys as zip files, in one layer each, and are reproducible: the same
// binaries give the same digests (fixed file times, owners and order, no
// creation time, a fixed compression level).
//
// A function image follows the shape of Lambda's provided.al2023 images:
// the function's binary is /var/runtime/bootstrap (the entrypoint: a Go
// binary built with aws-lambda-go is its own runtime client),
// LAMBDA_TASK_ROOT=/var/task is the working directory, and it runs as a
// non-root user. Lambda runs a container image on one architecture, so
// each image has one platform (linux/arm64, like template.yaml's
// functions), not an index.
package images

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// User is the numeric user (and group) the images run as: not root.
const User = "65532:65532"

const uid, gid = 65532, 65532

// Paths inside a function image, as in Lambda's own base images.
const (
	// Bootstrap is the function's binary and the image's entrypoint.
	Bootstrap = "/var/runtime/bootstrap"
	// TaskRoot is LAMBDA_TASK_ROOT, the working directory.
	TaskRoot = "/var/task"
)

// Paths inside the product image.
const (
	// ProductBinary is the local product's binary, the entrypoint.
	ProductBinary = "/app/insightedge"
	// ProductData is DATA_DIR, the embedded store's directory (a volume).
	ProductData = "/data"
	// ProductPort is where the product listens in its container.
	ProductPort = "8000"
)

// FontPath is where the PDF writer finds its font (shared/office/pdf).
const FontPath = "/usr/share/fonts/truetype/lxgw-wenkai/LXGWWenKai-Regular.ttf"

// File is one regular file of an image: Data, or the host file Source
// (read each time the layer is, so that big binaries are not held in
// memory).
type File struct {
	Path   string // absolute
	Mode   int64  // permission bits
	Data   []byte
	Source string
}

// Spec describes one single-platform image.
type Spec struct {
	Arch       string // GOARCH: arm64 or amd64
	Files      []File
	Dirs       []string // extra empty directories, owned by User
	Entrypoint []string
	Cmd        []string
	Env        []string
	WorkingDir string
	Ports      []string // exposed TCP ports
	Volumes    []string
	Labels     map[string]string
}

// Function is the Lambda image of a function binary for arch; font, when
// not nil, is added at FontPath (the tool and buildstep functions write
// PDFs).
func Function(name, arch string, bootstrap File, font *File) (v1.Image, error) {
	return Build(Spec{
		Arch:       arch,
		Files:      withFont(bootstrap, Bootstrap, font),
		Dirs:       []string{TaskRoot, "/tmp"},
		Entrypoint: []string{Bootstrap},
		Env: []string{
			"PATH=/usr/local/bin:/usr/bin:/bin",
			"LAMBDA_TASK_ROOT=" + TaskRoot,
			"LAMBDA_RUNTIME_DIR=/var/runtime",
			"TZ=UTC",
		},
		WorkingDir: TaskRoot,
		Labels: map[string]string{
			"org.opencontainers.image.title":       "insightedge-" + name,
			"org.opencontainers.image.description": "Insight Edge Lambda function " + name + " (PackageType: Image)",
		},
	})
}

// Product is the image of the whole local product: the `go run ./local`
// server with its embedded store in ProductData, listening on all
// interfaces of the container at ProductPort.
func Product(arch string, binary File, font *File) (v1.Image, error) {
	return Build(Spec{
		Arch:       arch,
		Files:      withFont(binary, ProductBinary, font),
		Dirs:       []string{ProductData, "/tmp"},
		Entrypoint: []string{ProductBinary},
		Cmd:        []string{"serve"},
		Env: []string{
			"PATH=/usr/local/bin:/usr/bin:/bin",
			"ADDR=0.0.0.0:" + ProductPort,
			"DATA_DIR=" + ProductData,
			"TZ=UTC",
		},
		WorkingDir: "/app",
		Ports:      []string{ProductPort},
		Volumes:    []string{ProductData},
		Labels: map[string]string{
			"org.opencontainers.image.title":       "insightedge-local",
			"org.opencontainers.image.description": "Insight Edge, the whole product on one machine (go run ./local)",
		},
	})
}

// withFont is an image's files: the executable at path, and the font at
// FontPath when font is not nil.
func withFont(exe File, path string, font *File) []File {
	exe.Path, exe.Mode = path, 0o755
	files := []File{exe}
	if font != nil {
		f := *font
		f.Path, f.Mode = FontPath, 0o644
		files = append(files, f)
	}
	return files
}

// Build makes the image of s: one OCI layer of its files, an OCI config
// for linux/s.Arch, no creation time.
func Build(s Spec) (v1.Image, error) {
	if s.Arch != "arm64" && s.Arch != "amd64" {
		return nil, fmt.Errorf("images: architecture %q: want arm64 or amd64", s.Arch)
	}
	names, byPath, owned, err := plan(s.Files, s.Dirs)
	if err != nil {
		return nil, err
	}
	opener := func() (io.ReadCloser, error) {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeTar(pw, names, byPath, owned)) }()
		return pr, nil
	}
	layer, err := tarball.LayerFromOpener(opener,
		tarball.WithMediaType(types.OCILayer), tarball.WithCompressionLevel(gzip.BestSpeed))
	if err != nil {
		return nil, fmt.Errorf("images: layer: %w", err)
	}
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	img, err := mutate.AppendLayers(base, layer)
	if err != nil {
		return nil, fmt.Errorf("images: append the layer: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("images: config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", s.Arch
	if s.Arch == "arm64" {
		cf.Variant = "v8"
	}
	cf.Created = v1.Time{}
	cf.History = []v1.History{{CreatedBy: "insightedge infra/images"}}
	cf.Config = v1.Config{
		Entrypoint: s.Entrypoint, Cmd: s.Cmd, Env: s.Env, User: User, WorkingDir: s.WorkingDir,
		Labels: s.Labels,
	}
	if len(s.Ports) > 0 {
		cf.Config.ExposedPorts = map[string]struct{}{}
		for _, p := range s.Ports {
			cf.Config.ExposedPorts[p+"/tcp"] = struct{}{}
		}
	}
	if len(s.Volumes) > 0 {
		cf.Config.Volumes = map[string]struct{}{}
		for _, v := range s.Volumes {
			cf.Config.Volumes[v] = struct{}{}
		}
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("images: set the config: %w", err)
	}
	return img, nil
}

// plan lists the layer's entries: every parent directory and the files,
// in path order; owned are the directories the user may write.
func plan(files []File, dirs []string) ([]string, map[string]File, map[string]bool, error) {
	owned := map[string]bool{}
	all := map[string]bool{}
	addParents := func(p string) {
		for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
			all[d] = true
		}
	}
	for _, d := range dirs {
		d = path.Clean(d)
		all[d], owned[d] = true, true
		addParents(d)
	}
	byPath := map[string]File{}
	for _, f := range files {
		p := path.Clean(f.Path)
		if !path.IsAbs(p) {
			return nil, nil, nil, fmt.Errorf("images: %q is not an absolute path", f.Path)
		}
		if _, dup := byPath[p]; dup {
			return nil, nil, nil, fmt.Errorf("images: %s twice", p)
		}
		if f.Source != "" {
			if _, err := os.Stat(f.Source); err != nil {
				return nil, nil, nil, fmt.Errorf("images: %s: %w", p, err)
			}
		}
		byPath[p] = f
		addParents(p)
	}
	names := slices.Collect(maps.Keys(all))
	for p := range byPath {
		names = append(names, p)
	}
	slices.Sort(names)
	return names, byPath, owned, nil
}

// writeTar writes the layer's tar with fixed times and owners, so that the
// same files give the same bytes.
func writeTar(w io.Writer, names []string, byPath map[string]File, owned map[string]bool) error {
	tw := tar.NewWriter(w)
	epoch := time.Unix(0, 0).UTC()
	for _, n := range names {
		name := strings.TrimPrefix(n, "/")
		f, ok := byPath[n]
		if !ok {
			hdr := &tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o755, ModTime: epoch, Format: tar.FormatPAX}
			if owned[n] {
				hdr.Uid, hdr.Gid = uid, gid
				if n == "/tmp" {
					hdr.Mode = 0o1777
				}
			}
			if err := tw.WriteHeader(hdr); err != nil {
				return err
			}
			continue
		}
		var r io.Reader = bytes.NewReader(f.Data)
		size := int64(len(f.Data))
		if f.Source != "" {
			src, err := os.Open(f.Source)
			if err != nil {
				return err
			}
			defer src.Close()
			st, err := src.Stat()
			if err != nil {
				return err
			}
			r, size = src, st.Size()
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: f.Mode, Size: size, ModTime: epoch, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := io.Copy(tw, r); err != nil {
			return err
		}
	}
	return tw.Close()
}

// ReadFile returns the file at p of img's filesystem (its layers, later
// ones winning), as a container would see it.
func ReadFile(img v1.Image, p string) ([]byte, int64, error) {
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	want := strings.TrimPrefix(path.Clean(p), "/")
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil, 0, fmt.Errorf("images: no %s in the image", p)
		}
		if err != nil {
			return nil, 0, err
		}
		if strings.TrimPrefix(path.Clean(hdr.Name), "/") == want && hdr.Typeflag == tar.TypeReg {
			data, err := io.ReadAll(tr)
			return data, hdr.Mode, err
		}
	}
}

// Product names the product image among the function images in All.
const ProductName = "local"

// Binaries are the static linux binaries of one architecture, by name: one
// per function directory (functions/<name>) and ProductName for ./local;
// a File's Path and Mode are set by the image.
type Binaries map[string]File

// BinariesIn are the binaries of dir, one per file, read from disk when
// the images are written.
func BinariesIn(dir string) (Binaries, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	bins := Binaries{}
	for _, e := range entries {
		if e.Type().IsRegular() {
			bins[e.Name()] = File{Source: filepath.Join(dir, e.Name())}
		}
	}
	return bins, nil
}

// FontUsers are the images that carry the PDF font: the file tool
// function (the tools that deliver a file; issue 25) and the product.
var FontUsers = []string{"filetool", ProductName}

// All makes every image of bins for arch: Function for each function and
// Product for ProductName; font (nil for none) goes into FontUsers.
func All(arch string, bins Binaries, font *File) (map[string]v1.Image, error) {
	out := map[string]v1.Image{}
	for name, bin := range bins {
		var f *File
		if slices.Contains(FontUsers, name) {
			f = font
		}
		var img v1.Image
		var err error
		if name == ProductName {
			img, err = Product(arch, bin, f)
		} else {
			img, err = Function(name, arch, bin, f)
		}
		if err != nil {
			return nil, fmt.Errorf("images: %s: %w", name, err)
		}
		out[name] = img
	}
	return out, nil
}
