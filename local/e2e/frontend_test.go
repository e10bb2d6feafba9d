package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestNextJSProxyExample runs the example Next.js proxy's tests
// (examples/nextjs-proxy: its App Router route handlers, served as next
// start would) in front of the product with AUTH_JWT_SECRET set, as in
// production: a stock useChat turn and a resume after reload, a download,
// a page build and a research stream through the proxy; a forged or
// expired token and a body teacherId sent straight to the edge refused.
// In CI a missing node, npm or node_modules fails the test.
func TestNextJSProxyExample(t *testing.T) {
	npm := RequireTool(t, "npm")
	RequireTool(t, "node")
	dir, _ := filepath.Abs("../../examples/nextjs-proxy")
	for _, need := range []string{filepath.Join(dir, "node_modules", "jose"), "../../test/aisdk/node_modules/ai"} {
		if _, err := os.Stat(need); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing: bash .ci/run --install-only", need)
			}
			t.Skipf("%s is missing (npm ci --prefix examples/nextjs-proxy; npm ci --prefix test/aisdk)", need)
		}
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	secret := hex.EncodeToString(key)
	s := NewLocal(t, map[string]string{"AUTH_JWT_SECRET": secret})
	// A bound on the whole run, not a timing assertion: a hung stream ends it.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "test")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "EDGE_URL="+s.URL, "AUTH_JWT_SECRET="+secret)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("npm test in examples/nextjs-proxy: %v\n%s", err, out)
	}
	t.Logf("%s", out[max(0, len(out)-400):])
}
