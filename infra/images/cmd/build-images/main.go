// Command build-images builds the product's OCI images without a Docker
// engine (package infra/images): one Lambda image per function and the
// image of the whole local product, from static binaries, into an OCI
// image layout; optionally a `docker load` tarball of the product, and a
// push of every image to a registry (Amazon ECR for PackageType: Image).
//
//	go run ./infra/images/cmd/build-images                       # linux/arm64 → dist/images
//	go run ./infra/images/cmd/build-images -arch amd64 -docker-tar dist/insightedge-local.tar
//	aws ecr get-login-password | go run ./infra/images/cmd/build-images \
//	    -push "$REPO" -tag "$TAG" -password-stdin
//
// Without -bin it builds the binaries first, as sam build does plus
// -trimpath (GOOS=linux CGO_ENABLED=0 -tags lambda.norpc), so that two
// machines with the same source and Go make the same images.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/insightedge/insightedge/infra/images"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "build-images:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("build-images", flag.ContinueOnError)
	arch := fs.String("arch", "arm64", "GOARCH of the images: arm64 (template.yaml's) or amd64")
	out := fs.String("out", "dist/images", "OCI image layout directory to write")
	binDir := fs.String("bin", "", "directory of prebuilt binaries (one per function, and local); empty: build them")
	font := fs.String("font", images.FontPath, "TrueType font for the PDF writer (empty: none)")
	dockerTar := fs.String("docker-tar", "", "also write the product image as a `docker load` tarball here")
	push := fs.String("push", "", "registry repository to push every image to, tagged <name>-<tag>")
	tag := fs.String("tag", "latest", "tag suffix of pushed images")
	user := fs.String("username", "AWS", "registry user name (with -password-stdin)")
	pwStdin := fs.Bool("password-stdin", false, "read the registry password from stdin (aws ecr get-login-password)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir := *binDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "insightedge-bin-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		if err := build(ctx, *arch, tmp); err != nil {
			return err
		}
		dir = tmp
	}
	bins, err := images.BinariesIn(dir)
	if err != nil {
		return err
	}
	if _, ok := bins[images.ProductName]; !ok {
		return fmt.Errorf("%s has no %q binary (go build -o %s/ ./local)", dir, images.ProductName, dir)
	}
	var fontFile *images.File
	if *font != "" {
		if _, err := os.Stat(*font); err != nil {
			return fmt.Errorf("font: %w (install fonts-lxgw-wenkai, or -font '' for images without PDF)", err)
		}
		fontFile = &images.File{Source: *font}
	}
	imgs, err := images.All(*arch, bins, fontFile)
	if err != nil {
		return err
	}
	if err := images.WriteLayout(*out, imgs); err != nil {
		return err
	}
	for _, n := range slices.Sorted(maps.Keys(imgs)) {
		d, _ := imgs[n].Digest()
		fmt.Fprintf(stdout, "%-10s %s\n", n, d)
	}
	fmt.Fprintf(stdout, "wrote the OCI layout %s (linux/%s)\n", *out, *arch)
	if *dockerTar != "" {
		if err := images.WriteDockerTar(*dockerTar, "insightedge-local:latest", imgs[images.ProductName]); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s: docker load -i %s\n", *dockerTar, *dockerTar)
	}
	if *push == "" {
		return nil
	}
	auth := authn.Anonymous
	if *pwStdin {
		pw, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		auth = &authn.Basic{Username: *user, Password: strings.TrimSpace(pw)}
	}
	for _, n := range slices.Sorted(maps.Keys(imgs)) {
		ref, err := name.NewTag(*push + ":" + n + "-" + *tag)
		if err != nil {
			return fmt.Errorf("push: %w", err)
		}
		if err := remote.Write(ref, imgs[n], remote.WithAuth(auth), remote.WithContext(ctx)); err != nil {
			return fmt.Errorf("push %s: %w", ref, err)
		}
		fmt.Fprintf(stdout, "pushed %s\n", ref)
	}
	return nil
}

// build compiles every function and ./local for linux/arch into dir.
func build(ctx context.Context, arch, dir string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-tags", "lambda.norpc",
		"-o", dir+string(filepath.Separator), "./functions/...", "./local")
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+arch, "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build (from the repository root): %w", err)
	}
	return nil
}
