package images_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/insightedge/insightedge/infra/images"
)

// TestDockerfileMatchesProductImage checks that the Dockerfile (for users
// with Docker) makes the same kind of image as Product: the final stage's
// entrypoint, command, user, environment, port and volume, and that
// compose.yaml runs it next to DynamoDB Local, both on loopback only.
func TestDockerfileMatchesProductImage(t *testing.T) {
	root := filepath.Join("..", "..")
	data, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	final := map[string][]string{} // instruction → arguments, of the last stage
	var text []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		text = append(text, line)
	}
	for i := len(text) - 1; i >= 0; i-- {
		ins, args, _ := strings.Cut(text[i], " ")
		if ins == "FROM" {
			if args != "scratch" {
				t.Errorf("the final stage is FROM %s, want scratch (the binary is static)", args)
			}
			break
		}
		final[ins] = append(final[ins], args)
	}
	img, err := images.Product("amd64", images.File{Data: []byte("x")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cf, _ := img.ConfigFile()
	c := cf.Config
	var entry, cmd []string
	_ = json.Unmarshal([]byte(strings.Join(final["ENTRYPOINT"], "")), &entry)
	_ = json.Unmarshal([]byte(strings.Join(final["CMD"], "")), &cmd)
	if !slices.Equal(entry, c.Entrypoint) || !slices.Equal(cmd, c.Cmd) {
		t.Errorf("Dockerfile ENTRYPOINT %v CMD %v, image %v %v", entry, cmd, c.Entrypoint, c.Cmd)
	}
	if u := strings.Join(final["USER"], ""); u != c.User {
		t.Errorf("Dockerfile USER %q, image %q", u, c.User)
	}
	env := strings.Fields(strings.Join(final["ENV"], " "))
	slices.Sort(env)
	want := slices.Sorted(slices.Values(c.Env))
	if !slices.Equal(env, want) {
		t.Errorf("Dockerfile ENV %v, image %v", env, want)
	}
	if p := strings.Join(final["EXPOSE"], ""); p != images.ProductPort {
		t.Errorf("Dockerfile EXPOSE %q, want %s", p, images.ProductPort)
	}
	if v := strings.Join(final["VOLUME"], ""); v != images.ProductData {
		t.Errorf("Dockerfile VOLUME %q, want %s", v, images.ProductData)
	}
	if !slices.ContainsFunc(final["COPY"], func(s string) bool { return strings.HasSuffix(s, images.ProductBinary) }) {
		t.Errorf("Dockerfile does not copy the binary to %s: %v", images.ProductBinary, final["COPY"])
	}

	var compose struct {
		Services map[string]struct {
			Build string
			Image string
			Ports []string
		}
	}
	cdata, err := os.ReadFile(filepath.Join(root, "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(cdata, &compose); err != nil {
		t.Fatal(err)
	}
	product, ok := compose.Services["insightedge"]
	if !ok || product.Build != "." || !slices.Contains(product.Ports, "127.0.0.1:8000:"+images.ProductPort) {
		t.Errorf("compose insightedge = %+v, want the Dockerfile's image on 127.0.0.1:8000", product)
	}
	ddb, ok := compose.Services["dynamodb-local"]
	if !ok || !strings.HasPrefix(ddb.Image, "amazon/dynamodb-local:") || strings.HasSuffix(ddb.Image, ":latest") ||
		!slices.Contains(ddb.Ports, "127.0.0.1:8001:8000") {
		t.Errorf("compose dynamodb-local = %+v, want a pinned amazon/dynamodb-local on 127.0.0.1:8001", ddb)
	}
}
