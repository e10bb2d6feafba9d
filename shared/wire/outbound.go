package wire

import "net/http"

// outboundIdlePerHost is how many idle connections to one upstream are kept.
// Every streamed turn holds one connection to the model for its whole
// answer; net/http's default of 2 would close and redial nearly all of them
// under concurrent turns.
const outboundIdlePerHost = 256

// Outbound returns a client with a transport of its own for the requests the
// process makes (the model, search, report backends). Its own, not
// http.DefaultTransport: nothing else in the process (a library, a test
// server's Close) can close its connections under a streaming answer.
func Outbound() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = outboundIdlePerHost * 4
	t.MaxIdleConnsPerHost = outboundIdlePerHost
	// Every streamed turn holds a connection, and each keeps its buffers
	// for its life. 1 KB holds a request's or response's headers; a body
	// larger than the buffer is written or read past it, in one call.
	t.WriteBufferSize, t.ReadBufferSize = 1<<10, 1<<10
	return &http.Client{Transport: t}
}
