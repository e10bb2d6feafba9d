package awstest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/insightedge/insightedge/infra/sample"
	"github.com/insightedge/insightedge/shared/dynamostore"
	"github.com/insightedge/insightedge/shared/workflow"
)

// composeDynamoDB is DynamoDB Local's address on compose.yaml's network,
// as events/env-local.json names it.
const composeDynamoDB = "http://dynamodb-local:8000"

// testSamLocal checks the documented `sam local invoke` path
// (docs/deploy.md, "sam local"): every variable events/env-local.json sets
// is declared by the template for every function (SAM's --env-vars only
// overrides declared variables), and a task function configured exactly
// so — the template's environment, the file's overrides, DynamoDB Local
// played by dynalite with the table create-table -sample makes — answers
// the sample events of the turn's first steps.
func (s *suite) testSamLocal(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(s.repo, "events", "env-local.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Parameters map[string]string }
	if err := json.Unmarshal(data, &file); err != nil || len(file.Parameters) == 0 {
		t.Fatalf("events/env-local.json: %v %s", err, data)
	}
	fns := openTemplate(t, s.repo).functions(t)
	for name, fn := range fns {
		for k := range file.Parameters {
			if _, ok := fn.Env[k]; !ok {
				t.Errorf("events/env-local.json sets %s, which %s does not declare: sam local would ignore it", k, name)
			}
		}
	}
	if file.Parameters["AWS_ENDPOINT_URL_DYNAMODB"] != composeDynamoDB {
		t.Fatalf("env-local.json points DynamoDB at %q, want compose's %s", file.Parameters["AWS_ENDPOINT_URL_DYNAMODB"], composeDynamoDB)
	}

	rie := rieBinary(t)
	bins := s.imageBinaries(t)
	dyn := s.dynalite(t)
	table := file.Parameters["TABLE_NAME"]
	ctx := context.Background()
	dyn.CreateTable(t, table)
	if err := sample.Seed(ctx, dynamostore.New(dyn.Client, table, dynamostore.Options{})); err != nil {
		t.Fatal(err)
	}
	ssmURL := fakeSSM(t, testSecrets()) // the account's dev secrets
	env := func(resource string) map[string]string {
		e := s.functionEnv(t, resource, "unused", ssmURL)
		for k, v := range file.Parameters {
			e[k] = v
		}
		// What compose's network resolves dynamodb-local to.
		e["AWS_ENDPOINT_URL_DYNAMODB"] = strings.Replace(e["AWS_ENDPOINT_URL_DYNAMODB"], composeDynamoDB, dyn.Endpoint, 1)
		return e
	}
	var route workflow.RouteOutput
	router := emulate(t, rie, filepath.Join(bins, "router"), env("RouterFunction"))
	decodeStrict(t, "router", router.call(t, s.sampleEvent(t, "router", nil)), &route)
	if route.Path == "" {
		t.Fatalf("router: %+v", route)
	}
	var round workflow.AgentOutput
	agent := emulate(t, rie, filepath.Join(bins, "agentturn"), env("AgentTurnFunction"))
	decodeStrict(t, "agentturn", agent.call(t, s.sampleEvent(t, "agentturn", nil)), &round)
	if round.Next == "" {
		t.Fatalf("agentturn: %+v", round)
	}
}
