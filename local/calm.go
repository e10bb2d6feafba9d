package main

import (
	"os"
	"strings"
	"syscall"
)

// calmSysmon is the GODEBUG setting the server runs with: a scheduler
// trace every 2^31-1 ms (24.8 days of uptime), which in effect never
// prints, and whose side effect is the point: the runtime's monitor thread
// (sysmon) no longer falls into its deep sleep whenever every goroutine
// waits.
//
// Why (issue 29 item 3; docs/benchmarks.md "sysmon's deep sleep"): a
// streaming server at a model's pace goes idle between chunks thousands of
// times a second. Each time, sysmon sleeps on a futex until the first
// system call of the next busy spell wakes it, and it then polls every
// 20 µs for a while: four thread switches per spell. On a virtual machine
// where a switch costs ~15 µs that was a sixth of a relayed chunk's CPU.
// Kept awake, sysmon backs off to one wake-up every 10 ms when it finds
// nothing to do: 100 a second, idle or not.
const calmSysmon = "schedtrace=2147483647"

// calmEnv returns env with calmSysmon added to GODEBUG, and false when the
// environment already decides schedtrace (an operator's GODEBUG wins,
// schedtrace=0 restores the runtime's default).
func calmEnv(env []string) ([]string, bool) {
	out := make([]string, 0, len(env)+1)
	set := false
	for _, kv := range env {
		v, ok := strings.CutPrefix(kv, "GODEBUG=")
		if !ok {
			out = append(out, kv)
			continue
		}
		for s := range strings.SplitSeq(v, ",") {
			if strings.HasPrefix(s, "schedtrace=") {
				return env, false
			}
		}
		if v != "" {
			v += ","
		}
		out = append(out, "GODEBUG="+v+calmSysmon)
		set = true
	}
	if !set {
		out = append(out, "GODEBUG="+calmSysmon)
	}
	return out, true
}

// calm re-executes this program with calmSysmon, which the runtime reads
// only at start-up. It returns when there is nothing to do or the
// re-execution fails (then the server runs as Go's default has it).
func calm() {
	env, ok := calmEnv(os.Environ())
	if !ok {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	_ = syscall.Exec(exe, os.Args, env) // returns only on failure
}
