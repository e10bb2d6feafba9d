package quizexport

import (
	"archive/zip"
	"fmt"
	"io"
	"time"
)

// zipWriter writes a zip whose entries all carry one time, so that the same
// quiz always gives the same bytes; the first error sticks.
type zipWriter struct {
	zw       *zip.Writer
	modified time.Time
	err      error
}

func newZip(w io.Writer, modified time.Time) *zipWriter {
	if modified.IsZero() {
		modified = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return &zipWriter{zw: zip.NewWriter(w), modified: modified}
}

func (z *zipWriter) add(name string, data []byte) {
	if z.err != nil {
		return
	}
	fw, err := z.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: z.modified})
	if err == nil {
		_, err = fw.Write(data)
	}
	if err != nil {
		z.err = fmt.Errorf("add %s: %w", name, err)
	}
}

func (z *zipWriter) close() error {
	if z.err != nil {
		return z.err
	}
	return z.zw.Close()
}
