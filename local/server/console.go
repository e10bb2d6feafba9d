package server

import (
	"bytes"
	_ "embed"
	"net/http"
)

//go:embed console.html
var consoleHTML []byte

// consoleCSP lets the console run its own inline script and style and talk
// to this server only. Interactive pages may come from a configured public
// file URL on another origin: they are framed with sandbox="allow-scripts"
// (an opaque origin), and their own CSP forbids every load.
const consoleCSP = "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; frame-src 'self' http: https:"

// console serves the dev console: a small page to talk to the local server
// that also shows a frontend engineer every wire format (docs in the page).
// With the offline stand-in model answering, the page says so.
func console(offline bool) http.HandlerFunc {
	page := consoleHTML
	if offline {
		page = bytes.Replace(consoleHTML, []byte(`<body>`), []byte(`<body data-model="offline">`), 1)
	}
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", consoleCSP)
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(page)
	}
}

// faviconSVG is the console's icon: browsers ask for /favicon.ico on every
// page, and a 404 there is an error in their console.
const faviconSVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#334"/><path d="M9 23V9h3v14zm6 0V9h9v3h-6v2.5h5v3h-5V20h6v3z" fill="#fff"/></svg>`

func favicon(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	_, _ = w.Write([]byte(faviconSVG))
}
