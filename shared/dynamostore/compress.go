package dynamostore

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Large binary values (an event's data, a record's value, a snapshot) are
// stored deflated: DynamoDB charges a write unit per KB of the item and a
// read unit per 4 KB, and the JSON the product stores (a turn's history, a
// build's data, a page's COMPLETE event) deflates to a fraction. A value
// is deflated only when it is at least minPacked bytes and the result is
// smaller; it is then held in the attribute named by packedName(plain)
// instead of plain, so items written before (or small values) read as
// they always did.
const minPacked = 256

// packedName is the attribute holding the deflated form of attribute name.
func packedName(name string) string { return name + "z" }

var writers = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.DefaultCompression) // the level is valid
	return w
}}

// pack returns b deflated, or nil when that does not make it smaller.
func pack(b []byte) []byte {
	if len(b) < minPacked {
		return nil
	}
	var buf bytes.Buffer
	buf.Grow(len(b) / 3)
	w := writers.Get().(*flate.Writer)
	defer writers.Put(w)
	w.Reset(&buf)
	if _, err := w.Write(b); err != nil {
		return nil
	}
	if err := w.Close(); err != nil || buf.Len() >= len(b) {
		return nil
	}
	return buf.Bytes()
}

// putBinary sets attribute name of m to b, deflated when that is smaller;
// an empty b sets nothing (DynamoDB takes no empty binary value).
func putBinary(m map[string]types.AttributeValue, name string, b []byte) {
	switch z := pack(b); {
	case z != nil:
		m[packedName(name)] = &types.AttributeValueMemberB{Value: z}
	case len(b) > 0:
		m[name] = &types.AttributeValueMemberB{Value: b}
	}
}

// maxUnpacked bounds what a packed value may inflate to: an item is at
// most 400 KB, and JSON deflates to no less than about a hundredth.
const maxUnpacked = 64 << 20

// getBinary returns the value putBinary stored under name (nil if none).
func getBinary(m map[string]types.AttributeValue, name string) ([]byte, error) {
	z := getBytes(m, packedName(name))
	if z == nil {
		return getBytes(m, name), nil
	}
	r := flate.NewReader(bytes.NewReader(z))
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxUnpacked+1))
	if err == nil && len(b) > maxUnpacked {
		err = fmt.Errorf("inflates past %d bytes", maxUnpacked)
	}
	if err != nil {
		return nil, fmt.Errorf("dynamostore: attribute %s: %w", packedName(name), err)
	}
	return b, nil
}
