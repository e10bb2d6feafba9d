package jsonread

import (
	"strings"
	"testing"
)

// plain8 must agree with the byte-by-byte test for every byte value in
// every position, alone and next to another byte.
func TestPlain8(t *testing.T) {
	plain := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '\\' }
	for _, fill := range []byte{'a', 0x20, 0x7f, 0x21, '"'} {
		for pos := range 8 {
			for c := range 256 {
				b := []byte(strings.Repeat(string(fill), 8))
				b[pos] = byte(c)
				want := plain(fill) && plain(byte(c))
				if got := plain8(string(b)); got != want {
					t.Errorf("plain8(%q) = %v, want %v", b, got, want)
				}
			}
		}
	}
}
