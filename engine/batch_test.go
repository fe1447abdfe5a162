package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
)

// seqBatchJob is sequential 4 KiB direct reads at iodepth 32, 4 MiB:
// 1024 I/Os, 32 batches of 32.
const seqBatchJob = "[s]\nrw=read\nbs=4k\nioengine=libaio\ndirect=1\niodepth=32\nsize=4m\n"

// TestBatchSubmitMergesOnlyUnderAPlug: on sim:ssd (queue depth 32, so a
// request never waits in the elevator) bios merge only on a plug, and
// Linux plugs an io_submit only of more than two iocbs. fio's default
// iodepth_batch_submit=1 submits every read alone: 1024 requests, no
// merge. With iodepth_batch_submit=32 the first io_submit carries 32
// reads under one plug, one 128 KiB request (31 merges); then, reaping
// one completion at a time (iodepth_batch_complete_min=1), the job refills
// one I/O at a time, and a reap's wait submits each alone: 31 merges in
// all. Adding iodepth_batch_complete_min=32 reaps whole batches, so every
// io_submit carries 32: 32 requests of 128 KiB, 31 merges each (992).
// A batch of 2 is never plugged (no merges); of 3, the ten calls of 3
// that fill the queue are, and then fio's count of queued I/Os and
// libaio's part (a reap submits libaio's without resetting fio's), so
// the calls carry 1 and 2: 20 merges.
func TestBatchSubmitMergesOnlyUnderAPlug(t *testing.T) {
	for _, c := range []struct {
		opts             string
		merges, requests uint64
		submits          [report.NumDepthBuckets]uint64 // io_submit calls by size
	}{
		{"", 0, 1024, [report.NumDepthBuckets]uint64{0, 1024}},
		{"iodepth_batch_submit=32\n", 31, 993, [report.NumDepthBuckets]uint64{0, 992, 0, 0, 1}},
		{"iodepth_batch=32\niodepth_batch_complete_min=32\n", 992, 32, [report.NumDepthBuckets]uint64{0, 0, 0, 0, 32}},
		{"iodepth_batch_submit=0\n", 31, 993, [report.NumDepthBuckets]uint64{0, 992, 0, 0, 1}}, // 0 is iodepth
		{"iodepth_batch=2\niodepth_batch_complete=2\n", 0, 1024, [report.NumDepthBuckets]uint64{0, 512}},
		{"iodepth_batch=3\niodepth_batch_complete=3\n", 20, 1004, [report.NumDepthBuckets]uint64{0, 683}},
	} {
		t.Run(strings.ReplaceAll(c.opts, "\n", " "), func(t *testing.T) {
			res := run(t, seqBatchJob+c.opts, Options{Device: "sim:ssd"})
			js := res.Run.Jobs[0]
			if js.Read.IOs != 1024 {
				t.Fatalf("%d reads, want 1024", js.Read.IOs)
			}
			if b := js.Blkq; b.BackMerges+b.FrontMerges != c.merges || b.RequestsIssued != c.requests {
				t.Errorf("merges %d+%d, requests %d; want %d merges, %d requests", b.BackMerges, b.FrontMerges, b.RequestsIssued, c.merges, c.requests)
			}
			if res.Disk.Merges[0] != c.merges {
				t.Errorf("disk stats: %d read merges, want %d", res.Disk.Merges[0], c.merges)
			}
			if js.SubmitHist != c.submits {
				t.Errorf("submit calls by size %v, want %v", js.SubmitHist, c.submits)
			}
		})
	}
}

// TestBatchPlugsAsLinux: the job's task opens a plug around an io_submit
// exactly when it carries more than two iocbs (fs/aio.c), and each plug
// holds one call: with iodepth_batch=3 and complete_min=3, the ten calls
// of three that fill the queue of 32 are plugged (a P and a U in the
// trace for each, the three bios merged into one request on it), the
// calls of one and two after them are not.
func TestBatchPlugsAsLinux(t *testing.T) {
	var plugs, unplugs, bios []int // per plug: the bios on it (its request's first, and those merged into it)
	inPlug := false
	tr := blkq.TracerFunc(func(e *blkq.Event) {
		switch e.Action {
		case 'P':
			plugs = append(plugs, 1)
			inPlug = true
		case 'U':
			unplugs = append(unplugs, e.Depth)
			bios = append(bios, plugs[len(plugs)-1])
			inPlug = false
		case 'M':
			if inPlug {
				plugs[len(plugs)-1]++
			}
		}
	})
	run(t, seqBatchJob+"iodepth_batch=3\niodepth_batch_complete=3\n", Options{Device: "sim:ssd", Tracers: []blkq.Tracer{tr}})
	if len(plugs) != 10 || fmt.Sprint(bios) != fmt.Sprint([]int{3, 3, 3, 3, 3, 3, 3, 3, 3, 3}) || fmt.Sprint(unplugs) != fmt.Sprint([]int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}) {
		t.Errorf("%d plugs, bios on each %v, requests unplugged from each %v; want 10 of 3 bios in one request", len(plugs), bios, unplugs)
	}
}

// TestBatchHistogramsAsFio: the "IO depths", "submit" and "complete"
// distributions of fio 3.33 for jobs where they do not depend on the
// device's timing (reaps of one, or of a fixed number), exactly as Debian's
// fio reported them for the same job on a file here (fio's percentages,
// as counts of its 800 or 1200 I/Os). iodepth_low=0 is iodepth, as in
// fio; a full queue reaps down to iodepth_low; the depth histogram counts
// fio's own queued I/Os at its commit, which a reap's wait does not reset
// (iodepth=30, batch 8); complete_min=0 with complete_max=0 reaps after
// every submission, which keeps one I/O in flight.
func TestBatchHistogramsAsFio(t *testing.T) {
	const job = "[b]\nrw=randread\nbs=4k\nioengine=libaio\ndirect=1\nsize=16m\n"
	type hist = [report.NumDepthBuckets]uint64
	for _, c := range []struct {
		opts                     string
		depths, submit, complete hist
	}{
		// fio: IO depths 1=0.1%, 2=0.2%, 4=0.5%, 8=99.1%; complete 4=99.9%, 8=0.1%.
		{"iodepth=8\niodepth_low=0\nnumber_ios=800\n", hist{1, 2, 4, 793}, hist{0, 800}, hist{0, 793, 1}},
		// fio: IO depths 1=0.125, 2=28.625, 4=57.0, 8=14.25 (JSON).
		{"iodepth=8\niodepth_low=1\nnumber_ios=800\n", hist{1, 229, 456, 114}, hist{0, 800}, hist{0, 799}},
		// fio: IO depths 2=29.0, 4=56.0, 8=15.0; submit 4=56.78392, 8=43.21608.
		{"iodepth=8\niodepth_low=1\niodepth_batch=8\nnumber_ios=800\n", hist{0, 232, 448, 120}, hist{0, 113, 86}, hist{0, 799}},
		// fio: IO depths 8=0.666667, 16=99.333333; submit 4=58.990536,
		// 8=41.009464; complete 8=99.324324, 32=0.675676.
		{"iodepth=30\niodepth_batch=8\niodepth_batch_complete_min=8\nnumber_ios=1200\n", hist{0, 0, 0, 8, 1192}, hist{0, 187, 130}, hist{0, 0, 147, 0, 1}},
		// fio: IO depths 1=100.0.
		{"iodepth=8\niodepth_batch_complete_min=0\nnumber_ios=800\n", hist{800}, hist{0, 800}, hist{0, 800}},
	} {
		t.Run(strings.ReplaceAll(c.opts, "\n", " "), func(t *testing.T) {
			js := run(t, job+c.opts, Options{}).Run.Jobs[0]
			if js.IODepthHist != c.depths || js.SubmitHist != c.submit || js.CompleteHist != c.complete {
				t.Errorf("depths %v submit %v complete %v\nwant   %v        %v          %v", js.IODepthHist, js.SubmitHist, js.CompleteHist, c.depths, c.submit, c.complete)
			}
		})
	}
}

// TestFioBatchHistograms runs TestBatchHistogramsAsFio's jobs through
// Debian's fio 3.33 on a file and compares its JSON distributions with
// blkq's, figure by figure.
func TestFioBatchHistograms(t *testing.T) {
	bin := needFio(t)
	dir := t.TempDir()
	for _, opts := range []string{
		"iodepth=8 iodepth_low=0 number_ios=800",
		"iodepth=8 iodepth_low=1 iodepth_batch=8 number_ios=800",
		"iodepth=30 iodepth_batch=8 iodepth_batch_complete_min=8 number_ios=1200",
		"iodepth=32 iodepth_batch=3 iodepth_batch_complete_min=3 number_ios=1200",
		"iodepth=8 iodepth_batch_complete_min=0 iodepth_batch_complete_max=0 number_ios=800",
	} {
		t.Run(opts, func(t *testing.T) {
			body := "rw=randread\nbs=4k\nioengine=libaio\ndirect=1\nsize=16m\n" + strings.ReplaceAll(opts, " ", "\n") + "\n"
			job := "[b]\nfilename=" + filepath.Join(dir, "f") + "\n" + body
			path := filepath.Join(dir, "j.fio")
			if err := os.WriteFile(path, []byte(job), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, "--output-format=json", path).Output()
			if err != nil {
				t.Fatalf("fio: %v\n%s", err, out)
			}
			var fj struct {
				Jobs []map[string]any `json:"jobs"`
			}
			if err := json.Unmarshal(out, &fj); err != nil || len(fj.Jobs) != 1 {
				t.Fatalf("fio's JSON: %v\n%s", err, out)
			}
			res := run(t, "[b]\n"+body, Options{})
			var buf strings.Builder
			if err := report.WriteJSON(&buf, res.Run); err != nil {
				t.Fatal(err)
			}
			var bj struct {
				Jobs []map[string]any `json:"jobs"`
			}
			if err := json.Unmarshal([]byte(buf.String()), &bj); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"iodepth_level", "iodepth_submit", "iodepth_complete"} {
				if f, b := fmt.Sprint(fj.Jobs[0][k]), fmt.Sprint(bj.Jobs[0][k]); f != b {
					t.Errorf("%s: fio %s, blkq %s", k, f, b)
				}
			}
		})
	}
}

// TestFioNullEngineSyncAtDepth1: fio 3.33's null engine at iodepth=1 is
// a synchronous engine (FIO_SYNCIO, engines/null.c): it records no slat
// (JSON slat_ns N=0, an empty slat log) and, keeping its commit hook,
// counts no call in the submit and complete lines (all 0.0%); at
// iodepth=8 it is asynchronous and records a slat for each I/O. blkq's
// null engine does the same as Debian's fio, job for job.
func TestFioNullEngineSyncAtDepth1(t *testing.T) {
	bin := needFio(t)
	type lat struct {
		N int64 `json:"N"`
	}
	type doc struct {
		Jobs []struct {
			Read struct {
				Slat lat `json:"slat_ns"`
				Clat lat `json:"clat_ns"`
			} `json:"read"`
			Submit   map[string]float64 `json:"iodepth_submit"`
			Complete map[string]float64 `json:"iodepth_complete"`
		} `json:"jobs"`
	}
	for _, depth := range []int{1, 8} {
		t.Run(fmt.Sprint("iodepth=", depth), func(t *testing.T) {
			dir := t.TempDir()
			body := fmt.Sprintf("rw=randread\nbs=4k\nsize=4m\nioengine=null\niodepth=%d\n", depth)
			var docs [2]doc
			var slatLog [2]int64
			for i, who := range []string{"fio", "blkq"} {
				job := fmt.Sprintf("[n]\nwrite_lat_log=%s\n%s", filepath.Join(dir, who), body)
				var out []byte
				if who == "fio" {
					path := filepath.Join(dir, "j.fio")
					if err := os.WriteFile(path, []byte(job), 0o644); err != nil {
						t.Fatal(err)
					}
					cmd := exec.Command(bin, "--output-format=json", path)
					cmd.Dir = dir
					o, err := cmd.Output()
					if err != nil {
						t.Fatalf("fio: %v\n%s", err, o)
					}
					out = o
				} else {
					var buf strings.Builder
					if err := report.WriteJSON(&buf, run(t, job, Options{Device: "null"}).Run); err != nil {
						t.Fatal(err)
					}
					out = []byte(buf.String())
				}
				if err := json.Unmarshal(out, &docs[i]); err != nil || len(docs[i].Jobs) != 1 {
					t.Fatalf("%s's JSON: %v", who, err)
				}
				fi, err := os.Stat(filepath.Join(dir, who+"_slat.1.log"))
				if err != nil {
					t.Fatalf("%s: %v", who, err)
				}
				slatLog[i] = fi.Size()
			}
			f, b := docs[0].Jobs[0], docs[1].Jobs[0]
			t.Logf("slat N: fio %d, blkq %d; slat log: fio %d bytes, blkq %d", f.Read.Slat.N, b.Read.Slat.N, slatLog[0], slatLog[1])
			wantSlat := int64(1024)
			if depth == 1 {
				wantSlat = 0
			}
			if f.Read.Slat.N != wantSlat || b.Read.Slat.N != wantSlat || b.Read.Clat.N != f.Read.Clat.N {
				t.Errorf("slat N: fio %d, blkq %d; clat N: fio %d, blkq %d; want slat N %d", f.Read.Slat.N, b.Read.Slat.N, f.Read.Clat.N, b.Read.Clat.N, wantSlat)
			}
			if (slatLog[0] == 0) != (depth == 1) || (slatLog[1] == 0) != (depth == 1) {
				t.Errorf("slat log: fio %d bytes, blkq %d; want empty only at iodepth=1", slatLog[0], slatLog[1])
			}
			if depth == 1 {
				if fmt.Sprint(f.Submit, f.Complete) != fmt.Sprint(b.Submit, b.Complete) {
					t.Errorf("submit, complete: fio %v %v, blkq %v %v", f.Submit, f.Complete, b.Submit, b.Complete)
				}
			}
		})
	}
}
