package fio

import (
	"reflect"
	"strings"
	"testing"
)

func TestLogOptions(t *testing.T) {
	jf, err := Parse("t.fio", []byte(`[global]
write_bw_log
write_iops_log=iops
log_avg_msec=250
log_offset=1
[a]
write_lat_log=lat/x
per_job_logs=0
log_max_value=1
write_hist_log
log_hist_msec=100
log_hist_coarseness=2
write_iolog=/tmp/a.iolog
[b]
read_iolog=in.log
replay_no_stall=1
replay_align=4k
replay_scale=2
replay_time_scale=50
replay_skip=write,flush
replay_redirect=/dev/null
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(jf.Ignored) != 0 {
		t.Errorf("ignored %v", jf.Ignored)
	}
	a, b := jf.Jobs[0].Logs, jf.Jobs[1].Logs
	wantA := Logs{BW: true, IOPS: true, IOPSPrefix: "iops", Lat: true, LatPrefix: "lat/x", Hist: true, AvgMsec: 250,
		MaxValue: true, HistMsec: 100, HistCoarseness: 2, Offset: true, WriteIolog: "/tmp/a.iolog", ReplayScale: 1, ReplayTimeScale: 100}
	if !reflect.DeepEqual(a, wantA) {
		t.Errorf("a\n got %+v\nwant %+v", a, wantA)
	}
	wantB := Logs{BW: true, IOPS: true, IOPSPrefix: "iops", AvgMsec: 250, Offset: true, PerJob: true, ReadIolog: "in.log",
		ReplayNoStall: true, ReplayAlign: 4096, ReplayScale: 2, ReplayTimeScale: 50, ReplaySkip: []string{"write", "sync"}, ReplayRedirect: "/dev/null"}
	if !reflect.DeepEqual(b, wantB) {
		t.Errorf("b\n got %+v\nwant %+v", b, wantB)
	}
	if d := newJob("x", 1).Logs; !d.PerJob || d.ReplayScale != 1 || d.ReplayTimeScale != 100 {
		t.Errorf("defaults %+v", d)
	}
}

func TestLogOptionErrors(t *testing.T) {
	for _, tc := range []struct{ opt, want string }{
		{"log_avg_msec=-1", "log_avg_msec"},
		{"log_hist_coarseness=9", "log_hist_coarseness"},
		{"replay_time_scale=0", "replay_time_scale"},
		{"replay_skip=reads", "replay_skip"},
		{"replay_scale=0", "replay_scale"},
	} {
		_, err := Parse("e.fio", []byte("[j]\n"+tc.opt+"\n"), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "e.fio") {
			t.Errorf("%s: err %v", tc.opt, err)
		}
	}
}
