// Package appschedule keeps one EventBridge Scheduler schedule per saved app
// with a schedule: the edge's ScheduleSync (edge.ScheduleSync) in AWS. Each
// schedule is named after its app, lives in the stack's schedule group,
// runs at the app's rate (apps.Schedule.RateExpression) from its next run
// time, and invokes the replay function with {"appId", "trigger":
// "schedule"}, assuming a role that may invoke that function only. A
// delivery that still fails after its retries goes to the dead-letter
// queue (an SQS queue), where an alarm sees it, instead of vanishing.
//
// Locally there is no such client: the local scheduler polls the store for
// due apps (apps.Scheduler), and the edge runs without a ScheduleSync.
package appschedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/scheduler/types"

	"github.com/insightedge/insightedge/shared/apps"
)

// API is the part of the EventBridge Scheduler client that Schedules uses
// (*scheduler.Client implements it).
type API interface {
	CreateSchedule(ctx context.Context, in *scheduler.CreateScheduleInput, opts ...func(*scheduler.Options)) (*scheduler.CreateScheduleOutput, error)
	UpdateSchedule(ctx context.Context, in *scheduler.UpdateScheduleInput, opts ...func(*scheduler.Options)) (*scheduler.UpdateScheduleOutput, error)
	DeleteSchedule(ctx context.Context, in *scheduler.DeleteScheduleInput, opts ...func(*scheduler.Options)) (*scheduler.DeleteScheduleOutput, error)
}

// Options configure Schedules; Group, Target, Role and DeadLetter are
// required.
type Options struct {
	// Group is the schedule group's name (template.yaml: AppSchedules).
	Group string
	// Target is the ARN of the replay function.
	Target string
	// Role is the ARN of the role the schedules assume to invoke Target
	// (and to send to DeadLetter).
	Role string
	// DeadLetter is the ARN of the SQS queue that receives the deliveries
	// that failed after their retries (template.yaml: AppScheduleDeadLetters).
	DeadLetter string
	// Now is the clock [time.Now].
	Now func() time.Time
}

// Delivery of an invocation that Lambda refuses (throttling) is retried
// this often within this age. A replay that fails in the function is not
// retried: it is recorded as a failed run (template.yaml sets the replay
// function's asynchronous retries to 0).
const (
	retryAttempts = 2
	retryMaxAge   = 15 * time.Minute
)

// The name and ARN patterns, compiled on first use: the bounded
// repetitions ({1,512}) make programs of hundreds of kilobytes, which a
// process that never syncs a schedule (go run ./local) should not build at
// start-up.
var (
	groupName = lazyRegexp(`^[0-9a-zA-Z._-]{1,64}$`)
	// scheduleName is what EventBridge Scheduler accepts as a name.
	scheduleName = lazyRegexp(`^[0-9a-zA-Z._-]{1,64}$`)
	lambdaARN    = lazyRegexp(`^arn:aws[a-zA-Z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]{1,64}(:[A-Za-z0-9$_-]+)?$`)
	roleARN      = lazyRegexp(`^arn:aws[a-zA-Z-]*:iam::\d{12}:role/[A-Za-z0-9+=,.@_/-]{1,512}$`)
	queueARN     = lazyRegexp(`^arn:aws[a-zA-Z-]*:sqs:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,80}(\.fifo)?$`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Schedules keeps the schedules of saved apps.
type Schedules struct {
	api API
	o   Options
}

// New returns Schedules over api; errors name the option at fault.
func New(api API, o Options) (*Schedules, error) {
	switch {
	case !groupName().MatchString(o.Group):
		return nil, fmt.Errorf("appschedule: group %q: want 1 to 64 letters, digits, '.', '_' or '-'", o.Group)
	case !lambdaARN().MatchString(o.Target):
		return nil, fmt.Errorf("appschedule: target %q is not a Lambda function ARN", o.Target)
	case !roleARN().MatchString(o.Role):
		return nil, fmt.Errorf("appschedule: role %q is not an IAM role ARN", o.Role)
	case !queueARN().MatchString(o.DeadLetter):
		return nil, fmt.Errorf("appschedule: dead-letter queue %q is not an SQS queue ARN", o.DeadLetter)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Schedules{api: api, o: o}, nil
}

// Name is the schedule name of an app: its id, which must be one that
// EventBridge Scheduler accepts (the edge's ids, "app-<uuid>", are).
func Name(appID string) (string, error) {
	if !scheduleName().MatchString(appID) {
		return "", fmt.Errorf("appschedule: app id %q cannot name a schedule (1 to 64 letters, digits, '.', '_' or '-')", appID)
	}
	return appID, nil
}

// Sync creates or replaces the app's schedule; an app without a schedule
// has its schedule removed.
func (s *Schedules) Sync(ctx context.Context, a apps.App) error {
	if a.Schedule == nil {
		return s.Remove(ctx, a.ID)
	}
	name, err := Name(a.ID)
	if err != nil {
		return err
	}
	rate, err := a.Schedule.RateExpression()
	if err != nil {
		return fmt.Errorf("appschedule: app %s: %w", a.ID, err)
	}
	every, _ := a.Schedule.Interval() // RateExpression has checked it
	input, err := json.Marshal(apps.ReplayInput{AppID: a.ID, Trigger: apps.TriggerSchedule})
	if err != nil {
		return fmt.Errorf("appschedule: app %s: encode the input: %w", a.ID, err)
	}
	// A rate schedule without a start date runs at once; with one, its
	// first run is then. Start at the app's next run, moved past now if it
	// has gone by (EventBridge Scheduler refuses a start in the past).
	now := s.o.Now()
	first := a.NextRunAt
	if first.IsZero() {
		first = now.Add(every)
	}
	first = apps.Next(first, now, every).UTC().Truncate(time.Second)
	in := scheduler.CreateScheduleInput{
		Name:               aws.String(name),
		GroupName:          aws.String(s.o.Group),
		Description:        aws.String(fmt.Sprintf("Replays the saved app %s every %s", a.ID, a.Schedule.Every)),
		ScheduleExpression: aws.String(rate),
		StartDate:          aws.Time(first),
		State:              types.ScheduleStateEnabled,
		FlexibleTimeWindow: &types.FlexibleTimeWindow{Mode: types.FlexibleTimeWindowModeOff},
		Target: &types.Target{
			Arn:     aws.String(s.o.Target),
			RoleArn: aws.String(s.o.Role),
			Input:   aws.String(string(input)),
			RetryPolicy: &types.RetryPolicy{
				MaximumRetryAttempts:     aws.Int32(retryAttempts),
				MaximumEventAgeInSeconds: aws.Int32(int32(retryMaxAge / time.Second)),
			},
			DeadLetterConfig: &types.DeadLetterConfig{Arn: aws.String(s.o.DeadLetter)},
		},
	}
	_, err = s.api.CreateSchedule(ctx, &in)
	var conflict *types.ConflictException
	if errors.As(err, &conflict) {
		// The app has a schedule already: replace it.
		up := scheduler.UpdateScheduleInput{Name: in.Name, GroupName: in.GroupName, Description: in.Description,
			ScheduleExpression: in.ScheduleExpression, StartDate: in.StartDate, State: in.State,
			FlexibleTimeWindow: in.FlexibleTimeWindow, Target: in.Target}
		_, err = s.api.UpdateSchedule(ctx, &up)
	}
	if err != nil {
		return fmt.Errorf("appschedule: schedule app %s: %w", a.ID, err)
	}
	return nil
}

// Remove deletes the app's schedule; a schedule that does not exist is not
// an error.
func (s *Schedules) Remove(ctx context.Context, appID string) error {
	name, err := Name(appID)
	if err != nil {
		return err
	}
	_, err = s.api.DeleteSchedule(ctx, &scheduler.DeleteScheduleInput{Name: aws.String(name), GroupName: aws.String(s.o.Group)})
	var missing *types.ResourceNotFoundException
	if err != nil && !errors.As(err, &missing) {
		return fmt.Errorf("appschedule: remove the schedule of app %s: %w", appID, err)
	}
	return nil
}
