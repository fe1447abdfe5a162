package engine

import (
	"testing"

	"github.com/blkq-dev/blkq"
)

// overlapTracer counts bios queued (Q) while an overlapping bio is still
// in flight (queued and its request not yet complete, C).
type overlapTracer struct {
	flight   [][2]uint64 // [sector, end) of the bios in flight
	overlaps int
	bios     int
}

func (o *overlapTracer) Trace(e *blkq.Event) {
	switch e.Action {
	case 'Q':
		if e.Op == blkq.OpFlush {
			return
		}
		o.bios++
		lo, hi := e.Sector, e.Sector+uint64(e.Sectors)
		for _, f := range o.flight {
			if lo < f[1] && f[0] < hi {
				o.overlaps++
				break
			}
		}
		o.flight = append(o.flight, [2]uint64{lo, hi})
	case 'C':
		if e.Rq == nil {
			return
		}
		// The request's bios end with it: every range in flight inside it.
		lo, hi := e.Sector, e.Sector+uint64(e.Sectors)
		kept := o.flight[:0]
		for _, f := range o.flight {
			if f[0] < lo || f[1] > hi {
				kept = append(kept, f)
			}
		}
		o.flight = kept
	}
}

// TestSerializeOverlap: random writes of 4-16 KiB over a 64 KiB region at
// iodepth 16 queue bios over bios in flight (1267 of 2000 on sim:hdd);
// with serialize_overlap=1 never once, and the job still does all its
// I/O with more than one in flight. fio turns the option off for a job
// that only reads, so there overlapping reads go on.
func TestSerializeOverlap(t *testing.T) {
	const job = "[w]\nrw=randwrite\nbsrange=4k-16k\nioengine=libaio\ndirect=1\niodepth=16\nsize=64k\nio_size=64m\nnorandommap\nnumber_ios=2000\n"
	for _, c := range []struct {
		name, opts string
		overlap    bool
	}{
		{"writes", "", true},
		{"writes, serialize_overlap", "serialize_overlap=1\n", false},
		{"writes, serialize_overlap, offload", "serialize_overlap=1\nio_submit_mode=offload\n", false},
		{"reads, serialize_overlap", "serialize_overlap=1\nrw=randread\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := &overlapTracer{}
			res := run(t, job+c.opts, Options{Tracers: []blkq.Tracer{tr}})
			js := res.Run.Jobs[0]
			if n := js.Read.IOs + js.Write.IOs; n != 2000 || tr.bios != 2000 {
				t.Fatalf("%d I/Os, %d bios queued; want 2000", n, tr.bios)
			}
			deeper := js.IODepthHist[1] + js.IODepthHist[2] + js.IODepthHist[3] + js.IODepthHist[4]
			t.Logf("%d of 2000 bios queued over a bio in flight; IO depths %v", tr.overlaps, js.IODepthHist)
			if got := tr.overlaps > 0; got != c.overlap {
				t.Errorf("%d bios queued over one in flight; want overlaps: %v", tr.overlaps, c.overlap)
			}
			if deeper == 0 {
				t.Errorf("IO depths %v: never more than one I/O in flight", js.IODepthHist)
			}
		})
	}
}
