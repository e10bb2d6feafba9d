package protocol

import (
	"bytes"
	"testing"
)

// FuzzMarshalChunkFast holds the written-out chunks of MarshalChunk to
// encoding/json's encoding of the same chunk.
func FuzzMarshalChunkFast(f *testing.F) {
	for _, s := range []string{"", "text-1-2", "已为您生成 5 道选择题，", "a\"b\\c\n\r\t\b\f\x00\x1f\x7f", "<&>", "\u2028\u2029", "\xff\xfe", "\xed\xa0\x80", "😀"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, id, delta string) {
		for _, c := range []Chunk{TextDelta{ID: id, Delta: delta}, ReasoningDelta{ID: id, Delta: delta},
			TextStart{ID: id}, TextEnd{ID: id}, StartStep{}, FinishStep{}} {
			got, err := MarshalChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			want, err := marshalChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%T:\n got %q\nwant %q", c, got, want)
			}
		}
	})
}

// BenchmarkMarshalTextDelta: a text-delta chunk written out, and by
// encoding/json (as before).
func BenchmarkMarshalTextDelta(b *testing.B) {
	c := TextDelta{ID: "text-1-2", Delta: "已为您生成 5 道关于牛顿第一定律的选择题，"}
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := marshalChunk(c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("written", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := MarshalChunk(c); err != nil {
				b.Fatal(err)
			}
		}
	})
}
