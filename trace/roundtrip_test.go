package trace_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/trace"
)

// TestRoundTripQueuedBios: the trace of a run, read back, holds one Q
// record per bio the run submitted, in submission order, with the bio's
// direction, sector, size and submitter; and one C per D.
func TestRoundTripQueuedBios(t *testing.T) {
	type bio struct {
		write   bool
		sector  uint64
		sectors uint32
		pid     int
	}
	for _, job := range []string{"fio-rand-RW.fio", "fio-seq-read.fio", "tiobench-example.fio"} {
		t.Run(job, func(t *testing.T) {
			var buf bytes.Buffer
			w := trace.NewWriter(&buf, trace.WriterOptions{})
			var submitted []bio
			capture := blkq.TracerFunc(func(e *blkq.Event) {
				if e.Action == 'Q' {
					submitted = append(submitted, bio{e.Op == blkq.OpWrite, e.Sector, e.Sectors, e.PID})
				}
			})
			res := runJob(t, job, 500*time.Millisecond, w, capture)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			recs, err := trace.ReadAll(&buf)
			if err != nil {
				t.Fatal(err)
			}
			var queued []bio
			issued, completed := 0, 0
			names := trace.Names(recs)
			for _, r := range recs {
				switch r.Letter() {
				case "Q":
					queued = append(queued, bio{r.Categories()&trace.TCWrite != 0, r.Sector, r.Sectors(), int(r.PID)})
					if names[r.PID] == "" {
						t.Fatalf("pid %d has no process note", r.PID)
					}
				case "D":
					issued++
				case "C":
					completed++
				}
			}
			if len(submitted) < 50 {
				t.Fatalf("only %d bios submitted", len(submitted))
			}
			if len(queued) != len(submitted) {
				t.Fatalf("%d Q records, %d bios submitted", len(queued), len(submitted))
			}
			for i := range queued {
				if queued[i] != submitted[i] {
					t.Fatalf("Q record %d = %+v, bio %+v", i, queued[i], submitted[i])
				}
			}
			if issued != completed || issued == 0 {
				t.Fatalf("%d D and %d C records", issued, completed)
			}
			var reqs uint64
			for _, js := range res.Run.Jobs {
				if js.Blkq != nil {
					reqs += js.Blkq.RequestsIssued
				}
			}
			if uint64(issued) != reqs {
				t.Errorf("%d D records, the report counts %d requests", issued, reqs)
			}
		})
	}
}
