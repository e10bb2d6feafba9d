package dynamotest

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestValueSize holds valueSize to DynamoDB's rules for item size.
func TestValueSize(t *testing.T) {
	for _, c := range []struct {
		name string
		v    types.AttributeValue
		want int64
	}{
		{"string: its UTF-8 bytes", &types.AttributeValueMemberS{Value: "牛顿"}, 6},
		{"binary: its bytes", &types.AttributeValueMemberB{Value: make([]byte, 90)}, 90},
		{"number: two digits a byte, plus one", &types.AttributeValueMemberN{Value: "123"}, 3},
		{"number: zeros at either end trimmed", &types.AttributeValueMemberN{Value: "1000"}, 2},
		{"number: sign and point not counted", &types.AttributeValueMemberN{Value: "-12.5"}, 3},
		{"boolean", &types.AttributeValueMemberBOOL{Value: true}, 1},
		{"null", &types.AttributeValueMemberNULL{Value: true}, 1},
		{"list: 3 bytes, one an element", &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberS{Value: "ab"}, &types.AttributeValueMemberBOOL{}}}, 3 + 1 + 2 + 1 + 1},
		{"map: with its names", &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"d": &types.AttributeValueMemberS{Value: "xy"}}}, 3 + 1 + 1 + 2},
		{"string set", &types.AttributeValueMemberSS{Value: []string{"a", "bc"}}, 3},
	} {
		if got := valueSize(c.v); got != c.want {
			t.Errorf("%s: %d bytes, want %d", c.name, got, c.want)
		}
	}
}
