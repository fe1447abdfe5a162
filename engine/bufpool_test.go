package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"
)

// TestFileRunMemoryBoundedByRequestPool: on a file device, the data
// buffers a run allocates are bounded by the request pool and the largest
// request, not by iodepth × bs. With nr_requests=4 (8 requests in all) and
// 1 MiB blocks, at most 8 bios (plus one parked) hold a buffer at once, so
// a run allocates about 10 MiB, where one buffer per I/O in flight can be
// up to iodepth MiB: O_DIRECT writes (whose pattern fill gives the device
// time to free requests while the job refills) and buffered reads through
// io_uring at full depth of a file the buffer cache holds.
func TestFileRunMemoryBoundedByRequestPool(t *testing.T) {
	for _, c := range []struct {
		name, job string
		ios       uint64
	}{
		{"direct", "[r]\nrw=randwrite\nbs=1m\nsize=64m\nio_size=192m\ndirect=1\nioengine=libaio\niodepth=192\n", 192},
		{"buffered", "[r]\nrw=randread\nbs=1m\nsize=4m\nio_size=512m\ndirect=0\nioengine=io_uring\niodepth=512\n", 512},
	} {
		t.Run(c.name, func(t *testing.T) {
			dev := filepath.Join(t.TempDir(), "dev")
			if err := os.WriteFile(dev, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(dev, 64<<20); err != nil {
				t.Fatal(err)
			}
			jf := parse(t, c.job)
			opt := Options{Device: "file:" + dev, NrRequests: 4}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res, err := Run(jf, opt)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if js := res.Run.Jobs[0]; js.Read.IOs+js.Write.IOs != c.ios {
				t.Fatalf("%d reads and %d writes, want %d I/Os", js.Read.IOs, js.Write.IOs, c.ios)
			}
			const limit = 24 << 20
			if a := after.TotalAlloc - before.TotalAlloc; a > limit {
				t.Fatalf("the run allocated %s, more than %s: buffers follow iodepth, not the request pool", mib(a), mib(limit))
			} else {
				t.Logf("the run allocated %s", mib(a))
			}
		})
	}
}

func mib(n uint64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// TestBufPoolReusesWithinItsLimit: a freed buffer is reused for the next
// request of its size class, aligned for O_DIRECT, with no allocation;
// beyond the limit, freed buffers are not kept.
func TestBufPoolReusesWithinItsLimit(t *testing.T) {
	p := newBufPool(8<<10, 1)
	a := p.get(4096)
	if len(a) != 4096 || cap(a) != 4096 || uintptr(unsafe.Pointer(&a[0]))%4096 != 0 {
		t.Fatalf("len %d cap %d, aligned %v", len(a), cap(a), uintptr(unsafe.Pointer(&a[0]))%4096 == 0)
	}
	p.put(a)
	if allocs := testing.AllocsPerRun(100, func() { p.put(p.get(3000)) }); allocs != 0 {
		t.Fatalf("%.1f allocations per get/put of a kept class", allocs)
	}
	b, c, d := p.get(4096), p.get(4096), p.get(4096)
	p.put(b)
	p.put(c)
	p.put(d) // over the 8 KiB limit: dropped
	if p.retained != 8<<10 || p.allocated != 3*4096 {
		t.Fatalf("retained %d, allocated %d", p.retained, p.allocated)
	}
	if got := p.get(512); cap(got) != 512 {
		t.Fatalf("a 512-byte request got a %d-byte buffer", cap(got))
	}
	if p.get(0) != nil {
		t.Fatal("a buffer for 0 bytes")
	}
}
