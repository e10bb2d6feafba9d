package boltstore

import (
	"errors"
	"runtime"
	"sync"

	"go.etcd.io/bbolt"
)

// Group commit of the session store's writes (issue 29 item 3).
//
// A turn writes the store six or seven times (its session, lease, begin,
// records, end), and each bbolt commit costs the same whatever it holds:
// its dirty pages written one system call each, the meta page, the
// transaction's set-up. Under load many turns write at once, so the writes
// that arrive while one commit runs are queued and the next commit takes
// them all: one caller leads it and runs every queued fn, in order, in one
// transaction; the others wait for its answer. An idle store commits at
// once, as before: nothing waits for company.
//
// Every fn still runs inside one read-write transaction, alone (the fns of
// a group run one after the other, each seeing the writes of those before
// it), and its caller is answered only once the transaction that holds its
// writes is committed: the conditional writes (one active turn, a turn
// ends once) cannot both win, as with one Update each. A fn that fails
// rolls its group back, so it must not be charged to the others: it runs
// again alone (its answer is that run's) and the rest of the group is
// committed without it. So a fn may run more than once, and must only
// read and write through tx and set what it returns (bbolt's DB.Batch
// asks the same); the fns of SessionStore do. A fn that panics (a bug)
// panics in the leader's goroutine, whoever's fn it was: its group is
// rolled back and answered errGroupPanicked, and the queue gets a new
// leader, so that no writer waits for ever.

// maxGroup bounds the fns of one commit, and so the re-runs of its
// failures.
const maxGroup = 64

// grouper queues the fns of writes for the next group commit.
type grouper struct {
	bolt *bbolt.DB

	mu      sync.Mutex
	queue   []*groupCall
	leading bool // a caller is committing a group; the next one is queued
	commits int  // transactions committed or tried, for tests and benchmarks
	// onQueue, when set (by tests), is told the queue's length after each
	// call joins it; it runs under mu.
	onQueue func(n int)
}

// groupCall is one queued fn; done receives true when the caller is to
// lead the next group, false when its fn has been answered (err).
type groupCall struct {
	fn       func(*bbolt.Tx) error
	err      error
	answered bool // set by the leader
	done     chan bool
}

// errGroupPanicked answers the writes of a group in which a fn panicked.
var errGroupPanicked = errors.New("boltstore: a write committed with this one panicked; nothing was written")

// grouped runs fn in a write transaction, shared with the writes of other
// callers queued meanwhile (see the comment above), after the events
// appended before it are committed, as update does.
func (d *DB) grouped(fn func(*bbolt.Tx) error) error {
	if err := d.events.barrier(); err != nil {
		return err
	}
	return d.group.run(fn)
}

func (g *grouper) run(fn func(*bbolt.Tx) error) error {
	c := &groupCall{fn: fn, done: make(chan bool, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, c)
	if g.onQueue != nil {
		g.onQueue(len(g.queue))
	}
	wait := g.leading
	g.leading = true
	g.mu.Unlock()
	if wait && !<-c.done {
		return c.err
	}
	// c leads: it is the queue's first call (the queue was empty, or the
	// last leader handed over to its head). The goroutines ready to run
	// run first, once: on one core (GOMAXPROCS=1) a commit never waits,
	// so writes would otherwise never meet in a queue; on an idle store
	// there is none and this returns at once.
	runtime.Gosched()
	g.mu.Lock()
	n := min(len(g.queue), maxGroup)
	batch := g.queue[:n:n]
	g.queue = g.queue[n:]
	g.mu.Unlock()
	defer g.handOver(batch) // also when a fn panics
	g.commit(batch)
	return c.err
}

// handOver answers what a panic left unanswered in batch, and makes the
// queue's head the next leader, if any.
func (g *grouper) handOver(batch []*groupCall) {
	for _, c := range batch {
		if !c.answered {
			c.answer(errGroupPanicked)
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.queue) > 0 {
		g.queue[0].done <- true
		return
	}
	g.leading = false
	g.queue = nil // the backing array's head is spent
}

// commit runs the calls in one transaction and answers them; a failing
// call is answered by a run of its own and the others are run again
// without it. Each round answers one call at least.
func (g *grouper) commit(calls []*groupCall) {
	for len(calls) > 0 {
		failed := -1
		err := g.update(func(tx *bbolt.Tx) error {
			for i, c := range calls {
				if err := c.fn(tx); err != nil {
					failed = i
					return err
				}
			}
			return nil
		})
		if failed < 0 || len(calls) == 1 {
			for _, c := range calls {
				c.answer(err)
			}
			return
		}
		c := calls[failed]
		c.answer(g.update(c.fn))
		calls = append(calls[:failed:failed], calls[failed+1:]...)
	}
}

func (g *grouper) update(fn func(*bbolt.Tx) error) error {
	g.mu.Lock()
	g.commits++
	g.mu.Unlock()
	return g.bolt.Update(fn)
}

func (c *groupCall) answer(err error) {
	c.err, c.answered = err, true
	c.done <- false
}
