package images

import (
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// RefName is the OCI annotation naming an image in a layout's index.
const RefName = "org.opencontainers.image.ref.name"

// WriteLayout writes imgs to an OCI image layout at dir (created afresh),
// each named by its key in the index (RefName), in name order.
func WriteLayout(dir string, imgs map[string]v1.Image) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("images: layout %s: %w", dir, err)
	}
	for _, n := range slices.Sorted(maps.Keys(imgs)) {
		if err := p.AppendImage(imgs[n], layout.WithAnnotations(map[string]string{RefName: n})); err != nil {
			return fmt.Errorf("images: write %s: %w", n, err)
		}
	}
	return nil
}

// ReadLayout reads the images of an OCI layout written by WriteLayout.
func ReadLayout(dir string) (map[string]v1.Image, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, err
	}
	idx, err := p.ImageIndex()
	if err != nil {
		return nil, err
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	out := map[string]v1.Image{}
	for _, d := range m.Manifests {
		img, err := idx.Image(d.Digest)
		if err != nil {
			return nil, err
		}
		out[d.Annotations[RefName]] = img
	}
	return out, nil
}

// WriteDockerTar writes img as a tarball that `docker load -i` reads,
// tagged tag (e.g. insightedge-local:latest).
func WriteDockerTar(file, tag string, img v1.Image) error {
	ref, err := name.NewTag(tag)
	if err != nil {
		return fmt.Errorf("images: tag %q: %w", tag, err)
	}
	return tarball.WriteToFile(file, ref, img)
}
