// Package standin serves the local stand-ins for outside services (the Java
// data service, the web search) over real HTTP on loopback.
package standin

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Serve serves h on addr ("127.0.0.1:0" picks a free port) until ctx ends
// and returns its base URL; done is closed once the server has stopped.
func Serve(ctx context.Context, addr string, h http.Handler) (baseURL string, done <-chan struct{}, err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("stand-in: listen %s: %w", addr, err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		// Serve returns http.ErrServerClosed after Shutdown; any other error
		// also ends serving, which done reports.
		_ = hs.Serve(ln)
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if hs.Shutdown(sctx) != nil {
			_ = hs.Close()
		}
	}()
	return "http://" + ln.Addr().String(), stopped, nil
}

// WriteJSON writes v as a JSON response with status. It leaves <, > and &
// as they are, as the services stood in for (Java's Jackson, Tavily) do:
// templates and search results carry HTML.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// ReadJSON decodes an admin request's body (64 KiB at most, no unknown
// fields) into v; when it cannot, it answers 400 and returns false.
func ReadJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(io.LimitReader(r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		WriteError(w, http.StatusBadRequest, err)
		return false
	}
	return true
}

// WriteError answers an admin request with status and {"error": err}.
func WriteError(w http.ResponseWriter, status int, err error) {
	WriteJSON(w, status, map[string]string{"error": err.Error()})
}
