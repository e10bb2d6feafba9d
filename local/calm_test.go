package main

import (
	"slices"
	"testing"
)

func TestCalmEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		want []string
		ok   bool
	}{
		{"no GODEBUG", []string{"PATH=/bin"}, []string{"PATH=/bin", "GODEBUG=" + calmSysmon}, true},
		{"empty GODEBUG", []string{"GODEBUG=", "PATH=/bin"}, []string{"GODEBUG=" + calmSysmon, "PATH=/bin"}, true},
		{"other settings kept", []string{"GODEBUG=http2client=0"}, []string{"GODEBUG=http2client=0," + calmSysmon}, true},
		{"the operator's schedtrace wins", []string{"GODEBUG=schedtrace=0,http2client=0"}, []string{"GODEBUG=schedtrace=0,http2client=0"}, false},
		{"already calm: no second exec", []string{"GODEBUG=x=1," + calmSysmon}, []string{"GODEBUG=x=1," + calmSysmon}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := calmEnv(tc.env)
			if ok != tc.ok || !slices.Equal(got, tc.want) {
				t.Errorf("calmEnv(%q) = %q, %v; want %q, %v", tc.env, got, ok, tc.want, tc.ok)
			}
		})
	}
}
