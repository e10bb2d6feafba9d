package research_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/records"
	"github.com/insightedge/insightedge/shared/research"
)

// The Store's tests run on records in memory: the backends pass
// recordstest, so the lifecycle and the single-stream rule behave the same
// locally and in AWS.

func newStore() research.Store { return research.NewStore(records.NewMemory()) }

var t0 = time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)

func newSession(id string) research.Session {
	return research.Session{ID: id, TeacherID: "t-001", Topic: "牛顿力学的发展", Language: "zh-CN", Status: research.Created,
		CreatedAt: t0, UpdatedAt: t0, ExpiresAt: t0.Add(7 * 24 * time.Hour)}
}

var proposal = research.Proposal{Topic: "牛顿力学的发展", TimeRange: "1589 年至 1905 年", FocusPoints: []string{"伽利略", "《原理》"},
	ExpectedMilestones: 6, SearchPlan: []string{"牛顿力学 历史", "Principia 1687"}, Language: "zh-CN"}

func create(t *testing.T, s research.Store, id string) {
	t.Helper()
	if err := s.CreateResearch(context.Background(), newSession(id)); err != nil {
		t.Fatal(err)
	}
}

func ready(t *testing.T, s research.Store, id string) {
	t.Helper()
	create(t, s, id)
	if _, err := research.ReadyProposal(context.Background(), s, id, proposal, t0); err != nil {
		t.Fatal(err)
	}
}

func TestStoreCreateGet(t *testing.T) {
	s := newStore()
	ctx := context.Background()
	create(t, s, "r1")
	got, err := s.GetResearch(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	want := newSession("r1")
	want.Version = 1
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if err := s.CreateResearch(ctx, newSession("r1")); !errors.Is(err, research.ErrExists) {
		t.Fatalf("second create: %v", err)
	}
}

func TestStoreMissing(t *testing.T) {
	s := newStore()
	ctx := context.Background()
	if _, err := s.GetResearch(ctx, "nope"); !errors.Is(err, research.ErrNotFound) {
		t.Fatalf("get: %v", err)
	}
	if _, err := s.UpdateResearch(ctx, "nope", func(*research.Session) error { return nil }); !errors.Is(err, research.ErrNotFound) {
		t.Fatalf("update: %v", err)
	}
	if _, _, err := research.Attach(ctx, s, "nope", "h", t0, t0.Add(time.Minute)); !errors.Is(err, research.ErrNotFound) {
		t.Fatalf("attach: %v", err)
	}
}

func TestStoreLifecycle(t *testing.T) {
	s := newStore()
	ctx := context.Background()
	create(t, s, "r1")
	if _, _, err := research.Attach(ctx, s, "r1", "h1", t0, t0.Add(time.Minute)); !errors.Is(err, research.ErrConflict) {
		t.Fatalf("attach before the proposal: %v", err)
	}
	got, err := research.ReadyProposal(ctx, s, "r1", proposal, t0.Add(time.Second))
	if err != nil || got.Status != research.ProposalReady || !reflect.DeepEqual(*got.Proposal, proposal) || got.Version != 2 {
		t.Fatalf("proposal: %+v %v", got, err)
	}
	if _, err := research.ReadyProposal(ctx, s, "r1", proposal, t0); !errors.Is(err, research.ErrConflict) {
		t.Fatalf("second proposal: %v", err)
	}
	at := t0.Add(2 * time.Second)
	got, started, err := research.Attach(ctx, s, "r1", "h1", at, at.Add(time.Minute))
	if err != nil || !started || got.Status != research.Executing || !got.StartedAt.Equal(at) {
		t.Fatalf("attach: %+v started=%v %v", got, started, err)
	}
	if err := research.Detach(ctx, s, "r1", "h1", at); err != nil {
		t.Fatal(err)
	}
	// A client that comes back attaches again, without a second run.
	if got, started, err = research.Attach(ctx, s, "r1", "h2", at, at.Add(time.Minute)); err != nil || started || got.Status != research.Executing {
		t.Fatalf("re-attach: %+v started=%v %v", got, started, err)
	}
	nodes := []research.SkeletonNode{{ID: "m01", Date: "1687-07-05", Title: "Principia", Significance: "revolutionary",
		Description: "A. B.", Sources: []string{"https://en.wikipedia.org/wiki/Principia"}, Status: "skeleton"}}
	if err := research.SaveSkeleton(ctx, s, "r1", nodes, at); err != nil {
		t.Fatal(err)
	}
	end := t0.Add(time.Minute)
	if got, err = research.End(ctx, s, "r1", research.Completed, nil, end); err != nil || got.Status != research.Completed || !got.EndedAt.Equal(end) {
		t.Fatalf("end: %+v %v", got, err)
	}
	got, err = s.GetResearch(ctx, "r1")
	if err != nil || !reflect.DeepEqual(got.Skeleton, nodes) || got.Attached != "h2" {
		t.Fatalf("after the end: %+v %v", got, err)
	}
	// A finished session's stream replays: attaching is allowed, nothing starts.
	if err := research.Detach(ctx, s, "r1", "h2", end); err != nil {
		t.Fatal(err)
	}
	if _, started, err := research.Attach(ctx, s, "r1", "h3", end, end.Add(time.Minute)); err != nil || started {
		t.Fatalf("attach to a finished session: started=%v %v", started, err)
	}
	if err := research.SaveSkeleton(ctx, s, "r1", nodes, end); !errors.Is(err, research.ErrConflict) {
		t.Fatalf("skeleton after the end: %v", err)
	}
}

func TestStoreOneStreamAtATime(t *testing.T) {
	s := newStore()
	ctx := context.Background()
	ready(t, s, "r1")
	if _, _, err := research.Attach(ctx, s, "r1", "h1", t0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := research.Attach(ctx, s, "r1", "h2", t0.Add(time.Second), t0.Add(time.Minute)); !errors.Is(err, research.ErrConflict) {
		t.Fatalf("second stream: %v", err)
	}
	if err := research.Renew(ctx, s, "r1", "h2", t0, t0.Add(time.Hour)); !errors.Is(err, research.ErrConflict) {
		t.Fatalf("renew by a stranger: %v", err)
	}
	if err := research.Renew(ctx, s, "r1", "h1", t0, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	// Detaching someone else's lease changes nothing.
	if err := research.Detach(ctx, s, "r1", "h2", t0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := research.Attach(ctx, s, "r1", "h2", t0.Add(2*time.Minute), t0.Add(3*time.Minute)); !errors.Is(err, research.ErrConflict) {
		t.Fatalf("attach while the renewed lease is live: %v", err)
	}
}

func TestStoreConcurrentAttachOneWins(t *testing.T) {
	s := newStore()
	ctx := context.Background()
	ready(t, s, "r1")
	const n = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins, starts := 0, 0
	for i := range n {
		wg.Go(func() {
			_, started, err := research.Attach(ctx, s, "r1", fmt.Sprintf("h%d", i), t0, t0.Add(time.Minute))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
				if started {
					starts++
				}
			case !errors.Is(err, research.ErrConflict):
				t.Errorf("attach %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if wins != 1 || starts != 1 {
		t.Fatalf("%d streams attached and %d runs started, want 1 and 1", wins, starts)
	}
}

func TestStoreLeaseExpires(t *testing.T) {
	s := newStore()
	ctx := context.Background()
	ready(t, s, "r1")
	if _, _, err := research.Attach(ctx, s, "r1", "crashed", t0, t0.Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	got, started, err := research.Attach(ctx, s, "r1", "h2", t0.Add(31*time.Second), t0.Add(time.Minute))
	if err != nil || started || got.Attached != "h2" {
		t.Fatalf("attach after the lease expired: %+v started=%v %v", got, started, err)
	}
}

func TestStoreEndOnce(t *testing.T) {
	s := newStore()
	ctx := context.Background()
	ready(t, s, "r1")
	if _, err := research.End(ctx, s, "r1", research.Completed, nil, t0); !errors.Is(err, research.ErrConflict) {
		t.Fatalf("complete before executing: %v", err)
	}
	if _, _, err := research.Attach(ctx, s, "r1", "h1", t0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			to, f := research.Completed, (*research.Failure)(nil)
			if i%2 == 1 {
				to, f = research.Failed, &research.Failure{Code: "timeout", Message: "m"}
			}
			_, errs[i] = research.End(ctx, s, "r1", to, f, t0)
		})
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
		} else if !errors.Is(err, research.ErrConflict) {
			t.Error(err)
		}
	}
	if won != 1 {
		t.Fatalf("%d Ends won, want 1", won)
	}
	got, _ := s.GetResearch(ctx, "r1")
	if !got.Status.Ended() || (got.Status == research.Failed) != (got.Failure != nil) {
		t.Fatalf("ended as %+v", got)
	}
	// A session that never got its proposal can fail too.
	create(t, s, "r2")
	if got, err := research.End(ctx, s, "r2", research.Failed, &research.Failure{Code: "ai_error", Message: "m"}, t0); err != nil || got.Status != research.Failed {
		t.Fatalf("fail a created session: %+v %v", got, err)
	}
}

func TestStoreFailedUpdateWritesNothing(t *testing.T) {
	s := newStore()
	ctx := context.Background()
	create(t, s, "r1")
	boom := errors.New("boom")
	if _, err := s.UpdateResearch(ctx, "r1", func(r *research.Session) error {
		r.Topic = "changed"
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("update: %v", err)
	}
	got, _ := s.GetResearch(ctx, "r1")
	if got.Topic != newSession("r1").Topic || got.Version != 1 {
		t.Fatalf("a failed update wrote %+v", got)
	}
}
