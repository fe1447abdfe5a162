package blkq_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
	"github.com/blkq-dev/blkq/lockstat"
)

// TestStatisticsReadableWhileIORuns: one goroutine polls every statistic
// and every attribute the queue offers while 16 goroutines submit through
// the blocking API (ReadAt, WriteAt, Submit, Flush) on a small pool, so
// they sleep in allocation. Under -race any unsynchronised read fails the
// test; without it the readings must still be consistent.
func TestStatisticsReadableWhileIORuns(t *testing.T) {
	dev, err := device.OpenFile(filepath.Join(t.TempDir(), "disk"), device.FileOptions{Size: 8 << 20, Depth: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	hold := lockstat.New(false)
	clk := blkq.NewRealClock()
	q, err := blkq.New(dev, clk, blkq.Config{NrRequests: 4, LockHook: hold})
	if err != nil {
		t.Fatal(err)
	}
	stats := &blkq.DiskStats{}
	q.AddTracer(stats)
	tasks := make([]*blkq.Task, 16)
	for i := range tasks {
		tasks[i] = blkq.NewGoroutineTask(fmt.Sprintf("w%d", i))
	}
	var stop atomic.Bool
	var polls atomic.Int64
	var rd sync.WaitGroup
	rd.Go(func() {
		for !stop.Load() {
			st := stats.Snapshot()
			stats.Flush(clk.Now())
			_ = stats.Stat()
			if st.InFlight < 0 {
				t.Errorf("in flight %d < 0", st.InFlight)
			}
			_ = q.Pool()
			_ = hold.Stats()
			for _, a := range q.Attrs() {
				if _, err := q.Attr(a); err != nil {
					t.Errorf("Attr(%s): %v", a, err)
				}
			}
			if err := q.CheckInvariants(); err != nil {
				t.Error(err)
			}
			_ = q.Idle()
			polls.Add(1)
		}
	})
	var wg sync.WaitGroup
	for g, tk := range tasks {
		wg.Go(func() {
			ctx := blkq.WithTask(context.Background(), tk)
			buf := make([]byte, 8192)
			for i := range 40 {
				off := int64(g)<<19 + int64(i%8)*8192
				switch i % 4 {
				case 0:
					if _, err := q.WriteAt(buf, off+100); err != nil {
						t.Error(err)
					}
				case 1:
					if _, err := q.ReadAt(buf, off); err != nil {
						t.Error(err)
					}
				case 2:
					done := make(chan error, 1)
					b := &blkq.Bio{Op: blkq.OpWrite, Sector: uint64(off) >> 9, Sectors: 16, Buf: buf,
						EndIO: func(_ *blkq.Bio, err error) { done <- err }}
					if err := q.Submit(ctx, b); err != nil {
						t.Error(err)
					}
					if err := <-done; err != nil {
						t.Error(err)
					}
				case 3:
					if g == 0 {
						if err := q.Flush(ctx); err != nil {
							t.Error(err)
						}
					}
				}
			}
		})
	}
	wg.Wait()
	stop.Store(true)
	rd.Wait()
	if err := q.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	st := stats.Snapshot()
	if st.InFlight != 0 || st.IOs[blkq.OpWrite] == 0 || st.IOs[blkq.OpRead] == 0 {
		t.Fatalf("after the run: %+v", st)
	}
	t.Logf("%d polls; stat %v", polls.Load(), stats.Stat())
}
