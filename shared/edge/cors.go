package edge

// CORS is the cross-origin policy of the HTTP routes, one for the whole
// product: in AWS the Function URL and the HTTP API apply it (template.yaml's
// two Cors blocks, with the origins of the CorsAllowOrigins parameter; a
// test in test/aws holds the lists equal to these), and the local server
// applies it itself, with the origins of CORS_ALLOW_ORIGINS. The edge
// handler does not write CORS headers: both AWS front doors replace them.
type CORS struct {
	AllowMethods []string
	// AllowHeaders are the request headers a page may send: the bearer
	// token, JSON bodies, the resume cursor, the conversation id it got
	// back, a trace id.
	AllowHeaders []string
	// ExposeHeaders are the response headers a page may read: the new
	// conversation's id, the stream kind, the build's id and mode, the
	// research session, the trace id.
	ExposeHeaders []string
	// MaxAge is how long (s) a browser may keep a preflight's answer.
	MaxAge int
}

// CORSPolicy returns the product's CORS policy.
func CORSPolicy() CORS {
	return CORS{
		AllowMethods:  []string{"GET", "POST", "DELETE"},
		AllowHeaders:  []string{"authorization", "content-type", "last-event-id", "x-conversation-id", "x-trace-id"},
		ExposeHeaders: []string{"x-conversation-id", "x-trace-id", "x-vercel-ai-ui-message-stream", "x-build-id", "x-build-mode", "x-research-session"},
		MaxAge:        300,
	}
}
