package protocol

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
)

// SSEWriter frames Server-Sent Events into a buffer and sends them with
// one Write and a flush when the underlying writer can (the Lambda
// Function URL writer sends every Write as its own chunk and has no
// Flush). Event and Comment send at once; Add frames an event to be sent
// by the next Flush, so that the events ready together go out in one
// system call.
type SSEWriter struct {
	w   io.Writer
	rc  *http.ResponseController
	buf bytes.Buffer
}

// maxKeptBuffer is the largest buffer an SSEWriter keeps between flushes:
// an open stream does not hold on to the memory of one large batch.
const maxKeptBuffer = 64 << 10

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

// Event writes one event and sends it (Add, then Flush).
func (s *SSEWriter) Event(id int64, name string, data []byte) error {
	s.Add(id, name, data)
	return s.Flush()
}

// Add frames one event after those not yet sent: "id: <id>" when id > 0,
// an "event:" line when name is set, and data (which must not contain a
// newline: JSON does not). Flush sends it.
func (s *SSEWriter) Add(id int64, name string, data []byte) {
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
}

// Buffered is the number of bytes framed and not yet sent.
func (s *SSEWriter) Buffered() int { return s.buf.Len() }

// Comment writes a comment line, ignored by clients (the heartbeat), and
// sends it with what was framed before it.
func (s *SSEWriter) Comment(text string) error {
	s.buf.WriteString(": ")
	s.buf.WriteString(text)
	s.buf.WriteString("\n\n")
	return s.Flush()
}

// Flush sends the framed events in one Write and pushes them to the
// client where the writer supports it (with nothing framed, it only
// flushes: the response headers).
func (s *SSEWriter) Flush() error {
	if s.buf.Len() > 0 {
		_, err := s.w.Write(s.buf.Bytes())
		if s.buf.Cap() > maxKeptBuffer {
			s.buf = bytes.Buffer{}
		} else {
			s.buf.Reset()
		}
		if err != nil {
			return err
		}
	}
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
