package iobench

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/blkq-dev/blkq/internal/cputime"
)

// RawArgs are the raw worker's settings, passed on its command line.
type RawArgs struct {
	Path          string
	Size          int64
	Jobs          int
	Random        bool
	Direct        bool
	Ramp, Runtime time.Duration
}

// rawResult is what the raw worker prints: its I/Os and CPU time after
// the ramp.
type rawResult struct {
	IOs     int64   `json:"ios"`
	Seconds float64 `json:"seconds"`
	CPUNs   int64   `json:"cpu_ns"`
}

// RunRaw is the raw worker: Jobs goroutines each pread 4 KiB blocks of
// Path (at random, or in order, wrapping at Size) for Ramp, then for
// Runtime counting; it writes a rawResult as JSON to w.
func RunRaw(a RawArgs, w io.Writer) error {
	flag := os.O_RDONLY
	if a.Direct {
		flag |= syscall.O_DIRECT
	}
	blocks := a.Size / 4096
	if blocks < 1 {
		return fmt.Errorf("raw: size %d is less than one 4 KiB block", a.Size)
	}
	var (
		counting atomic.Bool
		stop     atomic.Bool
		ios      atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	for j := range a.Jobs {
		f, err := os.OpenFile(a.Path, flag, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		wg.Add(1)
		go func(fd int, seed uint64) {
			defer wg.Done()
			buf := alignedBlock()
			rng := rand.New(rand.NewPCG(seed, 99))
			next := int64(0)
			var n int64
			for !stop.Load() {
				b := next
				if a.Random {
					b = rng.Int64N(blocks)
				} else {
					next = (next + 1) % blocks
				}
				if _, err := unix.Pread(fd, buf, b*4096); err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				n++
				if n == 64 { // add in batches: one atomic per 64 reads
					if counting.Load() {
						ios.Add(n)
					}
					n = 0
				}
			}
		}(int(f.Fd()), uint64(j)+1)
	}
	time.Sleep(a.Ramp)
	counting.Store(true)
	cpu0, t0 := cputime.Process(), time.Now()
	time.Sleep(a.Runtime)
	res := rawResult{IOs: ios.Load(), CPUNs: int64(cputime.Process() - cpu0), Seconds: time.Since(t0).Seconds()}
	stop.Store(true)
	wg.Wait()
	if firstErr != nil {
		return fmt.Errorf("raw: pread %s: %w", a.Path, firstErr)
	}
	return json.NewEncoder(w).Encode(res)
}

// alignedBlock returns a 4 KiB buffer aligned for O_DIRECT.
func alignedBlock() []byte {
	b := make([]byte, 2*4096)
	off := (4096 - int(uintptr(unsafe.Pointer(&b[0]))%4096)) % 4096
	return b[off : off+4096]
}
