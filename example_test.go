package blkq_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
	"github.com/blkq-dev/blkq/sim"
)

// openTemp opens a queue on a fresh 16 MiB file.
func openTemp() (*blkq.Queue, func()) {
	dir, err := os.MkdirTemp("", "blkq-example")
	if err != nil {
		log.Fatal(err)
	}
	dev, err := device.OpenFile(filepath.Join(dir, "disk"), device.FileOptions{Size: 16 << 20})
	if err != nil {
		log.Fatal(err)
	}
	q, err := blkq.New(dev, blkq.NewRealClock(), blkq.Config{}) // mq-deadline: Linux's default
	if err != nil {
		log.Fatal(err)
	}
	return q, func() { dev.Close(); os.RemoveAll(dir) }
}

// A queue in front of a real file, used as an io.ReaderAt and io.WriterAt
// from any number of goroutines.
func ExampleQueue_ReadAt() {
	q, done := openTemp()
	defer done()
	if _, err := q.WriteAt([]byte("hello, request layer"), 1000); err != nil {
		log.Fatal(err)
	}
	buf := make([]byte, 20)
	if _, err := q.ReadAt(buf, 1000); err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(buf))
	// Output: hello, request layer
}

// Submit queues a bio and returns once it is queued (it blocks only while
// no request is free); the bio's EndIO reports its completion. Bios
// submitted under one plug by one task merge before they reach the
// elevator.
func ExampleQueue_Submit() {
	q, done := openTemp()
	defer done()
	stats := &blkq.DiskStats{}
	q.AddTracer(stats)

	t := blkq.NewGoroutineTask("writer")
	ctx := blkq.WithTask(context.Background(), t)
	finished := make(chan error, 8)
	q.Plug(t)
	for i := range 8 {
		b := &blkq.Bio{Op: blkq.OpWrite, Sector: uint64(i) * 8, Sectors: 8, Buf: make([]byte, 4096),
			EndIO: func(_ *blkq.Bio, err error) { finished <- err }}
		if err := q.Submit(ctx, b); err != nil {
			log.Fatal(err)
		}
	}
	q.Finish(t) // the plug's one 32 KiB request goes to the elevator
	for range 8 {
		if err := <-finished; err != nil {
			log.Fatal(err)
		}
	}
	st := stats.Stat()
	fmt.Printf("write ios=%d merges=%d sectors=%d\n", st[4], st[5], st[6])
	// Output: write ios=1 merges=7 sectors=64
}

// Tunables are read and written by their Linux names, while I/O runs.
func ExampleQueue_SetAttr() {
	q, done := openTemp()
	defer done()
	for _, kv := range [][2]string{{"nomerges", "1"}, {"iosched/fifo_batch", "8"}, {"nr_requests", "64"}} {
		if err := q.SetAttr(kv[0], kv[1]); err != nil {
			log.Fatal(err)
		}
	}
	for _, name := range []string{"scheduler", "nomerges", "nr_requests", "batch_requests", "iosched/fifo_batch", "iosched/read_expire"} {
		v, _ := q.Attr(name)
		fmt.Printf("%s: %s\n", name, v)
	}
	// Output:
	// scheduler: linus [mq-deadline] mq-deadline-noprio none
	// nomerges: 1
	// nr_requests: 64
	// batch_requests: 16
	// iosched/fifo_batch: 8
	// iosched/read_expire: 500
}

// An event-loop program (here the simulator's virtual clock) uses
// Enqueue, which never blocks: when no request is free the task sleeps,
// Enqueue returns false, and the queue calls the task's Wake when it may
// go on. Every figure comes from the event stream: here a count of the
// actions (Q queued, G got a request, S slept, W woken, C completed).
func ExampleQueue_Enqueue() {
	loop := sim.NewLoop()
	q, err := blkq.New(device.NewNull(loop, 1<<20, 1), loop, blkq.Config{NrRequests: 4})
	if err != nil {
		log.Fatal(err)
	}
	count := map[blkq.Action]int{}
	q.AddTracer(blkq.TracerFunc(func(e *blkq.Event) { count[e.Action]++ }))

	t := blkq.NewTask(1, "reader")
	next := 0
	var submit func()
	submit = func() {
		for next < 16 {
			b := &blkq.Bio{Op: blkq.OpRead, Sector: uint64(next) * 64, Sectors: 8}
			next++
			if !q.Enqueue(t, b) {
				return // asleep: Wake resumes the task
			}
		}
	}
	t.Wake = func(resume func() bool) {
		loop.Post(func() {
			if resume() { // got its request: the parked bio is queued
				submit()
			}
		})
	}
	loop.Post(submit)
	loop.Run()
	scheduler, _ := q.Attr("scheduler")
	fmt.Printf("scheduler %s: Q=%d G=%d S=%d W=%d C=%d\n", scheduler, count['Q'], count['G'], count['S'], count['W'], count['C'])
	if err := q.Check(true); err != nil {
		log.Fatal(err)
	}
	// Output: scheduler linus [mq-deadline] mq-deadline-noprio none: Q=16 G=16 S=6 W=6 C=16
}
