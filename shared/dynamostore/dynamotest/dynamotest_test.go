package dynamotest_test

import (
	"context"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/insightedge/insightedge/shared/dynamostore/dynamotest"
)

// A client that drops its connection halfway through a request body (a
// context cancelled under load) must not take the server down for every
// other test: it once did, and CI saw "connection refused" from then on.
func TestServerOutlivesAnAbortedRequest(t *testing.T) {
	srv := dynamotest.Start(t)
	u, err := url.Parse(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		abortMidBody(t, u.Host)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := srv.Client.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("after aborted requests the server no longer answers: %v", err)
	}
}

// abortMidBody sends the head of a POST that announces more body than it
// sends, and resets the connection.
func abortMidBody(t *testing.T, host string) {
	t.Helper()
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	head := "POST / HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/x-amz-json-1.0\r\n" +
		"X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 1000\r\n\r\n{\"Limit\":"
	if _, err := conn.Write([]byte(head)); err != nil {
		t.Fatal(err)
	}
	// Let the server start reading the body before the reset.
	buf := make([]byte, 1)
	_ = conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	_, _ = conn.Read(buf)
	_ = conn.(*net.TCPConn).SetLinger(0)
	_ = conn.Close()
}
