package fio

import (
	"strings"
	"testing"
)

// TestPriorityOptions: prio and prioclass give the job's ioprio; cmdprio
// options are per direction (read,write); cmdprio_bssplit drops 0%
// entries, sorts by block size and caps class and level as fio does; the
// cmdprio options belong to libaio and io_uring, and percentage and
// bssplit exclude each other.
func TestPriorityOptions(t *testing.T) {
	j := job(t, "ioengine=libaio\nprio=7\nprioclass=2\ncmdprio_percentage=20,30\ncmdprio_class=1\ncmdprio=0,4")
	p := j.Priority
	if !p.Set || IOPrio(p.Class, p.Level) != 2<<13|7 || p.CmdPercentage != [2]int{20, 30} || p.CmdClass != [2]int{1, 1} || p.CmdLevel != [2]int{0, 4} {
		t.Errorf("%+v", p)
	}
	if IOPrio(0, 3) != 2<<13|3 {
		t.Error("class 0 is not taken as best-effort")
	}
	sp := job(t, "ioengine=io_uring\ncmdprio_bssplit=1m/10/9/9:4k/0:64k/25/1/1:64k/75,8k/100").Priority.CmdBSSplit
	want := []PrioSplit{{64 << 10, 25, 1<<13 | 1}, {64 << 10, 75, -1}, {1 << 20, 10, 3<<13 | 7}}
	if len(sp[0]) != 3 || sp[0][0] != want[0] || sp[0][1] != want[1] || sp[0][2] != want[2] || len(sp[1]) != 1 || sp[1][0] != (PrioSplit{8 << 10, 100, -1}) {
		t.Errorf("cmdprio_bssplit: %+v", sp)
	}
	for _, c := range []struct{ body, want string }{
		{"cmdprio_percentage=20", "ioengine=libaio and io_uring, not psync"},
		{"ioengine=libaio\ncmdprio_percentage=20\ncmdprio_bssplit=4k/10", "mutually exclusive"},
		{"ioengine=libaio\ncmdprio_bssplit=4k/60:4k/50", "more than 100%"},
		{"ioengine=libaio\ncmdprio_bssplit=4k/60/1", "bs/perc/class/level"},
		{"prio=8", "prio"},
		{"ioengine=libaio\ncmdprio_class=0", "cmdprio_class"},
	} {
		jf, err := ParseConfig("t.fio", []byte("[j]\n"+c.body+"\n"), Config{})
		if err == nil {
			err = Validate(jf)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "t.fio:") {
			t.Errorf("%q: %v, want an error naming t.fio and %q", c.body, err, c.want)
		}
	}
}
