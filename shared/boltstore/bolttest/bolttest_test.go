package bolttest

import (
	"context"
	"testing"
)

func TestOpen(t *testing.T) {
	recs := Open(t).Sessions()
	ctx := context.Background()
	if err := recs.PutRecord(ctx, "s-1", "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if v, err := recs.GetRecord(ctx, "s-1", "k"); err != nil || string(v) != "v" {
		t.Fatalf("GetRecord = %q, %v; want v", v, err)
	}
}
