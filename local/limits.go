package main

// issue 26: fair use. `go run ./local limits` shows, sets, lifts and resets
// a teacher's or a school's override of the stage's limits: through the
// operator's route of the server at ADDR when one answers, else in the
// store of -data directly.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/insightedge/insightedge/shared/boltstore"
	"github.com/insightedge/insightedge/shared/limits"
	"github.com/insightedge/insightedge/shared/scores"
)

// limitsOptions configure the limits command.
type limitsOptions struct {
	Addr, DataDir string
	Args          []string
	Out           io.Writer
	Getenv        func(string) string
}

const limitsUsage = `usage: go run ./local limits show|set|lift|reset (-teacher ID | -school ID) [-token JWT] [limit=value ... | limit ...]
  show                       the override and the stage's limits
  set   limit=value ...      raise or lower limits (a whole number > 0)
  lift  limit ...            no limit
  reset [limit ...]          back to the stage's value (every limit when none is named)
  set -school ID passMark=50 the school's pass mark, percent of full marks (default 60; issue 23)
limits: `

// limitChange is one change the command makes.
type limitChange struct {
	Limit limits.Limit
	Value int64 // limits.Unlimited for lift; 0 for reset
}

func limitsCmd(ctx context.Context, o limitsOptions) error {
	if len(o.Args) == 0 {
		return errors.New(limitsUsage + limitNames())
	}
	action := o.Args[0]
	fs := flag.NewFlagSet("limits", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	teacher := fs.String("teacher", "", "the teacher's id")
	school := fs.String("school", "", "the school's id")
	token := fs.String("token", "", "an operator's bearer token, for a server with AUTH_JWT_SECRET")
	if err := fs.Parse(o.Args[1:]); err != nil {
		return fmt.Errorf("%w\n%s", err, limitsUsage+limitNames())
	}
	scope, id := limits.ScopeTeacher, *teacher
	if *school != "" {
		scope, id = limits.ScopeSchool, *school
	}
	if (*teacher == "") == (*school == "") {
		return errors.New("name one of -teacher or -school\n" + limitsUsage + limitNames())
	}
	changes, err := parseChanges(action, fs.Args())
	if err != nil {
		return err
	}
	base := "http://" + o.Addr
	if probe(ctx, base) == "" {
		return limitsViaServer(ctx, base, *token, scope, id, action, changes, o.Out)
	}
	return limitsInStore(ctx, o, scope, id, action, changes)
}

// parseChanges reads the command's limit arguments.
func parseChanges(action string, args []string) ([]limitChange, error) {
	var out []limitChange
	for _, a := range args {
		name, val, hasVal := strings.Cut(a, "=")
		l, ok := limits.Parse(name)
		if name == string(limits.PassMark) {
			l, ok = limits.PassMark, action != "lift"
		}
		if !ok {
			return nil, fmt.Errorf("unknown limit %q (limits: %s)", name, limitNames())
		}
		c := limitChange{Limit: l}
		switch {
		case action == "set" && hasVal:
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("%s: want a whole number > 0", a)
			}
			c.Value = n
		case action == "lift" && !hasVal:
			c.Value = limits.Unlimited
		case action == "reset" && !hasVal:
		default:
			return nil, errors.New(limitsUsage + limitNames())
		}
		out = append(out, c)
	}
	if action == "show" && len(args) == 0 || action == "reset" && len(out) == 0 {
		return out, nil
	}
	if len(out) == 0 {
		return nil, errors.New(limitsUsage + limitNames())
	}
	return out, nil
}

func limitNames() string {
	names := make([]string, len(limits.All))
	for i, l := range limits.All {
		names[i] = string(l.Limit)
	}
	return strings.Join(append(names, string(limits.PassMark)), ", ")
}

// limitsInStore applies the changes to the store file (no server runs on
// it: bbolt allows one process).
func limitsInStore(ctx context.Context, o limitsOptions, scope limits.Scope, id, action string, changes []limitChange) error {
	db, err := boltstore.Open(filepath.Join(o.DataDir, "insight.db"), boltstore.Options{})
	if err != nil {
		return fmt.Errorf("%w (is a server running on -data %s? start it, the command then goes through it)", err, o.DataDir)
	}
	defer db.Close()
	ov := limits.NewOverrides(db, nil)
	cur, err := ov.Get(ctx, scope, id)
	if action == "reset" && len(changes) == 0 {
		cur, err = ov.Reset(ctx, scope, id, "", "cli")
	}
	for _, c := range changes {
		if err != nil {
			break
		}
		if c.Value == 0 {
			cur, err = ov.Reset(ctx, scope, id, c.Limit, "cli")
		} else {
			cur, err = ov.Set(ctx, scope, id, c.Limit, c.Value, "cli")
		}
	}
	if err != nil {
		return err
	}
	stage, err := limits.FromEnv(o.Getenv)
	if err != nil {
		return err
	}
	return printOverride(o.Out, scope, id, cur, stage.Values)
}

// limitsViaServer applies the changes through the operator's route.
func limitsViaServer(ctx context.Context, base, token string, scope limits.Scope, id, action string, changes []limitChange, out io.Writer) error {
	path := base + "/api/admin/limits/" + string(scope) + "/" + id
	type step struct{ method, url, body string }
	steps := []step{{http.MethodGet, path, ""}}
	if action == "reset" && len(changes) == 0 {
		steps = []step{{http.MethodDelete, path, ""}}
	}
	for _, c := range changes {
		switch c.Value {
		case 0:
			steps = append(steps, step{http.MethodDelete, path + "/" + string(c.Limit), ""})
		case limits.Unlimited:
			steps = append(steps, step{http.MethodPut, path, fmt.Sprintf(`{"limit":%q,"lift":true}`, c.Limit)})
		default:
			steps = append(steps, step{http.MethodPut, path, fmt.Sprintf(`{"limit":%q,"value":%d}`, c.Limit, c.Value)})
		}
	}
	var last struct {
		Override limits.Override `json:"override"`
		Stage    limits.Values   `json:"stage"`
	}
	for _, s := range steps {
		req, err := http.NewRequestWithContext(ctx, s.method, s.url, bytes.NewReader([]byte(s.body)))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Role", "operator") // development mode; a token decides otherwise
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s %s: %s: %s", s.method, s.url, resp.Status, bytes.TrimSpace(body))
		}
		if err := json.Unmarshal(body, &last); err != nil {
			return fmt.Errorf("%s %s: %w", s.method, s.url, err)
		}
	}
	return printOverride(out, scope, id, last.Override, last.Stage)
}

// printOverride prints each limit: the stage's value and the override's.
func printOverride(w io.Writer, scope limits.Scope, id string, ov limits.Override, stage limits.Values) error {
	fmt.Fprintf(w, "%s %s", scope, id)
	if !ov.UpdatedAt.IsZero() {
		fmt.Fprintf(w, " (override of %s by %s)", ov.UpdatedAt.Format("2006-01-02 15:04:05Z07:00"), ov.By)
	}
	fmt.Fprintln(w)
	for _, l := range limits.All {
		line := fmt.Sprintf("  %-20s stage %s", l.Limit, limitText(stage[l.Limit]))
		if v, ok := ov.Values[l.Limit]; ok {
			line += ", here " + limitText(v)
		}
		fmt.Fprintln(w, line)
	}
	if scope == limits.ScopeSchool {
		line := fmt.Sprintf("  %-20s default %d", limits.PassMark, scores.DefaultPassMark)
		if v, ok := ov.Values[limits.PassMark]; ok {
			line += ", here " + strconv.FormatInt(v, 10)
		}
		fmt.Fprintln(w, line)
	}
	return nil
}

func limitText(v int64) string {
	if v == limits.Unlimited {
		return "lifted"
	}
	if v <= 0 {
		return "none"
	}
	return strconv.FormatInt(v, 10)
}
