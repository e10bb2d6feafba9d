package scale_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
)

// counts are the uses of the partition keys, added up over meters.
type counts struct {
	keys                  map[string]dynamotest.KeyUse
	reads, writes         int
	readUnits, writeUnits float64
}

func tally(meters ...*dynamotest.Meter) counts {
	c := counts{keys: map[string]dynamotest.KeyUse{}}
	for _, m := range meters {
		for pk, u := range m.Keys() {
			c.keys[pk] = add(c.keys[pk], u)
			c.reads, c.writes = c.reads+u.Reads, c.writes+u.Writes
			c.readUnits, c.writeUnits = c.readUnits+u.ReadUnits, c.writeUnits+u.WriteUnits
		}
	}
	return c
}

func add(a, b dynamotest.KeyUse) dynamotest.KeyUse {
	return dynamotest.KeyUse{Reads: a.Reads + b.Reads, Writes: a.Writes + b.Writes,
		ReadUnits: a.ReadUnits + b.ReadUnits, WriteUnits: a.WriteUnits + b.WriteUnits}
}

// report prints the per-turn counts (of the turns alone: turns), the use
// by kind of key and the hottest key (of the whole run: all), and holds
// them to the budget.
func report(t *testing.T, turns, all counts, edge *dynamotest.Meter, streamed time.Duration) {
	t.Helper()
	n := float64(turnCount)
	relayReads := 0
	for pk, u := range edge.Keys() {
		if strings.HasPrefix(pk, "STREAM#") {
			relayReads += u.Reads
		}
	}
	byKind := map[string]dynamotest.KeyUse{}
	for pk, u := range all.keys {
		kind, _, _ := strings.Cut(pk, "#")
		byKind[kind] = add(byKind[kind], u)
	}
	for _, kind := range slices.Sorted(maps.Keys(byKind)) {
		t.Logf("%-9s %s", kind, byKind[kind])
	}
	hottest := slices.MaxFunc(slices.Collect(maps.Keys(all.keys)), func(a, b string) int { return all.keys[a].Writes - all.keys[b].Writes })
	share := float64(all.keys[hottest].Writes) / float64(all.writes)
	t.Logf("%d turns over %d conversations, then %d saved apps run twice and a sweep: %d reads, %d writes more; %d partition keys",
		turnCount, conversations, savedApps, all.reads-turns.reads, all.writes-turns.writes, len(all.keys))
	t.Logf("the relay: %.1f reads a second of an open stream (%d reads over %.1f stream-seconds, %.2f s a turn)",
		float64(relayReads)/streamed.Seconds(), relayReads, streamed.Seconds(), streamed.Seconds()/n)
	t.Logf("scale: per turn reads=%.1f writes=%.1f relayReads=%.1f readUnits=%.1f writeUnits=%.1f hottest=%.2f%% (%s)",
		float64(turns.reads)/n, float64(turns.writes)/n, float64(relayReads)/n, turns.readUnits/n, turns.writeUnits/n, 100*share, hottest)

	if float64(turns.writes)/n > maxWritesPerTurn {
		t.Errorf("%.1f items written a turn, budget %d", float64(turns.writes)/n, maxWritesPerTurn)
	}
	if float64(turns.reads)/n > maxReadsPerTurn {
		t.Errorf("%.1f reads a turn, budget %d", float64(turns.reads)/n, maxReadsPerTurn)
	}
	if float64(relayReads)/n > maxRelayReadsPerTurn {
		t.Errorf("the relay read the event log %.1f times a turn, budget %d", float64(relayReads)/n, maxRelayReadsPerTurn)
	}
	if share > maxKeyShare {
		t.Errorf("%s took %.2f%% of all %d writes, more than %.0f%%: a hot key", hottest, 100*share, all.writes, 100*maxKeyShare)
	}
}

// storedByKind lists the stored KB a turn by kind of partition key,
// largest first.
func storedByKind(s dynamotest.Stored) string {
	kinds := slices.Collect(maps.Keys(s.ByKind))
	slices.SortFunc(kinds, func(a, b string) int { return int(s.ByKind[b] - s.ByKind[a]) })
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %.2f", k, float64(s.ByKind[k])/1000/turnCount))
	}
	return strings.Join(parts, ", ")
}
