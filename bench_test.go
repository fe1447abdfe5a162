package blkq_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
	"github.com/blkq-dev/blkq/sim"
)

// BenchmarkRequestLayer measures the request layer's own CPU time per I/O
// (ns/op) on the null device in virtual time: random and sequential 4 KiB
// reads from 32 tasks at depth 4 each, under nomerges 0, 1 and 2. The
// 2008 report found nomerges=1 cut the block layer's CPU on random I/O.
func BenchmarkRequestLayer(b *testing.B) {
	for _, pattern := range []string{"random", "sequential"} {
		for _, nm := range []int{0, 1, 2} {
			b.Run(fmt.Sprintf("%s/nomerges=%d", pattern, nm), func(b *testing.B) {
				loop := sim.NewLoop()
				dev := device.NewNull(loop, 1<<31, 32)
				q, err := blkq.New(dev, loop, blkq.Config{Scheduler: "mq-deadline", NoMerges: nm})
				if err != nil {
					b.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(1, 2))
				left := b.N
				type stream struct {
					t    *blkq.Task
					next uint64
				}
				var submit func(s *stream, bio *blkq.Bio)
				submit = func(s *stream, bio *blkq.Bio) {
					if left <= 0 {
						return
					}
					left--
					if pattern == "random" {
						bio.Sector = rng.Uint64N(1<<31-8) &^ 7
					} else {
						bio.Sector = s.next
						s.next += 8
					}
					bio.Op, bio.Sectors = blkq.OpRead, 8
					q.Enqueue(s.t, bio)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := range 32 {
					s := &stream{t: blkq.NewTask(i+1, "bench"), next: uint64(i) << 24}
					for range 4 {
						bio := &blkq.Bio{}
						bio.EndIO = func(bio *blkq.Bio, err error) { submit(s, bio) }
						submit(s, bio)
					}
				}
				loop.Run()
			})
		}
	}
}
