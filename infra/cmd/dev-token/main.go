// Command dev-token mints an HS256 JWT for a teacher, signed with the
// stage's JWT secret, for trying a deployed stack from the command line
// (docs/deploy.md). The teacher web app's own sign-in issues the real ones.
//
//	SECRET=$(aws ssm get-parameter --name /insightedge/dev/jwt-secret --with-decryption --query Parameter.Value --output text)
//	TOKEN=$(go run ./infra/cmd/dev-token -secret "$SECRET" -teacher t-001)
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, time.Now); err != nil {
		fmt.Fprintln(os.Stderr, "dev-token:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer, now func() time.Time) error {
	fs := flag.NewFlagSet("dev-token", flag.ContinueOnError)
	secret := fs.String("secret", "", "the HS256 secret (the stage's jwt-secret parameter)")
	teacher := fs.String("teacher", "", "the teacher id (sub)")
	issuer := fs.String("iss", "", "issuer, when the stack requires one (JwtIssuer)")
	audience := fs.String("aud", "", "audience, when the stack requires one (JwtAudience)")
	ttl := fs.Duration("ttl", time.Hour, "lifetime")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *secret == "" || *teacher == "" {
		return errors.New("-secret and -teacher are required")
	}
	claims := jwt.MapClaims{"sub": *teacher, "iat": now().Unix(), "exp": now().Add(*ttl).Unix()}
	if *issuer != "" {
		claims["iss"] = *issuer
	}
	if *audience != "" {
		claims["aud"] = *audience
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(*secret))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(out, tok)
	return err
}
