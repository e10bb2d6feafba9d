package dynamostore

// Saved apps: the apps.Store (and apps.DueLister) of the table.
//
//	PK              SK                         what
//	APP#<id>        META                       the app (value: JSON), teacherId, due and duePK (its pointer's key)
//	APP#<id>        SNAP#<run id>              one run (value: JSON), expires after Options.SnapshotTTL
//	TEACHER#<id>    APP#<app id>               the teacher's list: a pointer (appId)
//	APPS#DUE#<n>    <nextRunAt>#<app id>       the schedule's order: a pointer (appId), scheduled apps only
//
// The due index is split into dueShards partitions by a hash of the app
// id (shards.go): at 1,000,000 teachers a daily app each, schedules that
// fall on the same minute (the school's start) move that many pointers (a
// put and a delete a run), far beyond one partition's 1,000 writes a
// second; 32 shards take 16,000 runs a second. The app item keeps its
// pointer's key (due, duePK); an app saved before the shards (no duePK)
// has its pointer under APPS#DUE, which its next PutApp (its next run
// moves NextRunAt) deletes while writing the new one. DueApps reads the
// shards only: in AWS, EventBridge Scheduler runs the apps, and the local
// run keeps its apps in bbolt.
//
// The app item is the truth and the pointers are indexes kept without a
// transaction: PutApp writes the pointers before the app item and removes
// the ones it no longer needs after it; DeleteApp removes the app item
// first (a conditional delete decides which of two deletes wins) and its
// pointers and snapshots after it. So every app has its pointers, and a
// pointer whose app is gone or has moved on (a process that died between
// the writes) is skipped when read: ListApps and DueApps read the app items
// the pointers name (BatchGetItem, strongly consistent) and keep those that
// agree. The indexes are items of the table rather than secondary indexes
// so that reads stay strongly consistent and the table's schema stays the
// one CreateTableInput gives.
//
// In AWS, EventBridge Scheduler decides when an app runs; DueApps serves
// the contract (apps.DueLister) and an operator's sweep.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/insightedge/insightedge/shared/apps"
	"github.com/insightedge/insightedge/shared/clock"
)

// Key prefixes and attribute names of the saved apps' items.
const (
	prefixApp      = "APP#"
	prefixSnapshot = "SNAP#"
	prefixTeacher  = "TEACHER#"
	pkDue          = "APPS#DUE"
	dueShards      = 32
	attrAppID      = "appId"
	attrDue        = "due"
	attrDuePK      = "duePK"
	// dueTime is the pointer's time, fixed-width so that sort keys order
	// like the times.
	dueTime = "2006-01-02T15:04:05.000000000Z"
	// batchGetSize is DynamoDB's limit of keys a BatchGetItem.
	batchGetSize = 100
)

// AppsAPI is the part of the DynamoDB client the app store uses
// (*dynamodb.Client implements it): the session store's operations, and
// DeleteItem and BatchGetItem.
type AppsAPI interface {
	API
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
}

// AppStore is the apps.Store and apps.DueLister of a table; see the
// comment at the top of this file. Beyond the contract: an app needs a
// teacher id, and an item (an app, or a snapshot with its page) is at most
// DynamoDB's 400 KB.
type AppStore struct {
	t  *Table
	db AppsAPI
}

var (
	_ apps.Store     = (*AppStore)(nil)
	_ apps.DueLister = (*AppStore)(nil)
)

// NewAppStore returns the app store on the table name (the same table as
// the sessions', with the key schema of CreateTableInput).
func NewAppStore(db AppsAPI, name string, o Options) *AppStore {
	return &AppStore{t: New(db, name, o), db: db}
}

func appKey(id string) map[string]types.AttributeValue { return key(prefixApp+id, skMeta) }

func snapshotKey(appID, runID string) map[string]types.AttributeValue {
	return key(prefixApp+appID, prefixSnapshot+runID)
}

func teacherPointer(teacherID, appID string) map[string]types.AttributeValue {
	return key(prefixTeacher+teacherID, prefixApp+appID)
}

// dueSK is the sort key of a scheduled app's pointer; "" when a is not
// scheduled (as the local store, an app is due when it has a schedule and a
// next run time).
func dueSK(a apps.App) string {
	if a.Schedule == nil || a.NextRunAt.IsZero() {
		return ""
	}
	return a.NextRunAt.UTC().Format(dueTime) + "#" + a.ID
}

// dueKey is the partition of the app's due pointer: its shard.
func dueKey(appID string) string { return shardKey(pkDue, shardOf(appID, dueShards)) }

// duePointerPK is the partition of the due pointer an app item names:
// APPS#DUE for an item written before the shards.
func duePointerPK(app map[string]types.AttributeValue) string {
	return cmp.Or(getStr(app, attrDuePK), pkDue)
}

// PutApp implements apps.Store.
func (s *AppStore) PutApp(ctx context.Context, a apps.App) error {
	if err := nonEmpty("app id", a.ID, "teacher id", a.TeacherID); err != nil {
		return fmt.Errorf("dynamostore: put app: %w", err)
	}
	raw, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("dynamostore: put app %s: encode: %w", a.ID, err)
	}
	item := appKey(a.ID)
	item[attrValue] = &types.AttributeValueMemberB{Value: raw}
	item[attrTeacherID] = str(a.TeacherID)
	due, duePK := dueSK(a), dueKey(a.ID)
	setStr(item, attrDue, due)
	if due != "" {
		item[attrDuePK] = str(duePK)
	}

	// The pointers first: an app item is never without them.
	pointers := []map[string]types.AttributeValue{teacherPointer(a.TeacherID, a.ID)}
	if due != "" {
		pointers = append(pointers, key(duePK, due))
	}
	for _, p := range pointers {
		p[attrAppID] = str(a.ID)
	}
	if err := s.t.putAll(ctx, pointers); err != nil {
		return fmt.Errorf("dynamostore: put app %s: index: %w", a.ID, err)
	}
	out, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.t.name), Item: item,
		ReturnValues: types.ReturnValueAllOld})
	if err != nil {
		return fmt.Errorf("dynamostore: put app %s (%d bytes): %w", a.ID, len(raw), err)
	}
	// Then the pointers of the version replaced that this one has not.
	var stale []map[string]types.AttributeValue
	if old := getStr(out.Attributes, attrTeacherID); old != "" && old != a.TeacherID {
		stale = append(stale, teacherPointer(old, a.ID))
	}
	if old, oldPK := getStr(out.Attributes, attrDue), duePointerPK(out.Attributes); old != "" && (old != due || oldPK != duePK) {
		stale = append(stale, key(oldPK, old))
	}
	if err := s.t.deleteAll(ctx, stale); err != nil {
		// The app is saved; a stale pointer is skipped when read.
		return fmt.Errorf("dynamostore: put app %s: remove old index entries: %w", a.ID, err)
	}
	return nil
}

// GetApp implements apps.Store.
func (s *AppStore) GetApp(ctx context.Context, id string) (apps.App, error) {
	if id == "" {
		return apps.App{}, fmt.Errorf("dynamostore: get app: %w", apps.ErrNotFound)
	}
	item, err := s.t.get(ctx, appKey(id))
	if err == nil && item == nil {
		err = apps.ErrNotFound
	}
	var a apps.App
	if err == nil {
		a, err = decodeApp(item)
	}
	if err != nil {
		return apps.App{}, fmt.Errorf("dynamostore: get app %s: %w", id, err)
	}
	return a, nil
}

func decodeApp(item map[string]types.AttributeValue) (apps.App, error) {
	var a apps.App
	if err := json.Unmarshal(getBytes(item, attrValue), &a); err != nil {
		return apps.App{}, fmt.Errorf("decode app: %w", err)
	}
	return a, nil
}

// ListApps implements apps.Store: one query of the teacher's pointers and
// a batch read of the apps they name.
func (s *AppStore) ListApps(ctx context.Context, teacherID string) ([]apps.App, error) {
	if teacherID == "" {
		return []apps.App{}, nil
	}
	items, err := s.t.query(ctx, beginsWith(prefixTeacher+teacherID, prefixApp), 0)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: list apps of %s: %w", teacherID, err)
	}
	ids := make([]string, 0, len(items))
	for _, it := range items {
		ids = append(ids, getStr(it, attrAppID))
	}
	found, err := s.getApps(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: list apps of %s: %w", teacherID, err)
	}
	out := []apps.App{}
	for _, id := range ids {
		if a, ok := found[id]; ok && a.TeacherID == teacherID {
			out = append(out, a)
		}
	}
	slices.SortStableFunc(out, func(a, b apps.App) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// DueApps implements apps.DueLister: from every shard, its first limit
// due apps (its pointers in order, a page at a time, each checked against
// its app); then the first limit of them all in the pointers' order.
func (s *AppStore) DueApps(ctx context.Context, now time.Time, limit int) ([]apps.App, error) {
	out := []apps.App{}
	if limit <= 0 {
		return out, nil
	}
	var due []dueApp
	for shard := range dueShards {
		found, err := s.dueIn(ctx, shardKey(pkDue, shard), now, limit)
		if err != nil {
			return nil, fmt.Errorf("dynamostore: due apps: %w", err)
		}
		due = append(due, found...)
	}
	slices.SortFunc(due, func(a, b dueApp) int { return cmp.Compare(a.sk, b.sk) })
	for _, d := range due[:min(len(due), limit)] {
		out = append(out, d.app)
	}
	return out, nil
}

// dueApp is an app and its due pointer's sort key.
type dueApp struct {
	sk  string
	app apps.App
}

// dueIn returns the first limit due apps of one shard of the index.
func (s *AppStore) dueIn(ctx context.Context, pk string, now time.Time, limit int) ([]dueApp, error) {
	// Every pointer up to now: "$" sorts after the "#" that follows the time.
	in := &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("PK = :pk AND SK < :upper"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pk), ":upper": str(now.UTC().Format(dueTime) + "$")},
	}
	var out []dueApp
	err := s.t.queryPages(ctx, in, func(page []map[string]types.AttributeValue) (bool, error) {
		ids := make([]string, 0, len(page))
		for _, it := range page {
			ids = append(ids, getStr(it, attrAppID))
		}
		found, err := s.getApps(ctx, ids)
		if err != nil {
			return false, err
		}
		for _, it := range page {
			a, ok := found[getStr(it, attrAppID)]
			if !ok || dueSK(a) != getStr(it, AttrSK) {
				continue // a stale pointer: the app is gone or has moved on
			}
			if out = append(out, dueApp{getStr(it, AttrSK), a}); len(out) == limit {
				return true, nil
			}
		}
		return false, nil
	})
	return out, err
}

// getApps reads the apps ids (strongly consistent BatchGetItem); a missing
// app is left out.
func (s *AppStore) getApps(ctx context.Context, ids []string) (map[string]apps.App, error) {
	out := make(map[string]apps.App, len(ids))
	for chunk := range slices.Chunk(slices.Compact(slices.Sorted(slices.Values(ids))), batchGetSize) {
		keys := make([]map[string]types.AttributeValue, 0, len(chunk))
		for _, id := range chunk {
			if id != "" {
				keys = append(keys, appKey(id))
			}
		}
		wait := batchFirstWait
		for attempt := 1; len(keys) > 0; attempt++ {
			res, err := s.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				s.t.name: {Keys: keys, ConsistentRead: aws.Bool(true)}}})
			if err != nil {
				return nil, err
			}
			for _, item := range res.Responses[s.t.name] {
				a, err := decodeApp(item)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", strings.TrimPrefix(getStr(item, AttrPK), prefixApp), err)
				}
				out[a.ID] = a
			}
			keys = res.UnprocessedKeys[s.t.name].Keys
			if len(keys) == 0 {
				break
			}
			if attempt == batchAttempts {
				return nil, fmt.Errorf("%d keys still unprocessed after %d attempts", len(keys), batchAttempts)
			}
			if err := clock.Sleep(ctx, wait); err != nil {
				return nil, err
			}
			wait = min(2*wait, batchMaxWait)
		}
	}
	return out, nil
}

// DeleteApp implements apps.Store: the app item first, then its pointers
// and snapshots.
func (s *AppStore) DeleteApp(ctx context.Context, id string) error {
	if id == "" {
		return fmt.Errorf("dynamostore: delete app: %w", apps.ErrNotFound)
	}
	out, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:           aws.String(s.t.name),
		Key:                 appKey(id),
		ConditionExpression: aws.String("attribute_exists(PK)"),
		ReturnValues:        types.ReturnValueAllOld,
	})
	if conditionFailed(err) {
		err = apps.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("dynamostore: delete app %s: %w", id, err)
	}
	keys := []map[string]types.AttributeValue{teacherPointer(getStr(out.Attributes, attrTeacherID), id)}
	if due := getStr(out.Attributes, attrDue); due != "" {
		keys = append(keys, key(duePointerPK(out.Attributes), due))
	}
	q := beginsWith(prefixApp+id, prefixSnapshot)
	q.ProjectionExpression = aws.String(AttrPK + ", " + AttrSK)
	snaps, err := s.t.query(ctx, q, 0)
	if err != nil {
		return fmt.Errorf("dynamostore: delete app %s: list snapshots: %w", id, err)
	}
	for _, it := range snaps {
		keys = append(keys, key(getStr(it, AttrPK), getStr(it, AttrSK)))
	}
	if err := s.t.deleteAll(ctx, keys); err != nil {
		return fmt.Errorf("dynamostore: delete app %s: pointers and snapshots: %w", id, err)
	}
	return nil
}

// PutSnapshot implements apps.Store. A snapshot expires Options.SnapshotTTL
// after its last write; it does not check that the app exists.
func (s *AppStore) PutSnapshot(ctx context.Context, snap apps.Snapshot) error {
	if err := nonEmpty("app id", snap.AppID, "run id", snap.RunID); err != nil {
		return fmt.Errorf("dynamostore: put snapshot: %w", err)
	}
	raw, err := json.Marshal(snap)
	if err != nil {
		return fmt.Errorf("dynamostore: put snapshot %s/%s: encode: %w", snap.AppID, snap.RunID, err)
	}
	item := snapshotKey(snap.AppID, snap.RunID)
	putBinary(item, attrValue, raw) // a page: deflated (compress.go)
	item[AttrTTL] = num(s.t.o.Now().Add(s.t.o.SnapshotTTL).Unix())
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.t.name), Item: item}); err != nil {
		return fmt.Errorf("dynamostore: put snapshot %s/%s (%d bytes): %w", snap.AppID, snap.RunID, len(raw), err)
	}
	return nil
}

// GetSnapshot implements apps.Store.
func (s *AppStore) GetSnapshot(ctx context.Context, appID, runID string) (apps.Snapshot, error) {
	var snap apps.Snapshot
	err := apps.ErrNotFound
	if appID != "" && runID != "" {
		var item map[string]types.AttributeValue
		if item, err = s.t.get(ctx, snapshotKey(appID, runID)); err == nil && item == nil {
			err = apps.ErrNotFound
		}
		if err == nil {
			snap, err = decodeSnapshot(item)
		}
	}
	if err != nil {
		return apps.Snapshot{}, fmt.Errorf("dynamostore: get snapshot %s/%s: %w", appID, runID, err)
	}
	return snap, nil
}

// ListSnapshots implements apps.Store: one query of the app's partition.
func (s *AppStore) ListSnapshots(ctx context.Context, appID string) ([]apps.Snapshot, error) {
	out := []apps.Snapshot{}
	if appID == "" {
		return out, nil
	}
	items, err := s.t.query(ctx, beginsWith(prefixApp+appID, prefixSnapshot), 0)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: list snapshots %s: %w", appID, err)
	}
	for _, it := range items {
		snap, err := decodeSnapshot(it)
		if err != nil {
			return nil, fmt.Errorf("dynamostore: list snapshots %s: %w", appID, err)
		}
		out = append(out, snap)
	}
	slices.SortStableFunc(out, func(a, b apps.Snapshot) int {
		return cmp.Or(a.StartedAt.Compare(b.StartedAt), cmp.Compare(a.RunID, b.RunID))
	})
	return out, nil
}

func decodeSnapshot(item map[string]types.AttributeValue) (apps.Snapshot, error) {
	var snap apps.Snapshot
	raw, err := getBinary(item, attrValue)
	if err != nil {
		return apps.Snapshot{}, fmt.Errorf("decode snapshot %s: %w", getStr(item, AttrSK), err)
	}
	if err := json.Unmarshal(raw, &snap); err != nil {
		return apps.Snapshot{}, fmt.Errorf("decode snapshot %s: %w", getStr(item, AttrSK), err)
	}
	return snap, nil
}
