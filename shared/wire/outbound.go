package wire

import (
	"net/http"
	"time"
)

// outboundIdlePerHost is how many idle connections to one upstream are kept.
// Every streamed turn holds one connection to the model for its whole
// answer and gives it back between its model calls; net/http's default of
// 2 would close and redial nearly all of them under concurrent turns. A
// burst of turns leaves its connections idle when it ends: 64 keep that
// many concurrent turns warm, the rest are closed at once, and
// outboundIdleTimeout closes the kept ones after a quiet half minute
// (issue 32: after 200 concurrent turns, ~129 stayed open for minutes).
// A turn's next model call comes within seconds of its last one.
const (
	outboundIdlePerHost = 64
	outboundIdleTimeout = 30 * time.Second
)

// Outbound returns a client with a transport of its own for the requests the
// process makes (the model, search, report backends). Its own, not
// http.DefaultTransport: nothing else in the process (a library, a test
// server's Close) can close its connections under a streaming answer.
func Outbound() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = outboundIdlePerHost * 4
	t.MaxIdleConnsPerHost = outboundIdlePerHost
	t.IdleConnTimeout = outboundIdleTimeout
	// Every streamed turn holds a connection, and each keeps its buffers
	// for its life. 1 KB holds a request's or response's headers; a body
	// larger than the buffer is written or read past it, in one call.
	t.WriteBufferSize, t.ReadBufferSize = 1<<10, 1<<10
	return &http.Client{Transport: t}
}
