package limits

import "time"

// Action is what a request starts; each is counted against its own window
// and every one spends tokens.
type Action string

// The actions a limit counts.
const (
	Turn     Action = "turn"
	Build    Action = "build"
	Research Action = "research"
	Report   Action = "report"
)

// windowOf is the limit counting an action's starts.
var windowOf = map[Action]Limit{
	Turn:     TurnsPerMinute,
	Build:    BuildsPerHour,
	Research: ResearchPerDay,
	Report:   ReportsPerDay,
}

// window is the fixed window of limit l around now: [start, end). Minutes
// and hours are the clock's; days are the zone's calendar days.
func window(l Limit, now time.Time, zone *time.Location) (start, end time.Time) {
	switch l {
	case TurnsPerMinute:
		start = now.Truncate(time.Minute)
		return start, start.Add(time.Minute)
	case BuildsPerHour:
		start = now.Truncate(time.Hour)
		return start, start.Add(time.Hour)
	default:
		local := now.In(zone)
		start = time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, zone)
		return start, start.AddDate(0, 0, 1)
	}
}

// day names the zone's day of now in counter keys.
func day(now time.Time, zone *time.Location) string { return now.In(zone).Format("2006-01-02") }
