package llm

import (
	"encoding/json"
	"reflect"
	"testing"

	gojson "github.com/goccy/go-json"
)

// chunkSeeds are chunks as providers send them, and the corners of
// encoding/json's behaviour that decodeChunk must share.
var chunkSeeds = []string{
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"logprobs":null,"finish_reason":null}],"usage":null}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"final_result","arguments":"{\"status\":"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning_content":"思考\n","content":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_tokens_details":{"cached_tokens":0}}}`,
	`{"choices":[],"usage":{"prompt_tokens":1}}`,
	`null`, ` {} `, `[]`, `"x"`, `{"choices":null}`, `{"choices":[null,{}]}`,
	`{"CHOICES":[{"Index":2,"DELTA":{"Content":"k"}}]}`, `{"choices":[{"ſelta":{}}]}`, `{"\u0063hoices":[{"delta":{"content":"\ud83d\ude00\ud800x\u00e9\/"}}]}`,
	`{"choices":[{"index":1}],"choices":[],"choices":[{}]}`, `{"choices":[{"index":1,"delta":{"content":"a"}}],"choices":[{"delta":{}}]}`,
	`{"choices":[{"index":1.5}]}`, `{"choices":[{"index":-0}]}`, `{"choices":[{"index":1e2}]}`, `{"choices":[{"index":99999999999999999999}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":null,"function":null},{"index":3}]}}]}`, `{"choices":[{"delta":{"tool_calls":[]}}]}`,
	`{"choices":[{"delta":{"content":5}}]}`, `{"choices":{}}`, `{"choices":[{"delta":"x"}]}`, `{"a":[1,2,{"b":[true,false,null]}],"choices":[]}`,
	"{\"choices\":[{\"delta\":{\"content\":\"\xff\xfe ok\"}}]}", "{\"choices\":[{\"delta\":{\"content\":\"a\tb\"}}]}",
	`{"choices":[{"delta":{"content":"x"}}]}x`, `{"choices":[{"delta":{"content":"x"}}]`, `{"choices":[{"delta":{"content":"x"},}]}`,
	`{"n":01}`, `{"n":-}`, `{"n":1.}`, `{"n":1e}`, `{"s":"\x"}`, `{"s":"\u12"}`, ``, ` `, `nul`, `{"choices":[1]}`,
}

// FuzzDecodeChunk holds decodeChunk to json.Unmarshal: the same inputs
// accepted, the same value decoded, from a zero value and from the value
// the previous chunk left (the reader reuses it).
func FuzzDecodeChunk(f *testing.F) {
	for _, s := range chunkSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		prev := streamChunk{Choices: make([]streamChoice, 1, 4)}
		prev.Choices[0].Index = 7
		prev.Choices = prev.Choices[:0]
		for _, start := range []streamChunk{{}, prev} {
			want, got := start, start
			want.Choices = append([]streamChoice(nil), start.Choices[:cap(start.Choices)]...)[:len(start.Choices)]
			wantErr := json.Unmarshal(data, &want)
			gotErr := decodeChunk(data, &got)
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("%q: encoding/json error %v, decodeChunk error %v", data, wantErr, gotErr)
			}
			if wantErr == nil && !reflect.DeepEqual(want, got) {
				t.Fatalf("%q:\nencoding/json %+v\ndecodeChunk   %+v", data, want, got)
			}
		}
	})
}

// benchChunks are the chunks of a streamed answer as the load benchmark's
// mock (and OpenAI) sends them: a text delta, a tool call's argument
// fragment, and the usage chunk that ends an answer.
var benchChunks = []struct{ name, data string }{
	{"text", `{"id":"chatcmpl-loadbench","object":"chat.completion.chunk","created":1764115200,"model":"mock","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":"化学能"},"logprobs":null,"finish_reason":null}]}`},
	{"tool-call", `{"id":"chatcmpl-loadbench","object":"chat.completion.chunk","created":1764115200,"model":"mock","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"已为您生成 5 道\\n"}}]},"logprobs":null,"finish_reason":null}]}`},
	{"usage", `{"id":"chatcmpl-loadbench","object":"chat.completion.chunk","created":1764115200,"model":"mock","choices":[],"usage":{"prompt_tokens":1834,"completion_tokens":200,"total_tokens":2034,"prompt_tokens_details":{"cached_tokens":1024},"completion_tokens_details":{"reasoning_tokens":0}}}`},
}

// BenchmarkDecodeChunk decodes each kind of chunk into the reader's
// reused value: encoding/json, github.com/goccy/go-json (alone, and after
// json.Valid, which it needs to reject what encoding/json rejects), and
// decodeChunk.
func BenchmarkDecodeChunk(b *testing.B) {
	decoders := []struct {
		name   string
		decode func([]byte, *streamChunk) error
	}{
		{"encoding-json", func(d []byte, c *streamChunk) error { return json.Unmarshal(d, c) }},
		{"goccy", func(d []byte, c *streamChunk) error { return gojson.Unmarshal(d, c) }},
		{"goccy-valid", func(d []byte, c *streamChunk) error {
			if !json.Valid(d) {
				return errChunkSyntax
			}
			return gojson.Unmarshal(d, c)
		}},
		{"decodeChunk", decodeChunk},
	}
	for _, ch := range benchChunks {
		data := []byte(ch.data)
		for _, dec := range decoders {
			b.Run(ch.name+"/"+dec.name, func(b *testing.B) {
				b.ReportAllocs()
				var c streamChunk
				for b.Loop() {
					choices := c.Choices[:cap(c.Choices)]
					clear(choices)
					c = streamChunk{Choices: choices[:0]}
					if err := dec.decode(data, &c); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
