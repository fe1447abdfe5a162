package engine

import (
	"strings"
	"testing"
)

// TestCheckQueueOptionsRefusesWhatOpenWould: a scheduler, an allocation
// policy or a tunable the queue does not know is an error naming it; the
// defaults and known values pass.
func TestCheckQueueOptionsRefusesWhatOpenWould(t *testing.T) {
	for _, opt := range []Options{{}, {Scheduler: "none"}, {Scheduler: "mq-deadline", Alloc: "legacy", NrRequests: 64, Attrs: [][2]string{{"iosched/fifo_batch", "8"}}}} {
		if err := CheckQueueOptions(opt); err != nil {
			t.Errorf("%+v: %v", opt, err)
		}
	}
	for _, tc := range []struct {
		opt  Options
		want string
	}{
		{Options{Scheduler: "bogus"}, "bogus"},
		{Options{Alloc: "nope"}, `unknown allocation policy "nope"`},
		{Options{Attrs: [][2]string{{"no_such_tunable", "1"}}}, "no_such_tunable"},
		{Options{Scheduler: "mq-deadline", Attrs: [][2]string{{"iosched/fifo_batch", "x"}}}, "fifo_batch"},
	} {
		if err := CheckQueueOptions(tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v; want an error naming %q", tc.opt, err, tc.want)
		}
	}
}
