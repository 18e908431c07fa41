package buildinfo

import (
	"regexp"
	"runtime/debug"
	"testing"
	"time"
)

func settings(kv ...string) []debug.BuildSetting {
	var s []debug.BuildSetting
	for i := 0; i < len(kv); i += 2 {
		s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
	}
	return s
}

// TestVersion checks the version of each kind of build: a tagged module,
// a checkout at a commit, with changes or without, a build that recorded
// no commit, and none recorded at all.
func TestVersion(t *testing.T) {
	rev := "0123456789abcdef0123456789abcdef01234567"
	for _, tt := range []struct {
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: settings("vcs.revision", rev)}, true, "v1.2.3"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: settings("vcs.revision", rev, "vcs.modified", "false")}, true, "(devel) 0123456789ab"},
		{&debug.BuildInfo{Settings: settings("vcs.modified", "true", "vcs.revision", rev)}, true, "(devel) 0123456789ab-dirty"},
		{&debug.BuildInfo{Settings: settings("vcs.revision", "abc")}, true, "(devel) abc"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "(devel)"},
		{nil, false, "(unknown)"},
	} {
		if got := version(tt.bi, tt.ok); got != tt.want {
			t.Errorf("version(%+v) = %q, want %q", tt.bi, got, tt.want)
		}
	}
	if v := Version(); v == "" {
		t.Error("Version() is empty")
	}
}

// TestDate checks the day of a build that recorded its commit's time, and
// today's (UTC) for one that did not.
func TestDate(t *testing.T) {
	now := time.Date(2026, 3, 1, 23, 30, 0, 0, time.FixedZone("", -5*3600)) // 2026-03-02 in UTC
	for _, tt := range []struct {
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{&debug.BuildInfo{Settings: settings("vcs.revision", "abc", "vcs.time", "2025-11-30T08:00:00Z")}, true, "2025-11-30"},
		{&debug.BuildInfo{Settings: settings("vcs.time", "2025")}, true, "2026-03-02"},
		{&debug.BuildInfo{}, true, "2026-03-02"},
		{nil, false, "2026-03-02"},
	} {
		if got := date(tt.bi, tt.ok, now); got != tt.want {
			t.Errorf("date(%+v) = %q, want %q", tt.bi, got, tt.want)
		}
	}
	if d := Date(); !regexp.MustCompile(`^\d{4}-\d\d-\d\d$`).MatchString(d) {
		t.Errorf("Date() = %q", d)
	}
}
