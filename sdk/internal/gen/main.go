// Command gen writes the JSON Schema of every wire shape a frontend meets
// (request bodies, JSON answers, the conversation stream's data parts, page,
// research and template-report events) to sdk/schema, reflected from the Go
// types that encode them. The sdk's npm script turns the schema into
// TypeScript declarations (docs/frontend.md).
//
//	go generate ./sdk/...            (from the module root)
//	go run ./sdk/internal/gen -out sdk
package main

//go:generate go run . -out ../..

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// SchemaFile is the schema's path below the sdk directory.
const SchemaFile = "schema/insightedge.schema.json"

func main() {
	out := flag.String("out", "sdk", "the sdk directory to write "+SchemaFile+" into")
	flag.Parse()
	if err := write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// write renders the schema document into dir/SchemaFile.
func write(dir string) error {
	doc, err := Document()
	if err != nil {
		return err
	}
	path := filepath.Join(dir, SchemaFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	return nil
}
