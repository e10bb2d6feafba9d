package s3blob_test

import (
	"context"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/insightedge/insightedge/shared/blob"
	"github.com/insightedge/insightedge/shared/blob/blobtest"
	"github.com/insightedge/insightedge/shared/blob/s3blob"
)

// newS3 returns a store in a fresh bucket of an in-process fake S3 on
// loopback (gofakes3 does not check signatures; the SDK still signs).
func newS3(t *testing.T) *s3blob.Store {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("files"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	client := s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
	})
	return s3blob.New(client, "files")
}

func TestS3Contract(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blob.Store { return newS3(t) })
}

func TestS3PresignedURL(t *testing.T) {
	s := newS3(t)
	ctx := context.Background()
	const key = "teachers/t-1/sessions/s-1/files/call_1/互动卡片.html"
	if _, err := s.Put(ctx, key, "text/html; charset=utf-8", []byte("<p>x</p>")); err != nil {
		t.Fatal(err)
	}
	raw, err := s.URL(ctx, key, 15*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	// Presigned links are absolute by design: the bucket is another origin
	// than the API (PUBLIC_BASE_URL and relative links are the local
	// file server's).
	if !u.IsAbs() || u.Host == "" {
		t.Errorf("presigned URL %q is not absolute", raw)
	}
	q := u.Query()
	if got := q.Get("X-Amz-Expires"); got != "900" {
		t.Errorf("X-Amz-Expires = %q, want 900", got)
	}
	if got := q.Get("response-content-disposition"); !strings.HasPrefix(got, "inline; ") || !strings.Contains(got, "filename*=UTF-8''%E4%BA%92") {
		t.Errorf("response-content-disposition = %q", got)
	}
	if got := q.Get("response-content-type"); got != "text/html; charset=utf-8" {
		t.Errorf("response-content-type = %q", got)
	}
	if q.Get("X-Amz-Signature") == "" {
		t.Error("the URL is not signed")
	}
}
