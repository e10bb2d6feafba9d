package edge

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/insightedge/insightedge/shared/apperr"
	"github.com/insightedge/insightedge/shared/apps"
	"github.com/insightedge/insightedge/shared/blueprint"
)

// Saved apps (the Build runtime's "save as app"):
//
//	POST   /api/apps                               save {name, blueprint, context, schedule?}
//	GET    /api/apps                               the teacher's apps
//	GET    /api/apps/{id}                          one app
//	DELETE /api/apps/{id}                          delete it and its snapshots
//	POST   /api/apps/{id}/run                      run it now (waits for the build)
//	GET    /api/apps/{id}/snapshots                its runs, oldest first, without pages
//	GET    /api/apps/{id}/snapshots/{runId}        one run with its page

// AppRunner runs an app once (apps.Replayer).
type AppRunner interface {
	Replay(ctx context.Context, in apps.ReplayInput) (apps.ReplayOutput, error)
}

// ScheduleSync keeps the scheduler in step with a saved app: EventBridge
// Scheduler in AWS. Locally there is none: the local scheduler reads the
// store.
type ScheduleSync interface {
	Sync(ctx context.Context, a apps.App) error
	Remove(ctx context.Context, appID string) error
}

// AppsOptions configure Apps.
type AppsOptions struct {
	// Tools are the data tools a blueprint may call (nil: not checked).
	Tools []string
	// Sync, if set, is told of every saved and deleted app.
	Sync  ScheduleSync
	Now   func() time.Time
	NewID func() string
}

// Apps serves the saved apps' routes.
type Apps struct {
	store  apps.Store
	rl     *Relay // streams nothing: the logger every group shares
	auth   Authenticator
	runner AppRunner
	o      AppsOptions
}

// NewApps returns the saved apps' handler; runner may be nil (then POST
// …/run answers SERVICE_UNAVAILABLE).
func NewApps(store apps.Store, rl *Relay, au Authenticator, runner AppRunner, o AppsOptions) *Apps {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewID == nil {
		o.NewID = func() string { return "app-" + uuid.Must(uuid.NewV7()).String() }
	}
	return &Apps{store: store, rl: rl, auth: au, runner: runner, o: o}
}

// Mount registers the routes on mux.
func (a *Apps) Mount(mux *http.ServeMux) {
	Mount(mux, a.rl.Logger, map[string]HandlerFunc{
		"POST /api/apps":                       a.handleSave,
		"GET /api/apps":                        a.handleList,
		"GET /api/apps/{id}":                   a.ownedApp(a.handleGet),
		"DELETE /api/apps/{id}":                a.ownedApp(a.handleDelete),
		"POST /api/apps/{id}/run":              a.ownedApp(a.handleRun),
		"GET /api/apps/{id}/snapshots":         a.ownedApp(a.handleSnapshots),
		"GET /api/apps/{id}/snapshots/{runId}": a.ownedApp(a.handleSnapshot),
	})
}

// SaveAppRequest is the body of POST /api/apps.
type SaveAppRequest struct {
	Name      string          `json:"name"`
	Blueprint json.RawMessage `json:"blueprint"`
	Context   map[string]any  `json:"context"`
	Schedule  *apps.Schedule  `json:"schedule"`
}

func (a *Apps) handleSave(w http.ResponseWriter, r *http.Request) error {
	id, err := a.auth.Authenticate(r)
	if err != nil {
		return err
	}
	var body SaveAppRequest
	if err := decodeBody(w, r, maxBody, &body); err != nil {
		return err
	}
	bp, err := parseBlueprint(body.Blueprint, a.o.Tools)
	if err != nil {
		return err
	}
	// Every run builds with this context: its inputs must be complete now.
	if _, err := blueprint.ResolveInputs(bp, body.Context); err != nil {
		return err
	}
	now := a.o.Now().UTC()
	app := apps.App{ID: a.o.NewID(), TeacherID: id.TeacherID, Name: strings.TrimSpace(body.Name), Blueprint: body.Blueprint,
		Context: body.Context, Schedule: body.Schedule, CreatedAt: now, UpdatedAt: now}
	if app.Name == "" {
		app.Name = bp.Name
	}
	if len([]rune(app.Name)) > blueprint.MaxTextRunes {
		return apperr.New(apperr.ValidationError, "name is longer than %d characters", blueprint.MaxTextRunes)
	}
	if app.Schedule != nil {
		every, err := app.Schedule.Interval()
		if err != nil {
			return apperr.Wrap(err, apperr.ValidationError, "%v", err)
		}
		app.NextRunAt = now.Add(every)
	}
	if err := a.store.PutApp(r.Context(), app); err != nil {
		return apperr.Wrap(err, apperr.ServiceUnavailable, "app store unavailable")
	}
	if a.o.Sync != nil && app.Schedule != nil {
		if err := a.o.Sync.Sync(r.Context(), app); err != nil {
			return apperr.Wrap(err, apperr.ServiceUnavailable, "the app was saved but its schedule could not be set")
		}
	}
	a.rl.Logger.InfoContext(r.Context(), "app saved", "appId", app.ID, "teacherId", app.TeacherID, "scheduled", app.Schedule != nil)
	writeJSON(w, http.StatusCreated, app)
	return nil
}

func (a *Apps) handleList(w http.ResponseWriter, r *http.Request) error {
	id, err := a.auth.Authenticate(r)
	if err != nil {
		return err
	}
	list, err := a.store.ListApps(r.Context(), id.TeacherID)
	if err != nil {
		return apperr.Wrap(err, apperr.ServiceUnavailable, "app store unavailable")
	}
	writeJSON(w, http.StatusOK, map[string]any{"apps": list})
	return nil
}

// ownedApp is a route on the path's app {id}, which h gets if the caller
// owns it.
func (a *Apps) ownedApp(h func(w http.ResponseWriter, r *http.Request, app apps.App) error) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		app, err := a.owned(r)
		if err != nil {
			return err
		}
		return h(w, r, app)
	}
}

// owned returns the app if the caller owns it; another teacher's app is
// not found, so that ids cannot be probed.
func (a *Apps) owned(r *http.Request) (apps.App, error) {
	id, err := a.auth.Authenticate(r)
	if err != nil {
		return apps.App{}, err
	}
	app, err := a.store.GetApp(r.Context(), r.PathValue("id"))
	if errors.Is(err, apps.ErrNotFound) || (err == nil && app.TeacherID != id.TeacherID) {
		return apps.App{}, apperr.New(apperr.EntityNotFound, "app %q not found", r.PathValue("id"))
	}
	if err != nil {
		return apps.App{}, apperr.Wrap(err, apperr.ServiceUnavailable, "app store unavailable")
	}
	return app, nil
}

func (a *Apps) handleGet(w http.ResponseWriter, r *http.Request, app apps.App) error {
	writeJSON(w, http.StatusOK, app)
	return nil
}

func (a *Apps) handleDelete(w http.ResponseWriter, r *http.Request, app apps.App) error {
	if a.o.Sync != nil && app.Schedule != nil {
		if err := a.o.Sync.Remove(r.Context(), app.ID); err != nil {
			return apperr.Wrap(err, apperr.ServiceUnavailable, "the app's schedule could not be removed")
		}
	}
	if err := a.store.DeleteApp(r.Context(), app.ID); err != nil && !errors.Is(err, apps.ErrNotFound) {
		return apperr.Wrap(err, apperr.ServiceUnavailable, "app store unavailable")
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (a *Apps) handleRun(w http.ResponseWriter, r *http.Request, app apps.App) error {
	if a.runner == nil {
		return apperr.New(apperr.ServiceUnavailable, "apps cannot be run here")
	}
	longWait(w, 10*time.Minute) // the run's build has its own, shorter bound
	out, err := a.runner.Replay(r.Context(), apps.ReplayInput{AppID: app.ID, Trigger: apps.TriggerManual})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (a *Apps) handleSnapshots(w http.ResponseWriter, r *http.Request, app apps.App) error {
	snaps, err := a.store.ListSnapshots(r.Context(), app.ID)
	if err != nil {
		return apperr.Wrap(err, apperr.ServiceUnavailable, "app store unavailable")
	}
	for i := range snaps {
		snaps[i].Page = nil // the list is an index; a run's page is one GET away
	}
	writeJSON(w, http.StatusOK, map[string]any{"appId": app.ID, "snapshots": snaps})
	return nil
}

func (a *Apps) handleSnapshot(w http.ResponseWriter, r *http.Request, app apps.App) error {
	snap, err := a.store.GetSnapshot(r.Context(), app.ID, r.PathValue("runId"))
	if errors.Is(err, apps.ErrNotFound) {
		return apperr.New(apperr.EntityNotFound, "run %q of app %q not found", r.PathValue("runId"), app.ID)
	}
	if err != nil {
		return apperr.Wrap(err, apperr.ServiceUnavailable, "app store unavailable")
	}
	writeJSON(w, http.StatusOK, snap)
	return nil
}
