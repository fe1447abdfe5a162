package engine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/workload/fio"
)

// verifyJob is a 1 MiB random-write job with verify=method on path.
func verifyJob(path, method, extra string) string {
	return fmt.Sprintf("[w]\nfilename=%s\nrw=randwrite\nbs=4k\nsize=1m\ndirect=1\nverify=%s\n%s\n", path, method, extra)
}

var verifyMethodsTested = []struct{ method, extra string }{
	{"crc32c", ""},
	{"md5", ""},
	{"sha256", ""},
	{"pattern", `verify_pattern=0xff%o"abc"-12`},
	{"meta", "verify_interval=1k\nverify_pattern=0x1234"},
	{"crc64", ""}, {"crc32", ""}, {"crc16", ""}, {"crc7", ""}, {"sha1", ""}, {"sha3-256", ""}, {"xxhash", "verify_offset=64"}, {"crc32c-intel", "direct=0"},
}

// fioCombined runs fio on job src (written to dir) with args; its combined
// output and whether it exited 0.
func fioCombined(t *testing.T, fioPath, dir, src string, args ...string) (string, bool) {
	t.Helper()
	job := filepath.Join(dir, "job.fio")
	if err := os.WriteFile(job, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(fioPath, append(args, job)...)
	cmd.Dir = dir // fio writes its verify state files (NAME-local-...-verify.state) where it runs
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// runBlkqFile runs src on file:path; it does not fail on a job's error.
func runBlkqFile(t *testing.T, path, src string) *Result {
	t.Helper()
	res, err := Run(parse(t, src), Options{Device: "file:" + path})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func newDataFile(t *testing.T, n int64) (dir, path string) {
	dir = t.TempDir()
	path = filepath.Join(dir, "data")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, n); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// TestVerifyAgainstFio: what blkq writes with verify= fio 3.33 verifies
// clean with --verify_only, and what fio writes blkq's verify_only reads
// back clean; the verify reads are in blkq's read figures.
func TestVerifyAgainstFio(t *testing.T) {
	fioPath := needOutside(t, "fio")
	for _, c := range verifyMethodsTested {
		t.Run(c.method, func(t *testing.T) {
			dir, path := newDataFile(t, 1<<20)
			src := verifyJob(path, c.method, c.extra)
			res := runBlkqFile(t, path, src)
			js := res.Run.Jobs[0]
			if js.Error != 0 || js.Write.Bytes != 1<<20 || js.Read.Bytes != 1<<20 {
				t.Fatalf("blkq write+verify: err %d (%s), wrote %d, read %d; want 0 and 1 MiB each", js.Error, js.ErrorText, js.Write.Bytes, js.Read.Bytes)
			}
			if out, ok := fioCombined(t, fioPath, dir, src, "--verify_only"); !ok || strings.Contains(out, "verify:") || strings.Contains(out, "verify failed") {
				t.Fatalf("fio --verify_only of blkq's data failed:\n%s", out)
			}
			if out, ok := fioCombined(t, fioPath, dir, src); !ok {
				t.Fatalf("fio write+verify failed:\n%s", out)
			}
			res = runBlkqFile(t, path, src+"verify_only=1\n")
			js = res.Run.Jobs[0]
			if js.Error != 0 || js.Read.Bytes != 1<<20 || js.Write.Bytes != 0 {
				t.Fatalf("blkq verify_only of fio's data: err %d (%s) %q, read %d, wrote %d", js.Error, js.ErrorText, res.IOErrors, js.Read.Bytes, js.Write.Bytes)
			}
		})
	}
}

// TestVerifyCorruptByte: one byte changed in a block fails both fio's
// and blkq's verify, each naming the block's offset; blkq's job reports
// EILSEQ, as fio's err=84.
func TestVerifyCorruptByte(t *testing.T) {
	fioPath := needOutside(t, "fio")
	for _, c := range []struct {
		method, extra string
		at            int64 // byte changed: in a header or in the data
		block         int64
	}{
		{"crc32c", "verify_dump=1", 299008 + 1000, 299008},
		{"md5", "", 4096*7 + 2, 4096 * 7}, // in the header: bad magic
		{"pattern", "verify_pattern=0x55aa", 65536 + 17, 65536},
		{"meta", "", 8192 + 20, 8192},               // the header's offset field
		{"sha256", "direct=0", 12288 + 4000, 12288}, // through the page cache
	} {
		t.Run(c.method, func(t *testing.T) {
			dir, path := newDataFile(t, 1<<20)
			t.Chdir(dir) // fio and blkq write verify_dump's files here
			src := verifyJob(path, c.method, c.extra)
			if res := runBlkqFile(t, path, src); res.Run.Jobs[0].Error != 0 {
				t.Fatalf("write: %s", res.Run.Jobs[0].ErrorText)
			}
			corrupt(t, path, c.at)
			want := fmt.Sprintf("offset %d", c.block)
			out, ok := fioCombined(t, fioPath, dir, src, "--verify_only")
			if ok || !strings.Contains(out, want) {
				t.Errorf("fio --verify_only: exit 0 %v, want a failure naming %q:\n%s", ok, want, out)
			}
			res := runBlkqFile(t, path, src+"verify_only=1\n")
			js := res.Run.Jobs[0]
			if js.Error != int(unix.EILSEQ) || !containsLine(res.IOErrors, want) {
				t.Errorf("blkq verify_only: err %d (%s), lines %q; want err 84 naming %q", js.Error, js.ErrorText, res.IOErrors, want)
			}
			if strings.Contains(c.extra, "verify_dump") {
				// fio's dump files, in the working directory: what was read
				// and what was written.
				var dumps [2][]byte
				for k, kind := range []string{"received", "expected"} {
					name := fmt.Sprintf("data.%d.%s", c.block, kind)
					b, err := os.ReadFile(filepath.Join(dir, name))
					if err != nil || len(b) != 4096 || !containsLine(res.IOErrors, "dumped as "+name) {
						t.Errorf("dump %s: %d bytes, %v; lines %q", name, len(b), err, res.IOErrors)
					}
					dumps[k] = b
				}
				// blkq wrote the block: what it regenerates is what it
				// wrote, one byte away from what was read.
				diff := 0
				for i := range min(len(dumps[0]), len(dumps[1])) {
					if dumps[0][i] != dumps[1][i] {
						diff++
					}
				}
				if diff != 1 {
					t.Errorf("received and expected differ in %d bytes, want 1", diff)
				}
			}
		})
	}
}

func corrupt(t *testing.T, path string, at int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, at); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x5a
	if _, err := f.WriteAt(b, at); err != nil {
		t.Fatal(err)
	}
}

func containsLine(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// TestVerifyReadsCount: fio's t0005 (verify_backlog=32 on a sequential
// write job) reads back exactly what it wrote, and a failing block stops
// the job; a simulated device issues the same reads with no data.
func TestVerifyReadsCount(t *testing.T) {
	src := "[write]\nbs=4k\nioengine=sync\nsize=8m\ndirect=1\nverify=md5\nverify_backlog=32\nrw=write\n"
	for _, dev := range []string{"sim:hdd", "null", "file"} {
		t.Run(dev, func(t *testing.T) {
			opt := Options{Device: dev}
			if dev == "file" {
				_, path := newDataFile(t, 8<<20)
				opt.Device = "file:" + path
			}
			res := run(t, src, opt)
			js := res.Run.Jobs[0]
			if js.Read.Bytes != 8<<20 || js.Write.Bytes != 8<<20 {
				t.Fatalf("read %d, wrote %d: want 8 MiB each", js.Read.Bytes, js.Write.Bytes)
			}
		})
	}
}

// TestVerifyBacklogInterleaves: with verify_backlog the reads come between
// the writes, not after them all (fio's t0008 counts on it with rw=rw).
func TestVerifyBacklogInterleaves(t *testing.T) {
	src := "[w]\nbs=4k\nsize=4m\nverify=crc32c\nrw=write\nverify_backlog=16\nverify_backlog_batch=8\ndirect=1\n"
	_, path := newDataFile(t, 4<<20)
	var order []byte
	var mu sync.Mutex
	rec := blkq.TracerFunc(func(e *blkq.Event) {
		if e.Action == 'Q' {
			mu.Lock()
			if e.Op == blkq.OpRead || e.Op == blkq.OpWrite {
				order = append(order, "RW"[e.Op])
			}
			mu.Unlock()
		}
	})
	res, err := Run(parse(t, src), Options{Device: "file:" + path, Tracers: []blkq.Tracer{rec}})
	if err != nil {
		t.Fatal(err)
	}
	js := res.Run.Jobs[0]
	if js.Read.Bytes != 4<<20 || js.Error != 0 {
		t.Fatalf("read %d err %d", js.Read.Bytes, js.Error)
	}
	// A read must appear before the last quarter of the writes.
	mu.Lock()
	defer mu.Unlock()
	writes, firstRead := 0, -1
	for _, op := range order {
		if op == 'R' && firstRead < 0 {
			firstRead = writes
		}
		if op == 'W' {
			writes++
		}
	}
	if firstRead < 0 || firstRead > writes/4 {
		t.Fatalf("first verify read after %d of %d writes", firstRead, writes)
	}
}

// TestVerifyCorpus: the corpus's verify examples (capped to 1 MiB a job,
// and a minute of virtual time, which the verify phase counts in as fio
// counts it in runtime) run their verify phase
// and it shows in their read figures: every block written is read back
// (a block written twice in one pass once, as fio's history keeps the
// last write of an offset), and nothing else is read.
func TestVerifyCorpus(t *testing.T) {
	for _, name := range []string{"basic-verify.fio", "cross-stripe-verify.fio"} {
		t.Run(name, func(t *testing.T) {
			jf, err := fio.ParseFile(filepath.Join(corpusDir, name))
			if err != nil {
				t.Fatal(err)
			}
			type blk struct {
				sector uint64
				n      uint32
			}
			written, read := map[blk]bool{}, map[blk]bool{}
			rec := blkq.TracerFunc(func(e *blkq.Event) {
				if e.Action != 'Q' {
					return
				}
				switch e.Op {
				case blkq.OpWrite:
					written[blk{e.Sector, e.Sectors}] = true
				case blkq.OpRead:
					read[blk{e.Sector, e.Sectors}] = true
				}
			})
			res, err := Run(jf, Options{SizeCap: 1 << 20, RuntimeCap: time.Minute, Tracers: []blkq.Tracer{rec}})
			if err != nil {
				t.Fatal(err)
			}
			var r, w uint64
			for _, js := range res.Run.Jobs {
				if js.Error != 0 {
					t.Fatalf("%s: %s", js.Name, js.ErrorText)
				}
				r, w = r+js.Read.Bytes, w+js.Write.Bytes
			}
			if w == 0 || r == 0 || r > w {
				t.Fatalf("read %d, wrote %d: the verify phase must read back what was written", r, w)
			}
			if len(read) != len(written) {
				t.Fatalf("%d distinct blocks read back, %d written", len(read), len(written))
			}
			for b := range read {
				if !written[b] {
					t.Fatalf("read %+v, never written", b)
				}
			}
			t.Logf("read %d bytes, wrote %d, %d distinct blocks", r, w, len(written))
		})
	}
}

// TestVerifyMixedBacklog: a mixed sequential job with verify_backlog=1
// reads back each block it writes, so its reads are the whole size (fio's
// t0008 checks read io_kbytes == size), on a simulated disk and a file.
func TestVerifyMixedBacklog(t *testing.T) {
	src := "[m]\nbs=4k\nverify=crc32c\nrw=readwrite\ndirect=1\nsize=8m\nverify_backlog=1\n"
	for _, dev := range []string{"sim:ssd", "file"} {
		t.Run(dev, func(t *testing.T) {
			opt := Options{Device: dev}
			if dev == "file" {
				_, path := newDataFile(t, 8<<20)
				opt.Device = "file:" + path
			}
			js := run(t, src, opt).Run.Jobs[0]
			if js.Read.Bytes != 8<<20 || js.Write.Bytes == 0 || js.Write.Bytes >= 8<<20 {
				t.Fatalf("read %d, wrote %d: want 8 MiB read, some written", js.Read.Bytes, js.Write.Bytes)
			}
		})
	}
}

// TestVerifyReadJob: a read-only job with verify= checks each block it
// reads, here ones a job of an earlier run wrote (as in fio's t0029),
// loops included; a block changed in between fails it with EILSEQ.
func TestVerifyReadJob(t *testing.T) {
	_, path := newDataFile(t, 64<<10)
	w := "[global]\nsize=64k\nverify=md5\ndirect=1\n[w]\nrw=write\ndo_verify=0\n"
	r := "[global]\nsize=64k\nverify=md5\ndirect=1\n[r]\nrw=read\nloops=2\n"
	if js := runBlkqFile(t, path, w).Run.Jobs[0]; js.Error != 0 || js.Read.Bytes != 0 {
		t.Fatalf("write: err %d, read %d (do_verify=0 reads nothing)", js.Error, js.Read.Bytes)
	}
	if js := runBlkqFile(t, path, r).Run.Jobs[0]; js.Error != 0 || js.Read.Bytes != 128<<10 {
		t.Fatalf("read: err %d (%s), read %d", js.Error, js.ErrorText, js.Read.Bytes)
	}
	corrupt(t, path, 5*4096+100)
	res := runBlkqFile(t, path, r)
	if js := res.Run.Jobs[0]; js.Error != int(unix.EILSEQ) || !containsLine(res.IOErrors, "md5: verify failed at file "+path+" offset 20480") {
		t.Fatalf("corrupt read: err %d, lines %q", js.Error, res.IOErrors)
	}
}

// TestVerifyAfterQueuedWrites: a job reads its blocks back once its I/O
// loop is over, which, as fio's, ends by reaping every write in flight:
// with fewer writes (8) than its iodepth (16) its queue never fills, so
// nothing but the end of the loop reaps them, and the verify phase still
// reads back everything written (fio's t0002 at iodepth=128 hung here).
func TestVerifyAfterQueuedWrites(t *testing.T) {
	for _, rw := range []string{"write", "rw"} {
		t.Run(rw, func(t *testing.T) {
			js := run(t, "[m]\nrw="+rw+"\nbs=4k\nioengine=libaio\ndirect=1\niodepth=16\nsize=32k\nverify=md5\n", Options{Device: "sim:ssd"}).Run.Jobs[0]
			if js.Write.IOs == 0 || js.Read.Bytes < js.Write.Bytes {
				t.Errorf("wrote %d bytes, read %d: want all written read back", js.Write.Bytes, js.Read.Bytes)
			}
		})
	}
}

// TestVerifyRuntimesByPhase: a write job that verifies reports each
// direction's runtime over its own phase, as fio counts them (backend.c):
// writes from the start until the last write is reaped, reads from there
// to the end (the verify phase), and the job's runtime is both. Exact on
// the simulated SSD, where the trace's times are the job's: with a
// backlog too (iodepth=1: the backlog's reads are in the write phase,
// whose time a randwrite job counts for writes only, and the last batch
// is read back by the verify phase, as fio's loop ends once the writes
// are issued). A mixed job counts its I/O phase for both directions.
func TestVerifyRuntimesByPhase(t *testing.T) {
	for _, extra := range []string{"iodepth=4", "iodepth=1\nverify_backlog=16", "iodepth=8\nverify_backlog=64"} {
		t.Run(extra, func(t *testing.T) {
			var first, lastWrite, last blkq.Time
			seen := false
			tr := blkq.TracerFunc(func(e *blkq.Event) {
				switch {
				case e.Action == 'Q' && !seen:
					first, seen = e.Time, true
				case e.Action == 'C':
					last = e.Time
					if e.Op == blkq.OpWrite {
						lastWrite = e.Time
					}
				}
			})
			job := "[w]\nrw=randwrite\nbs=4k\nsize=1m\nioengine=libaio\ndirect=1\nverify=crc32c\n" + extra + "\n"
			js := run(t, job, Options{Device: "sim:ssd", Tracers: []blkq.Tracer{tr}}).Run.Jobs[0]
			if js.Read.IOs != 256 || js.Write.IOs != 256 {
				t.Fatalf("%d reads, %d writes; want 256 of each", js.Read.IOs, js.Write.IOs)
			}
			w, r := int64(lastWrite-first), int64(last-lastWrite)
			if js.Write.Runtime != w || js.Read.Runtime != r || js.Runtime != w+r {
				t.Errorf("runtimes: write %d ns, read %d, job %d; want %d (to the last write), %d (the verify), %d",
					js.Write.Runtime, js.Read.Runtime, js.Runtime, w, r, w+r)
			}
			t.Logf("write %v, read %v", time.Duration(w), time.Duration(r))
		})
	}
	js := run(t, "[m]\nrw=randrw\nbs=4k\nsize=1m\nioengine=libaio\ndirect=1\niodepth=4\nverify=crc32c\n", Options{Device: "sim:ssd"}).Run.Jobs[0]
	if js.Read.Runtime != js.Runtime || js.Write.Runtime <= 0 || js.Write.Runtime >= js.Runtime {
		t.Errorf("randrw: read %d ns, write %d, job %d; want read = job > write > 0", js.Read.Runtime, js.Write.Runtime, js.Runtime)
	}
}
