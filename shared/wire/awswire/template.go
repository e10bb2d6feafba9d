package awswire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/insightedge/insightedge/shared/office/pdf"
	"github.com/insightedge/insightedge/shared/report"
	"github.com/insightedge/insightedge/shared/report/backend"
	"github.com/insightedge/insightedge/shared/report/pipeline"
	"github.com/insightedge/insightedge/shared/report/transport/apigw"
	"github.com/insightedge/insightedge/shared/sfnstart"
	"github.com/insightedge/insightedge/shared/wire"
)

// Environment of the template report agent's functions (template.yaml).
const (
	// EnvTemplateMachine is the template workflow's (Standard) ARN; the ws
	// function starts, stops and answers its executions.
	EnvTemplateMachine = "TEMPLATE_STATE_MACHINE_ARN"
	// EnvWSCallback is the WebSocket API's connection management endpoint,
	// https://{api}.execute-api.{region}.amazonaws.com/{stage}.
	EnvWSCallback = "WS_CALLBACK_URL"
	// EnvTemplateSecretParameter names an SSM SecureString holding
	// TEMPLATE_STATE_SECRET when that is not set.
	EnvTemplateSecretParameter = "TEMPLATE_STATE_SECRET_PARAMETER"
)

// cloudTemplate builds the template agent on the AWS clients.
// FromEnv read TEMPLATE_STATE_SECRET from its SSM parameter (c.Env).
func (c *App) cloudTemplate() (*wire.Template, error) {
	tc, err := wire.TemplateConfigFromEnv(c.Env)
	if err != nil {
		return nil, err
	}
	if tc.StateSecret == nil {
		return nil, fmt.Errorf("wire: TEMPLATE_STATE_SECRET or %s is required (it signs exported session state)", EnvTemplateSecretParameter)
	}
	states := sfn.NewFromConfig(c.AWS, c.sfnOptions...)
	st, err := sfnstart.New[json.RawMessage](states, c.Env(EnvTemplateMachine), sfnstart.Options{TraceHeader: traceHeader})
	if err != nil {
		return nil, fmt.Errorf("wire: %s: %w", EnvTemplateMachine, err)
	}
	return c.NewTemplate(tc, wire.TemplateBackends{Store: report.NewStore(c.Records),
		Blobs: c.Blob, Start: st, Tokens: sfnTokens{states}})
}

// ReportStep is the report function's handler: every step of the template
// workflow, told which by its input.
func (c *App) ReportStep() (wire.Task, error) {
	if c.Blob == nil {
		return nil, fmt.Errorf("wire: the report function needs %s (the sessions' files)", EnvBucket)
	}
	tc, err := wire.TemplateConfigFromEnv(c.Env)
	if err != nil {
		return nil, err
	}
	store := report.NewStore(c.Records)
	p := pipeline.New(pipeline.Deps{Store: store,
		Log: c.Log, Blobs: c.Blob, Backends: backend.NewResolver(backend.Options{Default: tc.Backend, Allowed: tc.Allowed}),
		Model: c.Model, Settings: tc.Settings, Logger: c.Logger, PDF: pdfRenderer(c), FileTTL: c.Config.FileLinkTTL,
		PassMarks: c.ReportPassMarks()})
	return wire.RunLeased(wire.TemplateStep(p), c.RunLeases(store, tc.Settings.ConfirmTimeout)), nil
}

// TemplateWSHandler is the ws function's handler: the WebSocket API's
// routes, and the table's stream relayed to the sockets.
func (c *App) TemplateWSHandler() (func(context.Context, json.RawMessage) (any, error), error) {
	endpoint := c.Env(EnvWSCallback)
	if endpoint == "" {
		return nil, fmt.Errorf("wire: %s is required (the WebSocket API's management endpoint)", EnvWSCallback)
	}
	t, err := c.cloudTemplate()
	if err != nil {
		return nil, err
	}
	gw := apigw.New(t.Control, report.NewStore(c.Records),
		c.Table.Events(), c.Authenticator(), apigw.ConnectionPoster{Endpoint: endpoint, Region: c.AWS.Region, Credentials: c.AWS.Credentials},
		c.Logger)
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var probe struct {
			Records        []json.RawMessage `json:"Records"`
			RequestContext struct {
				RouteKey string `json:"routeKey"`
			} `json:"requestContext"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			return nil, fmt.Errorf("ws: not an event: %w", err)
		}
		if probe.RequestContext.RouteKey != "" {
			var req events.APIGatewayWebsocketProxyRequest
			if err := json.Unmarshal(raw, &req); err != nil {
				return nil, err
			}
			return gw.Route(ctx, req)
		}
		if probe.Records != nil {
			var batch events.DynamoDBEvent
			if err := json.Unmarshal(raw, &batch); err != nil {
				return nil, err
			}
			// issue 24: the failed sessions' records, not the whole batch.
			return relayBatch(ctx, gw.Relay, batch, c.Logger), nil
		}
		return nil, errors.New("ws: neither a WebSocket route nor a DynamoDB stream batch")
	}, nil
}

// sfnTokens answers task tokens with Step Functions.
type sfnTokens struct{ api *sfn.Client }

func (s sfnTokens) SendTaskSuccess(ctx context.Context, token string, output json.RawMessage) error {
	_, err := s.api.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String(token), Output: aws.String(string(output))})
	return err
}

// WithTemplateRoutes adds the template agent's SSE + POST routes
// (/api/template/sessions...) in front of h when TEMPLATE_STATE_MACHINE_ARN
// is set: the stream function serves them next to the conversation's.
func (c *App) WithTemplateRoutes(h http.Handler) (http.Handler, error) {
	if c.Env(EnvTemplateMachine) == "" {
		return h, nil
	}
	t, err := c.cloudTemplate()
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("POST /api/template/", c.App.LimitStarts(t.Server.Handler())) // issue 26: fair use
	mux.Handle("GET /api/template/", t.Server.Handler())
	mux.Handle("/", h)
	return mux, nil
}

// pdfRenderer is the PDF writer when its fonts are installed, else nil
// (the report is then offered as .docx only).
func pdfRenderer(c *App) pipeline.PDFRenderer {
	w, err := pdf.Open() // the fonts are read on the first PDF, not at a cold start
	if err != nil {
		c.Logger.Warn("PDF output unavailable for reports: .docx only", "err", err)
		return nil
	}
	return w
}
