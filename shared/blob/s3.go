package blob

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
)

// S3 is a Store in an S3 bucket; URLs are presigned GETs that also set the
// response's Content-Type and Content-Disposition.
//
// S3 cannot add a Content-Security-Policy header to a response; pages carry
// the same policy (less the sandbox) in a meta tag (see office/htmlpage).
type S3 struct {
	client  *s3.Client
	presign *s3.PresignClient
	bucket  string
}

// NewS3 returns a store in bucket.
func NewS3(client *s3.Client, bucket string) *S3 {
	return &S3{client: client, presign: s3.NewPresignClient(client), bucket: bucket}
}

// Put implements Store.
func (s *S3) Put(ctx context.Context, key, contentType string, body []byte) (Object, error) {
	if err := ValidateKey(key); err != nil {
		return Object{}, err
	}
	obj := Object{Key: key, ContentType: contentType, Size: int64(len(body))}
	_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:             aws.String(s.bucket),
		Key:                aws.String(key),
		Body:               bytes.NewReader(body),
		ContentLength:      aws.Int64(int64(len(body))),
		ContentType:        aws.String(contentType),
		ContentDisposition: aws.String(ContentDisposition(obj.Filename(), Inline(contentType))),
	})
	if err != nil {
		return Object{}, fmt.Errorf("blob: s3 put %s: %w", key, err)
	}
	return obj, nil
}

// Head implements Store.
func (s *S3) Head(ctx context.Context, key string) (Object, error) {
	if err := ValidateKey(key); err != nil {
		return Object{}, err
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		return Object{}, s3Error("head", key, err)
	}
	return Object{Key: key, ContentType: aws.ToString(out.ContentType), Size: aws.ToInt64(out.ContentLength)}, nil
}

// Get implements Store.
func (s *S3) Get(ctx context.Context, key string) (io.ReadCloser, Object, error) {
	if err := ValidateKey(key); err != nil {
		return nil, Object{}, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		return nil, Object{}, s3Error("get", key, err)
	}
	return out.Body, Object{Key: key, ContentType: aws.ToString(out.ContentType), Size: aws.ToInt64(out.ContentLength)}, nil
}

// URL implements Store with a presigned GET. The object's content type is
// looked up so that the response names it even if the upload did not.
func (s *S3) URL(ctx context.Context, key string, ttl time.Duration) (string, error) {
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
		ResponseContentDisposition: aws.String(ContentDisposition(obj.Filename(), Inline(obj.ContentType))),
	}, s3.WithPresignExpires(ttl))
	if err != nil {
		return "", fmt.Errorf("blob: s3 presign %s: %w", key, err)
	}
	return req.URL, nil
}

// Delete implements Store. A presigned URL cannot be revoked: removing
// the object is what makes every link to it fail (404 with s3:ListBucket,
// else 403). With versioning on, the delete marker does the same.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if _, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)}); err != nil {
		if err = s3Error("delete", key, err); errors.Is(err, ErrNotFound) {
			return nil
		}
		return err
	}
	return nil
}

// s3Error maps S3's "no such key" answers (NoSuchKey from GET, a bare 404
// from HEAD) to ErrNotFound.
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
		return fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return fmt.Errorf("blob: s3 %s %s: %w", op, key, err)
}
