// Package blobtest is the contract every blob.Store passes: run it from
// each implementation's tests with a constructor of fresh stores.
package blobtest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/shared/blob"
)

// Run runs the contract against stores made by newStore. URLs the stores
// return must be fetchable with http.DefaultClient (servers on loopback).
func Run(t *testing.T, newStore func(t *testing.T) blob.Store) {
	ctx := context.Background()
	const key = "teachers/t-1/sessions/s-1/files/call_1/勾股定理 第1课.pptx"
	body := []byte("PK\x03\x04 deck bytes")
	const ct = "application/vnd.openxmlformats-officedocument.presentationml.presentation"

	t.Run("PutHeadGet", func(t *testing.T) {
		s := newStore(t)
		obj, err := s.Put(ctx, key, ct, body)
		if err != nil {
			t.Fatalf("Put: %v", err)
		}
		want := blob.Object{Key: key, ContentType: ct, Size: int64(len(body))}
		if obj != want {
			t.Errorf("Put = %+v, want %+v", obj, want)
		}
		head, err := s.Head(ctx, key)
		if err != nil {
			t.Fatalf("Head: %v", err)
		}
		if head != want {
			t.Errorf("Head = %+v, want %+v", head, want)
		}
		rc, got, err := s.Get(ctx, key)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		defer rc.Close()
		data, err := io.ReadAll(rc)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if !bytes.Equal(data, body) || got.ContentType != ct || got.Size != int64(len(body)) {
			t.Errorf("Get = %q %+v, want %q %+v", data, got, body, want)
		}
	})

	t.Run("PutReplaces", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Put(ctx, key, ct, body); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Put(ctx, key, "application/pdf", []byte("second")); err != nil {
			t.Fatal(err)
		}
		obj, err := s.Head(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if obj.Size != 6 || obj.ContentType != "application/pdf" {
			t.Errorf("after replace Head = %+v", obj)
		}
	})

	t.Run("NotFound", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Put(ctx, key, ct, body); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"teachers/t-1/none.pdf", key + "/below", "teachers/t-1/sessions"} {
			if _, err := s.Head(ctx, k); !errors.Is(err, blob.ErrNotFound) {
				t.Errorf("Head(%q) = %v, want ErrNotFound", k, err)
			}
			if _, _, err := s.Get(ctx, k); !errors.Is(err, blob.ErrNotFound) {
				t.Errorf("Get(%q) = %v, want ErrNotFound", k, err)
			}
			if _, err := s.URL(ctx, k, time.Minute); !errors.Is(err, blob.ErrNotFound) {
				t.Errorf("URL(%q) = %v, want ErrNotFound", k, err)
			}
		}
	})

	t.Run("InvalidKeys", func(t *testing.T) {
		s := newStore(t)
		for _, k := range []string{"", "/abs/x", "a//b", "a/../b", "../x", "a/./b", `a\b`, "a/b\x00", "a/?x", "a/%2e%2e"} {
			if _, err := s.Put(ctx, k, ct, body); !errors.Is(err, blob.ErrInvalidKey) {
				t.Errorf("Put(%q) = %v, want ErrInvalidKey", k, err)
			}
			if _, err := s.Head(ctx, k); !errors.Is(err, blob.ErrInvalidKey) {
				t.Errorf("Head(%q) = %v, want ErrInvalidKey", k, err)
			}
		}
	})

	t.Run("URLDownloads", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Put(ctx, key, ct, body); err != nil {
			t.Fatal(err)
		}
		u, err := s.URL(ctx, key, 10*time.Minute)
		if err != nil {
			t.Fatalf("URL: %v", err)
		}
		resp, err := http.Get(u)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", u, resp.StatusCode, data)
		}
		if !bytes.Equal(data, body) {
			t.Errorf("downloaded %q, want %q", data, body)
		}
		if got := resp.Header.Get("Content-Type"); got != ct {
			t.Errorf("Content-Type = %q, want %q", got, ct)
		}
		cd := resp.Header.Get("Content-Disposition")
		if want := blob.ContentDisposition("勾股定理 第1课.pptx", false); cd != want {
			t.Errorf("Content-Disposition = %q, want %q", cd, want)
		}
		if !strings.Contains(cd, "filename*=UTF-8''%E5%8B%BE") {
			t.Errorf("Content-Disposition %q lacks the RFC 5987 name", cd)
		}
	})

	t.Run("DeleteRevokesLinks", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Put(ctx, key, ct, body); err != nil {
			t.Fatal(err)
		}
		const other = "teachers/t-1/sessions/s-1/files/call_2/other.pdf"
		if _, err := s.Put(ctx, other, "application/pdf", []byte("%PDF other")); err != nil {
			t.Fatal(err)
		}
		u, err := s.URL(ctx, key, 10*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, key); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if _, err := s.Head(ctx, key); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Head after Delete = %v, want ErrNotFound", err)
		}
		if _, err := s.URL(ctx, key, time.Minute); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("URL after Delete = %v, want ErrNotFound", err)
		}
		resp, err := http.Get(u)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusForbidden {
			t.Errorf("a link signed before Delete answers %d, want 404 (or S3's 403)", resp.StatusCode)
		}
		if _, err := s.Head(ctx, other); err != nil {
			t.Errorf("Delete removed another file too: %v", err)
		}
		if err := s.Delete(ctx, key); err != nil {
			t.Errorf("Delete of a deleted file = %v, want nil", err)
		}
		if err := s.Delete(ctx, "a/../b"); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("Delete of an invalid key = %v, want ErrInvalidKey", err)
		}
	})
}
