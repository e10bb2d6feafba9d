package server

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/rs/cors"

	"github.com/insightedge/insightedge/shared/edge"
)

// corsOrigins reads CORS_ALLOW_ORIGINS, the origins (comma separated) a
// frontend may call the local server from, like the CorsAllowOrigins
// parameter of template.yaml: "*" (the template's default) when unset.
func corsOrigins(getenv func(string) string) ([]string, error) {
	v := getenv("CORS_ALLOW_ORIGINS")
	if strings.TrimSpace(v) == "" {
		return []string{"*"}, nil
	}
	var out []string
	for _, o := range strings.Split(v, ",") {
		o = strings.TrimSpace(o)
		switch {
		case o == "":
			return nil, fmt.Errorf("local: CORS_ALLOW_ORIGINS has an empty entry in %q: list origins such as http://localhost:3000, comma separated, or *", v)
		case o != "*" && !strings.HasPrefix(o, "http://") && !strings.HasPrefix(o, "https://"):
			return nil, fmt.Errorf("local: CORS_ALLOW_ORIGINS entry %q is not an origin such as http://localhost:3000", o)
		}
		out = append(out, strings.TrimSuffix(o, "/"))
	}
	return out, nil
}

// withCORS applies the product's CORS policy (edge.CORSPolicy, the one
// template.yaml gives the Function URL and the HTTP API) to every route:
// preflights are answered with 204, and every answer, SSE included, gets
// its headers for an allowed origin.
func withCORS(origins []string, h http.Handler) http.Handler {
	p := edge.CORSPolicy()
	return cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: p.AllowMethods,
		AllowedHeaders: p.AllowHeaders,
		ExposedHeaders: p.ExposeHeaders,
		MaxAge:         p.MaxAge,
	}).Handler(h)
}
