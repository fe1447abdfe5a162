package blkq_test

import (
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
	"github.com/blkq-dev/blkq/sim"
)

// onlyTracer consumes the actions named by want (Tracer's Actions).
type onlyTracer struct {
	want string
	got  []blkq.Event
}

func (o *onlyTracer) Actions() string     { return o.want }
func (o *onlyTracer) Trace(e *blkq.Event) { o.got = append(o.got, *e) }
func (o *onlyTracer) actions() (s []byte) {
	for _, e := range o.got {
		s = append(s, byte(e.Action))
	}
	return s
}

// TestTracerActionsFilterEvents: a tracer with an Actions method gets the
// events it names and no others, each filled in as a tracer of every
// event sees it; a tracer without one gets every event; and with only
// filtered tracers the others are not sent at all (DiskStats counts as
// it always did).
func TestTracerActionsFilterEvents(t *testing.T) {
	run := func(tracers ...blkq.Tracer) *blkq.DiskStats {
		loop := sim.NewLoop()
		q, err := blkq.New(device.NewNull(loop, 1<<20, 1), loop, blkq.Config{Scheduler: "mq-deadline"})
		if err != nil {
			t.Fatal(err)
		}
		st := &blkq.DiskStats{}
		q.AddTracer(st)
		for _, tr := range tracers {
			q.AddTracer(tr)
		}
		task := blkq.NewTask(7, "t")
		// Two reads that back-merge while the device is busy with a third.
		for _, s := range []uint64{1000, 0, 8} {
			q.Enqueue(task, &blkq.Bio{Op: blkq.OpRead, Sector: s, Sectors: 8})
		}
		loop.Run()
		return st
	}
	var all []blkq.Event
	every := blkq.TracerFunc(func(e *blkq.Event) { all = append(all, *e) })
	dc := &onlyTracer{want: "DC"}
	m := &onlyTracer{want: "M"}
	withAll := run(every, dc, m)
	if got := string(dc.actions()); got != "DCDC" {
		t.Errorf("the D and C tracer got %q, want DCDC (one request, then the merged one)", got)
	}
	if got := string(m.actions()); got != "M" {
		t.Errorf("the M tracer got %q, want M", got)
	}
	var want []blkq.Event
	for _, e := range all {
		if e.Action == 'D' || e.Action == 'C' {
			want = append(want, e)
		}
	}
	if len(want) != len(dc.got) {
		t.Fatalf("%d D and C events in the full stream, the filtered tracer got %d", len(want), len(dc.got))
	}
	for i := range want {
		if want[i] != dc.got[i] {
			t.Errorf("event %d: filtered %+v, full stream %+v", i, dc.got[i], want[i])
		}
	}
	n := map[blkq.Action]int{}
	for _, e := range all {
		n[e.Action]++
	}
	if n['Q'] != 3 || n['I'] != 2 || n['G'] != 2 {
		t.Errorf("the unfiltered tracer saw %v, want 3 Q, 2 G, 2 I", n)
	}
	alone := &onlyTracer{want: "DC"}
	filtered := run(alone)
	if string(alone.actions()) != "DCDC" {
		t.Errorf("alone, the D and C tracer got %q", alone.actions())
	}
	a, b := withAll.Snapshot(), filtered.Snapshot()
	if a != b || a.Merges[blkq.OpRead] != 1 || a.IOs[blkq.OpRead] != 2 {
		t.Errorf("DiskStats with every event sent %+v, with only filtered tracers %+v: want the same, 1 merge, 2 reads", a, b)
	}
}
