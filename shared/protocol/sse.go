package protocol

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
)

// SSEWriter frames Server-Sent Events. It flushes after each event when the
// underlying writer can, and works when it cannot (the Lambda Function URL
// writer sends every Write as its own chunk and has no Flush).
type SSEWriter struct {
	w   io.Writer
	rc  *http.ResponseController
	buf bytes.Buffer
}

// NewSSEWriter returns a writer over w; when w is an http.ResponseWriter it
// is flushed through an http.ResponseController.
func NewSSEWriter(w io.Writer) *SSEWriter {
	s := &SSEWriter{w: w}
	if rw, ok := w.(http.ResponseWriter); ok {
		s.rc = http.NewResponseController(rw)
	}
	return s
}

// SetHeaders sets the headers common to every SSE stream (PROTOCOL.md).
func SetHeaders(h http.Header) {
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	h.Set("Connection", "keep-alive")
}

// Event writes one event: "id: <id>" when id > 0, an "event:" line when name
// is set, and data (which must not contain a newline: JSON does not).
func (s *SSEWriter) Event(id int64, name string, data []byte) error {
	s.buf.Reset()
	if id > 0 {
		s.buf.WriteString("id: ")
		s.buf.Write(strconv.AppendInt(s.buf.AvailableBuffer(), id, 10))
		s.buf.WriteByte('\n')
	}
	if name != "" {
		s.buf.WriteString("event: ")
		s.buf.WriteString(name)
		s.buf.WriteByte('\n')
	}
	s.buf.WriteString("data: ")
	s.buf.Write(data)
	s.buf.WriteString("\n\n")
	return s.write()
}

// Comment writes a comment line, ignored by clients (the heartbeat).
func (s *SSEWriter) Comment(text string) error {
	s.buf.Reset()
	s.buf.WriteString(": ")
	s.buf.WriteString(text)
	s.buf.WriteString("\n\n")
	return s.write()
}

func (s *SSEWriter) write() error {
	if _, err := s.w.Write(s.buf.Bytes()); err != nil {
		return err
	}
	return s.Flush()
}

// Flush pushes buffered bytes to the client where the writer supports it.
func (s *SSEWriter) Flush() error {
	if s.rc != nil {
		if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		return nil
	}
	if f, ok := s.w.(interface{ Flush() }); ok {
		f.Flush()
	}
	return nil
}

// Done is the UI message stream's terminator.
var Done = []byte("[DONE]")
