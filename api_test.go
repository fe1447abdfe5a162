package blkq_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
)

// TestConcurrentReadWriteAt: 16 goroutines write and read back their own
// unaligned regions through a queue with only 4 requests per direction, so
// they sleep in allocation and are woken; every byte must come back.
func TestConcurrentReadWriteAt(t *testing.T) {
	for _, alloc := range []string{"fair", "legacy"} {
		t.Run(alloc, func(t *testing.T) {
			dev, err := device.OpenFile(filepath.Join(t.TempDir(), "disk"), device.FileOptions{Size: 8 << 20, Depth: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer dev.Close()
			q, err := blkq.New(dev, blkq.NewRealClock(), blkq.Config{Scheduler: "mq-deadline", NrRequests: 4, Alloc: alloc})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for g := range 16 {
				wg.Go(func() {
					for i := range 20 {
						off := int64(g)<<19 + int64(i)*10007 + 3
						want := bytes.Repeat([]byte(fmt.Sprintf("%02d-%02d|", g, i)), 700)
						if _, err := q.WriteAt(want, off); err != nil {
							t.Error(err)
							return
						}
						got := make([]byte, len(want))
						if _, err := q.ReadAt(got, off); err != nil {
							t.Error(err)
							return
						}
						if !bytes.Equal(got, want) {
							t.Errorf("goroutine %d write %d: read back differs", g, i)
							return
						}
					}
				})
			}
			wg.Wait()
			if err := q.CheckInvariants(); err != nil {
				t.Fatal(err)
			}
			if !q.Idle() {
				t.Fatalf("queue not idle: %+v", q.Pool())
			}
		})
	}
}

func TestReadAtEnd(t *testing.T) {
	dev, err := device.OpenFile(filepath.Join(t.TempDir(), "disk"), device.FileOptions{Size: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	q, _ := blkq.New(dev, blkq.NewRealClock(), blkq.Config{})
	buf := make([]byte, 4096)
	n, err := q.ReadAt(buf, 1<<20-100)
	if n != 100 || err != io.EOF {
		t.Fatalf("read across the end: n=%d err=%v, want 100, io.EOF", n, err)
	}
	if _, err := q.ReadAt(buf, 1<<20); err != io.EOF {
		t.Fatalf("read at the end: %v, want io.EOF", err)
	}
	if _, err := q.ReadAt(buf, -1); err == nil {
		t.Fatal("negative offset accepted")
	}
}

func TestCloseRefusesNewBios(t *testing.T) {
	dev, err := device.OpenFile(filepath.Join(t.TempDir(), "disk"), device.FileOptions{Size: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	q, _ := blkq.New(dev, blkq.NewRealClock(), blkq.Config{})
	if _, err := q.WriteAt(make([]byte, 4096), 0); err != nil {
		t.Fatal(err)
	}
	q.Close()
	if _, err := q.WriteAt(make([]byte, 4096), 0); !errors.Is(err, syscall.ENODEV) {
		t.Fatalf("write after Close: %v, want ENODEV (closed)", err)
	}
}
