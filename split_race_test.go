package blkq_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
)

// TestSplitPiecesEndOnAnyGoroutine: the pieces of a split bio complete on
// the null device's worker goroutines, concurrently; each caller's bio
// must still end exactly once, after its last piece (run under -race).
// Eight goroutines submit 64 bios each of 1 MiB through a queue whose
// max_sectors_kb is 16 and whose pool of 4 requests makes them sleep.
func TestSplitPiecesEndOnAnyGoroutine(t *testing.T) {
	clk := blkq.NewRealClock()
	dev := device.NewNull(clk, 1<<24, 8)
	defer dev.Close()
	q, err := blkq.New(dev, clk, blkq.Config{Scheduler: "mq-deadline", NrRequests: 4, MaxSectors: 32})
	if err != nil {
		t.Fatal(err)
	}
	var ended, wrong atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			done := make(chan struct{}, 64)
			for i := range 64 {
				b := &blkq.Bio{Op: blkq.OpRead, Sector: uint64(g*64+i) * 2048, Sectors: 2048}
				var n atomic.Int32
				b.EndIO = func(*blkq.Bio, error) {
					if n.Add(1) != 1 {
						wrong.Add(1)
					}
					ended.Add(1)
					done <- struct{}{}
				}
				if err := q.Submit(context.Background(), b); err != nil {
					t.Error(err)
				}
			}
			for range 64 {
				<-done
			}
		}()
	}
	wg.Wait()
	if ended.Load() != 512 || wrong.Load() != 0 {
		t.Fatalf("%d bios ended (%d more than once), want 512 once each", ended.Load(), wrong.Load())
	}
	if err := q.Check(true); err != nil {
		t.Fatal(err)
	}
}
