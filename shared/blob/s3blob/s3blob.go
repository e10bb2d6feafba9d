// Package s3blob is the blob.Store in an S3 bucket, apart from package
// blob so that a binary without S3 (the local run) does not link the AWS
// SDK.
package s3blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/insightedge/insightedge/shared/blob"
)

// Store is a blob.Store in an S3 bucket; URLs are presigned GETs that also set the
// response's Content-Type and Content-Disposition.
//
// S3 cannot add a Content-Security-Policy header to a response; pages carry
// the same policy (less the sandbox) in a meta tag (see office/htmlpage).
type Store struct {
	client  *s3.Client
	presign *s3.PresignClient
	bucket  string
}

// New returns a store in bucket.
func New(client *s3.Client, bucket string) *Store {
	return &Store{client: client, presign: s3.NewPresignClient(client), bucket: bucket}
}

// Put implements blob.Store.
func (s *Store) Put(ctx context.Context, key, contentType string, body []byte) (blob.Object, error) {
	if err := blob.ValidateKey(key); err != nil {
		return blob.Object{}, err
	}
	obj := blob.Object{Key: key, ContentType: contentType, Size: int64(len(body))}
	_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:             aws.String(s.bucket),
		Key:                aws.String(key),
		Body:               bytes.NewReader(body),
		ContentLength:      aws.Int64(int64(len(body))),
		ContentType:        aws.String(contentType),
		ContentDisposition: aws.String(blob.ContentDisposition(obj.Filename(), blob.Inline(contentType))),
	})
	if err != nil {
		return blob.Object{}, fmt.Errorf("blob: s3 put %s: %w", key, err)
	}
	return obj, nil
}

// Head implements blob.Store.
func (s *Store) Head(ctx context.Context, key string) (blob.Object, error) {
	if err := blob.ValidateKey(key); err != nil {
		return blob.Object{}, err
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		return blob.Object{}, s3Error("head", key, err)
	}
	return blob.Object{Key: key, ContentType: aws.ToString(out.ContentType), Size: aws.ToInt64(out.ContentLength)}, nil
}

// Get implements blob.Store.
func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, blob.Object, error) {
	if err := blob.ValidateKey(key); err != nil {
		return nil, blob.Object{}, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		return nil, blob.Object{}, s3Error("get", key, err)
	}
	return out.Body, blob.Object{Key: key, ContentType: aws.ToString(out.ContentType), Size: aws.ToInt64(out.ContentLength)}, nil
}

// URL implements blob.Store with a presigned GET. The object's content type is
// looked up so that the response names it even if the upload did not.
func (s *Store) URL(ctx context.Context, key string, ttl time.Duration) (string, error) {
	obj, err := s.Head(ctx, key)
	if err != nil {
		return "", err
	}
	if ttl <= 0 {
		return "", fmt.Errorf("blob: URL ttl %v is not positive", ttl)
	}
	req, err := s.presign.PresignGetObject(ctx, &s3.GetObjectInput{
		Bucket:                     aws.String(s.bucket),
		Key:                        aws.String(key),
		ResponseContentType:        aws.String(obj.ContentType),
		ResponseContentDisposition: aws.String(blob.ContentDisposition(obj.Filename(), blob.Inline(obj.ContentType))),
	}, s3.WithPresignExpires(ttl))
	if err != nil {
		return "", fmt.Errorf("blob: s3 presign %s: %w", key, err)
	}
	return req.URL, nil
}

// Delete implements blob.Store. A presigned URL cannot be revoked: removing
// the object is what makes every link to it fail (404 with s3:ListBucket,
// else 403). With versioning on, the delete marker does the same.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := blob.ValidateKey(key); err != nil {
		return err
	}
	if _, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)}); err != nil {
		if err = s3Error("delete", key, err); errors.Is(err, blob.ErrNotFound) {
			return nil
		}
		return err
	}
	return nil
}

// s3Error maps S3's "no such key" answers (NoSuchKey from GET, a bare 404
// from HEAD) to blob.ErrNotFound.
func s3Error(op, key string, err error) error {
	var nsk *types.NoSuchKey
	var nf *types.NotFound
	var api smithy.APIError
	var resp *awshttp.ResponseError
	if errors.As(err, &api) && api.ErrorCode() == "NoSuchBucket" {
		return fmt.Errorf("blob: s3 %s %s: %w", op, key, err)
	}
	switch {
	case errors.As(err, &nsk), errors.As(err, &nf),
		errors.As(err, &api) && (api.ErrorCode() == "NoSuchKey" || api.ErrorCode() == "NotFound"),
		errors.As(err, &resp) && resp.HTTPStatusCode() == http.StatusNotFound:
		return fmt.Errorf("%w: %s", blob.ErrNotFound, key)
	}
	return fmt.Errorf("blob: s3 %s %s: %w", op, key, err)
}
