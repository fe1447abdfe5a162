package bcache

// The buffer cache's hit and miss paths on the real clock (issue 13):
// ReadAt of one 4 KiB page, cached (a hit should cost little more than the
// copy) and not (a miss reads the page from a null device through the
// queue). Each reports ns/op, cpu-ns/op and allocs/op.

import (
	"math/rand/v2"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
	"github.com/blkq-dev/blkq/internal/cputime"
)

// benchCache returns a real-clock cache of pages pages over a null device
// of size bytes, read-ahead off.
func benchCache(b *testing.B, pages int, size int64) *Cache {
	b.Helper()
	clk := blkq.NewRealClock()
	q, err := blkq.New(device.NewNull(clk, uint64(size)>>blkq.SectorShift, 32), clk, blkq.Config{})
	if err != nil {
		b.Fatal(err)
	}
	c, err := New(q, Config{Pages: pages, Clock: clk, ReadAheadKB: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(); q.Close() })
	return c
}

// BenchmarkReadHit: random 4 KiB reads of a 16 MiB region that the cache
// holds whole.
func BenchmarkReadHit(b *testing.B) {
	const size = 16 << 20
	c := benchCache(b, 2*size/PageSize, size)
	buf := make([]byte, PageSize)
	for off := int64(0); off < size; off += PageSize {
		if _, err := c.ReadAt(buf, off); err != nil {
			b.Fatal(err)
		}
	}
	missesBefore := c.Stats().Misses
	rng := rand.New(rand.NewPCG(1, 2))
	cpu := cputime.Start(b)
	for range b.N {
		if _, err := c.ReadAt(buf, rng.Int64N(size/PageSize)*PageSize); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Stop(b.N)
	if m := c.Stats().Misses - missesBefore; m != 0 {
		b.Fatalf("%d misses on a cached region", m)
	}
}

// BenchmarkReadMiss: random 4 KiB reads over 1 GiB through a cache of 256
// pages (1 MiB): almost every read misses, evicts a clean page and reads
// its page from the device.
func BenchmarkReadMiss(b *testing.B) {
	const size = 1 << 30
	c := benchCache(b, 256, size)
	buf := make([]byte, PageSize)
	rng := rand.New(rand.NewPCG(1, 2))
	missesBefore := c.Stats().Misses
	cpu := cputime.Start(b)
	for range b.N {
		if _, err := c.ReadAt(buf, rng.Int64N(size/PageSize)*PageSize); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Stop(b.N)
	if m := c.Stats().Misses - missesBefore; float64(m) < 0.99*float64(b.N) {
		b.Fatalf("%d misses of %d reads; want almost all", m, b.N)
	}
}
