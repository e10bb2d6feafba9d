package main

import (
	_ "embed"
	"net/http"
)

//go:embed console.html
var consoleHTML []byte

// console serves the dev console: a small page to talk to the local server.
func console(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'")
	_, _ = w.Write(consoleHTML)
}
