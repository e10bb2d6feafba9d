package dynamotest

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// Meter counts what a DynamoDB client asks of the table, by partition key:
// the items read and written and the capacity units DynamoDB reports for
// them (a batch's units shared evenly among its items), and every Query
// and Scan with its key and Limit. Add it to a client with Option; it sees
// every request of that client, whatever code sends it.
type Meter struct {
	mu      sync.Mutex
	keys    map[string]*KeyUse
	queries []Query
}

// KeyUse is what one partition key took.
type KeyUse struct {
	Reads, Writes         int     // items read (requests for a Query) and written
	ReadUnits, WriteUnits float64 // capacity units
}

// Query is one Query or Scan request.
type Query struct {
	Op    string // "Query" or "Scan"
	PK    string // the key condition's :pk ("" for a Scan)
	Limit int32  // 0: none
}

// NewMeter returns an empty Meter.
func NewMeter() *Meter { return &Meter{keys: map[string]*KeyUse{}} }

// Option adds the meter to a client's options (dynamodb.New, NewClient).
func (m *Meter) Option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("Meter", m.handle), middleware.After)
	})
}

func (m *Meter) handle(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	// Every input that can report its capacity has this field.
	if f := reflect.ValueOf(in.Parameters).Elem().FieldByName("ReturnConsumedCapacity"); f.IsValid() {
		f.Set(reflect.ValueOf(types.ReturnConsumedCapacityTotal))
	}
	out, md, err := next.HandleInitialize(ctx, in)
	op := awsmiddleware.GetOperationName(ctx)
	units := consumed(out.Result)
	reads, writes := keysOf(in.Parameters)
	m.mu.Lock()
	defer m.mu.Unlock()
	switch p := in.Parameters.(type) {
	case *dynamodb.QueryInput:
		q := Query{Op: op, PK: attrString(p.ExpressionAttributeValues[":pk"]), Limit: aws.ToInt32(p.Limit)}
		m.queries = append(m.queries, q)
		u := m.use(q.PK)
		u.Reads++
		u.ReadUnits += units
	case *dynamodb.ScanInput:
		m.queries = append(m.queries, Query{Op: op, Limit: aws.ToInt32(p.Limit)})
	}
	for _, pk := range reads {
		u := m.use(pk)
		u.Reads++
		u.ReadUnits += units / float64(len(reads))
	}
	if err != nil && units == 0 && len(writes) == 1 {
		units = 1 // a lost condition still takes a write unit
	}
	for _, pk := range writes {
		u := m.use(pk)
		u.Writes++
		u.WriteUnits += units / float64(len(writes))
	}
	return out, md, err
}

func (m *Meter) use(pk string) *KeyUse {
	u := m.keys[pk]
	if u == nil {
		u = &KeyUse{}
		m.keys[pk] = u
	}
	return u
}

// consumed adds up the capacity units an output reports.
func consumed(result any) float64 {
	v := reflect.ValueOf(result)
	if !v.IsValid() || v.Kind() != reflect.Pointer || v.IsNil() {
		return 0
	}
	f := v.Elem().FieldByName("ConsumedCapacity")
	var ccs []types.ConsumedCapacity
	switch cc := f.Interface().(type) {
	case *types.ConsumedCapacity:
		if cc != nil {
			ccs = append(ccs, *cc)
		}
	case []types.ConsumedCapacity:
		ccs = cc
	}
	var n float64
	for _, cc := range ccs {
		n += aws.ToFloat64(cc.CapacityUnits)
	}
	return n
}

// keysOf returns the partition keys of the items a request reads by key
// and of those it writes.
func keysOf(params any) (reads, writes []string) {
	pk := func(item map[string]types.AttributeValue) string { return attrString(item["PK"]) }
	switch p := params.(type) {
	case *dynamodb.GetItemInput:
		reads = append(reads, pk(p.Key))
	case *dynamodb.BatchGetItemInput:
		for _, ka := range p.RequestItems {
			for _, k := range ka.Keys {
				reads = append(reads, pk(k))
			}
		}
	case *dynamodb.PutItemInput:
		writes = append(writes, pk(p.Item))
	case *dynamodb.UpdateItemInput:
		writes = append(writes, pk(p.Key))
	case *dynamodb.DeleteItemInput:
		writes = append(writes, pk(p.Key))
	case *dynamodb.BatchWriteItemInput:
		for _, reqs := range p.RequestItems {
			for _, r := range reqs {
				if r.PutRequest != nil {
					writes = append(writes, pk(r.PutRequest.Item))
				} else if r.DeleteRequest != nil {
					writes = append(writes, pk(r.DeleteRequest.Key))
				}
			}
		}
	}
	return reads, writes
}

func attrString(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// Keys returns a copy of the use by partition key.
func (m *Meter) Keys() map[string]KeyUse {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]KeyUse, len(m.keys))
	for k, u := range m.keys {
		out[k] = *u
	}
	return out
}

// Queries returns the Query and Scan requests so far, in order.
func (m *Meter) Queries() []Query {
	m.mu.Lock()
	out := append([]Query(nil), m.queries...)
	m.mu.Unlock()
	return out
}

// Reset forgets everything counted.
func (m *Meter) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.keys, m.queries = map[string]*KeyUse{}, nil
}

// Unbounded returns the requests that read a shared partition whole: every
// Scan, and every Query of a shared key without a Limit. shared tells a
// shared key (SharedKeys).
func (m *Meter) Unbounded(shared func(pk string) bool) []Query {
	var out []Query
	for _, q := range m.Queries() {
		if q.Op == "Scan" || q.Limit == 0 && shared(q.PK) {
			out = append(out, q)
		}
	}
	return out
}

// SharedKeys reads the package shared/dynamostore (its non-test files) for
// the partition keys it keeps for the whole product, the string constants
// named pk… (pkLeases, pkDue: a key that names no entity; a per-entity key
// is a prefix… constant followed by an id), and returns the test of a key
// being one of them or one of their shards (<key>#<n>).
func SharedKeys() (func(pk string) bool, []string, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, nil, err
	}
	files, err := filepath.Glob(filepath.Join(root, "shared", "dynamostore", "*.go"))
	if err != nil {
		return nil, nil, err
	}
	var bases []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, id := range vs.Names {
				lit, ok := valueAt(vs, i).(*ast.BasicLit)
				if ok && lit.Kind == token.STRING && strings.HasPrefix(id.Name, "pk") {
					if v, err := strconv.Unquote(lit.Value); err == nil {
						bases = append(bases, v)
					}
				}
			}
			return false
		})
	}
	if len(bases) == 0 {
		return nil, nil, errors.New("dynamostore declares no pk… constant: SharedKeys reads the wrong files")
	}
	return func(pk string) bool {
		for _, b := range bases {
			rest, ok := strings.CutPrefix(pk, b)
			if !ok {
				continue
			}
			if n, isShard := strings.CutPrefix(rest, "#"); rest == "" || isShard && isDigits(n) {
				return true
			}
		}
		return false
	}, bases, nil
}

func valueAt(vs *ast.ValueSpec, i int) ast.Expr {
	if i < len(vs.Values) {
		return vs.Values[i]
	}
	return nil
}

func isDigits(s string) bool {
	_, err := strconv.ParseUint(s, 10, 32)
	return err == nil
}

// String is the use of a key in one line.
func (u KeyUse) String() string {
	return fmt.Sprintf("reads %d (%.1f units), writes %d (%.1f units)", u.Reads, u.ReadUnits, u.Writes, u.WriteUnits)
}
