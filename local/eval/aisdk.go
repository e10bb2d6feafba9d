package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ErrNoChecker: node or the AI SDK checker (test/aisdk with its node_modules)
// is not installed.
var ErrNoChecker = errors.New("eval: the AI SDK checker is not installed (node, and npm ci --prefix test/aisdk)")

// SDKChecker runs the AI SDK's own client over streams (test/aisdk/check-many.mjs).
type SDKChecker struct {
	Node string
	Dir  string // test/aisdk
}

// FindSDKChecker locates node and test/aisdk from dir upwards.
func FindSDKChecker(dir string) (SDKChecker, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return SDKChecker{}, ErrNoChecker
	}
	for d := dir; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, "test", "aisdk")
		if _, err := os.Stat(filepath.Join(cand, "node_modules", "ai")); err == nil {
			return SDKChecker{Node: node, Dir: cand}, nil
		}
		if filepath.Dir(d) == d {
			return SDKChecker{}, ErrNoChecker
		}
	}
}

// Check checks every turn's stream and records a protocol breakage (and a
// failure) on each turn the SDK rejects.
func (s SDKChecker) Check(ctx context.Context, cases []CaseResult) error {
	var raws []string
	var where [][2]int
	for i, c := range cases {
		for j, t := range c.Turns {
			if t.raw != nil {
				raws = append(raws, string(t.raw))
				where = append(where, [2]int{i, j})
			}
		}
	}
	if len(raws) == 0 {
		return nil
	}
	in, err := json.Marshal(raws)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, s.Node, filepath.Join(s.Dir, "check-many.mjs"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("eval: AI SDK checker: %w: %s", err, stderr.String())
	}
	var res []struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res) != len(raws) {
		return fmt.Errorf("eval: AI SDK checker answered %d results for %d streams: %v", len(res), len(raws), err)
	}
	for k, r := range res {
		if r.OK {
			continue
		}
		c := &cases[where[k][0]]
		t := &c.Turns[where[k][1]]
		msg := "the AI SDK rejects the stream: " + clip(r.Error, 300)
		t.Protocol = append(t.Protocol, msg)
		t.Failures = append(t.Failures, "protocol: "+msg)
		c.Pass = false
	}
	return nil
}
