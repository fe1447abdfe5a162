package fio

import (
	"strings"
	"testing"
	"time"
)

// TestSteadyStateOptions: ss (steadystate) takes fio's four criteria and a
// limit, a percentage, a number, or for bw a size per second; ss_dur is
// truncated to whole seconds (fio keeps seconds); jobs of one reporting
// group must agree, as fio requires.
func TestSteadyStateOptions(t *testing.T) {
	for _, c := range []struct {
		body string
		want SteadyState
	}{
		{"", SteadyState{Criterion: "iops_slope", Limit: 0.01, Percent: true}},
		{"ss=iops:10%\nss_dur=30s\nss_ramp=10s", SteadyState{"iops", 10, true, 30 * time.Second, 10 * time.Second}},
		{"steadystate=bw:10m\nsteadystate_duration=1500ms", SteadyState{"bw", 10 << 20, false, time.Second, 0}},
		{"ss=iops_slope:-2.5", SteadyState{Criterion: "iops_slope", Limit: -2.5}},
		{"ss_dur=20\nss=bw_slope:1 %", SteadyState{"bw_slope", 1, true, 20 * time.Second, 0}},
	} {
		if got := job(t, c.body).SteadyState; got != c.want {
			t.Errorf("%q: %+v, want %+v", c.body, got, c.want)
		}
	}
	for _, c := range []struct{ body, want string }{
		{"ss=iops", "threshold must be given"},
		{"ss=foo:1", "want iops, iops_slope"},
		{"ss=iops:abc", "not a number"},
	} {
		_, err := ParseConfig("t.fio", []byte("[j]\n"+c.body+"\n"), Config{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "t.fio:2") {
			t.Errorf("%q: %v, want an error naming t.fio:2 and %q", c.body, err, c.want)
		}
	}
	jf := parseString(t, "[a]\nss_dur=10\n[b]\nss_dur=10\nss=bw:1%\n[c]\nnew_group\n", nil)
	if err := Validate(jf); err == nil || !strings.Contains(err.Error(), "reporting group") || !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("two jobs of a group with different ss: %v", err)
	}
}
