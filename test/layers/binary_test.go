package layers

import (
	"strings"
	"testing"
)

// awsOnly are the module paths the local binary must not link: the AWS
// SDKs, X-Ray and the fallback root certificates are the Lambda functions'
// (shared/wire/awswire and the AWS stores), and their package
// initialisation alone was most of the local run's start-up
// (docs/benchmarks.md, "Start-up"). aws-lambda-go's small message types
// (wire.Typed's error names) are allowed.
var awsOnly = []string{
	"github.com/aws/aws-sdk-go", // v1 and aws-sdk-go-v2
	"github.com/aws/aws-xray-sdk-go",
	"github.com/aws/smithy-go",
	"golang.org/x/crypto/x509roots/fallback",
}

// TestLocalBinaryLinksNoAWS lists the packages `go run ./local` links (go
// list -deps, without tests) and fails on any AWS-only one, naming the
// package of this module that imports it.
func TestLocalBinaryLinksNoAWS(t *testing.T) {
	out, err := goCmd("list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./local")
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	var bad []string
	importers := map[string][]string{} // an AWS-only package → this module's packages that import it
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg := fields[0]
		if isAWSOnly(pkg) {
			bad = append(bad, pkg)
		}
		if strings.HasPrefix(pkg, Module+"/") {
			for _, imp := range fields[1:] {
				if isAWSOnly(imp) {
					importers[imp] = append(importers[imp], pkg)
				}
			}
		}
	}
	if len(bad) == 0 {
		return
	}
	t.Errorf("the local binary links %d AWS-only packages, e.g. %s", len(bad), strings.Join(bad[:min(5, len(bad))], ", "))
	for imp, by := range importers {
		t.Errorf("%s is imported by %s", imp, strings.Join(by, ", "))
	}
}

func isAWSOnly(pkg string) bool {
	for _, p := range awsOnly {
		if pkg == p || strings.HasPrefix(pkg, p) && (strings.HasPrefix(pkg[len(p):], "/") || strings.HasPrefix(pkg[len(p):], "-v2")) {
			return true
		}
	}
	return false
}
