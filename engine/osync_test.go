package engine

import (
	"fmt"
	"testing"

	"github.com/blkq-dev/blkq"
)

// ioCounts counts, by the trace's queue events, the job's write bios with
// FUA, without, and the flushes, and the device's write requests (D).
type ioCounts struct{ fua, plain, flushes, devWrites int }

func countIO(t *testing.T, src, device string) ioCounts {
	t.Helper()
	var c ioCounts
	tr := blkq.TracerFunc(func(e *blkq.Event) {
		switch {
		case e.Action == 'Q' && e.Op == blkq.OpWrite && e.Flags&blkq.FlagFUA != 0:
			c.fua++
		case e.Action == 'Q' && e.Op == blkq.OpWrite:
			c.plain++
		case e.Action == 'Q' && e.Op == blkq.OpFlush:
			c.flushes++
		case e.Action == 'D' && e.Op == blkq.OpWrite:
			c.devWrites++
		}
	})
	run(t, src, Options{Device: device, Tracers: []blkq.Tracer{tr}})
	return c
}

// TestSyncOption: sync=1, sync=sync and sync=dsync make each direct write
// a FUA write (sync=0 and none leave them plain), and leave trims' jobs
// alone as fio does (trimwrite's writes stay plain); a buffered write
// with sync=1 is written back with a flush before it completes: one
// device write and one flush per 4k write, where without it the 64
// writes stay in the page cache.
func TestSyncOption(t *testing.T) {
	const direct = "[w]\nioengine=libaio\niodepth=4\ndirect=1\nbs=4k\nsize=256k\n"
	for _, tc := range []struct {
		opt  string
		want ioCounts
	}{
		{"rw=write", ioCounts{plain: 64, devWrites: -1}},
		{"rw=write\nsync=0", ioCounts{plain: 64, devWrites: -1}},
		{"rw=write\nsync=none", ioCounts{plain: 64, devWrites: -1}},
		{"rw=randwrite\nsync=1", ioCounts{fua: 64, devWrites: -1}},
		{"rw=write\nsync=sync", ioCounts{fua: 64, devWrites: -1}},
		{"rw=rw\nsync=dsync\nrwmixread=0", ioCounts{fua: 64, devWrites: -1}},
		{"rw=trimwrite\nsync=1", ioCounts{plain: 64, devWrites: -1}},
	} {
		got := countIO(t, direct+tc.opt+"\n", "sim:ssd")
		got.devWrites = -1
		if got != tc.want {
			t.Errorf("direct %q: %+v, want %+v", tc.opt, got, tc.want)
		}
	}
	const buffered = "[w]\nioengine=psync\nrw=write\nbs=4k\nsize=256k\n"
	if got := countIO(t, buffered, "sim:ssd"); got.devWrites != 0 || got.flushes != 0 {
		t.Errorf("buffered: %+v, want no device write and no flush (the pages stay dirty)", got)
	}
	for _, s := range []string{"1", "dsync"} {
		got := countIO(t, buffered+fmt.Sprintf("sync=%s\n", s), "sim:ssd")
		if got.devWrites != 64 || got.flushes != 64 || got.fua != 0 {
			t.Errorf("buffered sync=%s: %+v, want 64 device writes and 64 flushes", s, got)
		}
	}
}

// TestSyncOptionOnFile: on a file: device, sync=1's direct writes (FUA:
// RWF_DSYNC) and buffered ones (written back and fdatasync'ed) hold what
// the job wrote when the run's data check reads them back.
func TestSyncOptionOnFile(t *testing.T) {
	for _, direct := range []string{"0", "1"} {
		path := t.TempDir() + "/dev"
		res := run(t, "[w]\nioengine=psync\nrw=randwrite\nbs=4k\nsize=256k\nsync=1\ndirect="+direct+"\n", Options{Device: "file:" + path})
		if res.Verified != 256<<10>>blkq.SectorShift {
			t.Errorf("direct=%s: %d sectors checked, want %d", direct, res.Verified, 256<<10>>blkq.SectorShift)
		}
	}
}

// TestSyncOptionWithoutFUA: on sim:hdd, whose write cache has no FUA,
// sync=1's FUA writes are each followed by a cache flush, as Linux's
// flush sequencing turns them (one flush request per write, since each
// waits for the one before at iodepth 1); on the null device, which has
// no write cache, no flush reaches the device at all.
func TestSyncOptionWithoutFUA(t *testing.T) {
	const job = "[w]\nioengine=psync\ndirect=1\nrw=write\nbs=4k\nsize=256k\nsync=1\n"
	for _, tc := range []struct {
		device  string
		flushes int
	}{
		{"sim:hdd", 64},
		{"null", 0},
	} {
		flushes := 0
		tr := blkq.TracerFunc(func(e *blkq.Event) {
			if e.Action == 'D' && e.Op == blkq.OpFlush {
				flushes++
			}
		})
		run(t, job, Options{Device: tc.device, Tracers: []blkq.Tracer{tr}})
		if flushes != tc.flushes {
			t.Errorf("%s: %d flush requests dispatched, want %d", tc.device, flushes, tc.flushes)
		}
	}
}
