package engine

import (
	"bufio"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq"
)

// Side by side with Debian's fio 3.33 for the options that choose which
// I/O a job issues beyond rw, bs and size: percentage_random,
// rw_sequencer, bs_is_seq_rand, bs_unaligned, file_service_type and
// openfiles. Both sides write fio's iolog (write_iolog, v3), so they are
// compared record by record, file names included: exactly where the
// choice is deterministic in fio, by its statistics where fio draws.

// logIO is one record of an iolog: the file, the action (read, write,
// trim, sync, datasync; add, open and close are left out) and, for I/O,
// the offset in the file and the length.
type logIO struct {
	file, op string
	off, n   int64
}

// readIolog reads a v3 iolog's I/O and syncs.
func readIologV3(t *testing.T, path string) []logIO {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []logIO
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 3 {
			continue
		}
		switch fs[2] {
		case "read", "write", "trim", "sync", "datasync":
		default:
			continue
		}
		r := logIO{file: fs[1], op: fs[2]}
		if len(fs) == 5 {
			r.off, _ = strconv.ParseInt(fs[3], 10, 64)
			r.n, _ = strconv.ParseInt(fs[4], 10, 64)
		}
		out = append(out, r)
	}
	return out
}

// fioLog runs body as job j through fio in a directory of its own and
// returns its iolog.
func fioLog(t *testing.T, engine, body string) []logIO {
	t.Helper()
	bin := needFio(t)
	dir := t.TempDir()
	job := fmt.Sprintf("[j]\nioengine=%s\nwrite_iolog=io.log\n%s\n", engine, body)
	if err := os.WriteFile(filepath.Join(dir, "j.fio"), []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--output-format=terse", "j.fio")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fio %s: %v\n%s", job, err, out)
	}
	return readIologV3(t, filepath.Join(dir, "io.log"))
}

// blkqLog runs body as job j through blkq on the null device and returns
// its iolog.
func blkqLog(t *testing.T, engine, body string, seed uint64) []logIO {
	t.Helper()
	path := filepath.Join(t.TempDir(), "b.log")
	run(t, fmt.Sprintf("[j]\nioengine=%s\nwrite_iolog=%s\n%s\n", engine, path, body), Options{Device: "null", Seed: seed})
	return readIologV3(t, path)
}

// onlyIO keeps the reads, writes and trims.
func onlyIO(recs []logIO) []logIO {
	return slices.DeleteFunc(slices.Clone(recs), func(r logIO) bool { return r.op == "sync" || r.op == "datasync" })
}

// sameIO compares two logs' I/O record by record.
func sameIO(a, b []logIO) bool {
	return slices.Equal(onlyIO(a), onlyIO(b))
}

// sketchLog shows a log's first and last records.
func sketchLog(recs []logIO) string {
	if len(recs) <= 8 {
		return fmt.Sprint(recs)
	}
	return fmt.Sprintf("%v ... %v", recs[:4], recs[len(recs)-4:])
}

// seqShare is the share of each direction's I/Os (after its first) that
// start where the direction's last I/O in the same file ended.
func seqShare(recs []logIO) map[string]float64 {
	type key struct{ file, op string }
	end := map[key]int64{}
	seq, n := map[string]int{}, map[string]int{}
	for _, r := range onlyIO(recs) {
		k := key{r.file, r.op}
		if e, ok := end[k]; ok {
			n[r.op]++
			if r.off == e {
				seq[r.op]++
			}
		}
		end[k] = r.off + r.n
	}
	out := map[string]float64{}
	for op, c := range n {
		out[op] = float64(seq[op]) / float64(c)
	}
	return out
}

// TestFioPercentageRandom: of a random job's I/Os, percentage_random
// percent land at random and the rest follow the direction's last one,
// in fio and blkq alike (within 2 points; 16384 I/Os), per direction
// with the "r,w" form; percentage_random=0 is the sequential job itself,
// offset for offset; both issue size/bs I/Os.
func TestFioPercentageRandom(t *testing.T) {
	for _, tc := range []struct {
		body string
		seq  map[string]float64 // the share that follows, as the option asks
	}{
		{"rw=randread\npercentage_random=30", map[string]float64{"read": 0.70}},
		{"rw=randread\npercentage_random=90", map[string]float64{"read": 0.10}},
		{"rw=randrw\npercentage_random=20,80", map[string]float64{"read": 0.80, "write": 0.20}},
	} {
		t.Run(tc.body, func(t *testing.T) {
			body := "size=64m\nbs=4k\n" + tc.body
			f, b := fioLog(t, "null", body), blkqLog(t, "null", body, 3)
			if len(onlyIO(f)) != 16384 || len(onlyIO(b)) != 16384 {
				t.Fatalf("fio did %d I/Os, blkq %d; want 16384", len(onlyIO(f)), len(onlyIO(b)))
			}
			fs, bs := seqShare(f), seqShare(b)
			t.Logf("share following the last I/O: fio %v, blkq %v", fs, bs)
			for op, want := range tc.seq {
				if math.Abs(fs[op]-want) > 0.02 || math.Abs(bs[op]-fs[op]) > 0.02 {
					t.Errorf("%s: %.3f follow in fio, %.3f in blkq; want %.2f, within 2 points", op, fs[op], bs[op], want)
				}
			}
		})
	}
	body := "size=1m\nbs=4k\nrw=randread\npercentage_random=0"
	seq := fioLog(t, "null", "size=1m\nbs=4k\nrw=read")
	if f, b := fioLog(t, "null", body), blkqLog(t, "null", body, 3); !sameIO(f, seq) || !sameIO(b, seq) {
		t.Errorf("percentage_random=0: fio %s, blkq %s; want rw=read's %s", sketchLog(f), sketchLog(b), sketchLog(seq))
	}
}

// TestFioRWSequencer: rw=randread:4 starts at random and follows with
// three I/Os that continue from it (rw_sequencer=sequential, fio's
// default) or repeat its offset (identical); the structure is exact in
// both, whatever the random offsets.
func TestFioRWSequencer(t *testing.T) {
	for _, seqr := range []string{"sequential", "identical"} {
		body := "rw=randread:4\nsize=4m\nbs=4k\nrw_sequencer=" + seqr
		for name, recs := range map[string][]logIO{"fio": fioLog(t, "null", body), "blkq": blkqLog(t, "null", body, 5)} {
			ios := onlyIO(recs)
			if len(ios) != 1024 {
				t.Fatalf("%s %s: %d I/Os, want 1024", name, seqr, len(ios))
			}
			for i := 1; i < len(ios); i++ {
				want := ios[i-1].off + ios[i-1].n // sequential
				if seqr == "identical" {
					want = ios[i-1].off
				}
				if follows := ios[i].off == want; i%4 != 0 && !follows {
					t.Fatalf("%s %s: I/O %d at %d, want %d after %v", name, seqr, i, ios[i].off, want, ios[i-4:i])
				}
			}
			if ios[0].off == 0 && ios[4].off == 4*4096 {
				t.Errorf("%s %s: the first I/O is at 0, as if the first three were not preceded by a random one", name, seqr)
			}
		}
	}
}

// TestFioBlockSizeOptions: bs_is_seq_rand sizes sequential I/Os by the
// read entry and random ones by the write entry, in any direction (a
// random read of bs=16k,4k is 4k, at the read's 16k alignment), and
// bs_unaligned keeps bssplit's 6k entry whole where fio otherwise rounds
// it down to a multiple of the smallest size (4k): the same sizes in fio
// and blkq, and the same bytes.
func TestFioBlockSizeOptions(t *testing.T) {
	for _, tc := range []struct {
		body  string
		only  int64 // every I/O this size; 0: 4k and 6k
		align int64 // every offset a multiple of this
	}{
		{"rw=randread\nbs=16k,4k\nbs_is_seq_rand=1\nnorandommap", 4096, 16384},
		{"rw=randwrite\nbs=4k,16k\nbs_is_seq_rand=1\npercentage_random=0", 4096, 4096},
		{"rw=write\nbs=4k,16k\nbs_is_seq_rand=1", 4096, 4096},
		{"rw=write\nbssplit=4k/50:6k/50", 4096, 4096},
		{"rw=write\nbssplit=4k/50:6k/50\nbs_unaligned", 0, 2048},
	} {
		body := "size=4m\n" + tc.body
		sizes := func(recs []logIO) map[int64]int {
			m := map[int64]int{}
			for _, r := range onlyIO(recs) {
				m[r.n]++
				if r.off%tc.align != 0 {
					t.Errorf("%q: an I/O at %d, not a multiple of %d", tc.body, r.off, tc.align)
				}
			}
			return m
		}
		f, b := sizes(fioLog(t, "null", body)), sizes(blkqLog(t, "null", body, 1))
		t.Logf("%q: sizes fio %v, blkq %v", tc.body, f, b)
		for name, m := range map[string]map[int64]int{"fio": f, "blkq": b} {
			var bytes int64
			for n, c := range m {
				bytes += n * int64(c)
			}
			switch {
			case bytes != 4<<20:
				t.Errorf("%s %q: %d bytes, want 4 MiB", name, tc.body, bytes)
			case tc.only != 0 && len(m) != 1 || tc.only != 0 && m[tc.only] == 0:
				t.Errorf("%s %q: sizes %v, want all %d", name, tc.body, m, tc.only)
			case tc.only == 0 && (len(m) != 2 || m[4096] < 200 || m[6144] < 200):
				t.Errorf("%s %q: sizes %v, want 4k and 6k, about evenly", name, tc.body, m)
			}
		}
	}
}

// TestFioRandomAlignment: random offsets are multiples of the direction's
// alignment: ba=16k under bs=4k (fio then turns the random map off, so
// blocks repeat: 1024 I/Os on 256 offsets), and under bs=4k,16k a
// write's own 16k (fio's map counts 4k blocks while the writes draw 16k
// ones, so its pass ends early: at most 256 writes, none overlapping).
func TestFioRandomAlignment(t *testing.T) {
	for _, tc := range []struct {
		body        string
		ios         int  // exactly; 0: at most 256
		overlapping bool // blocks may repeat
	}{
		{"rw=randread\nbs=4k\nba=16k", 1024, true},
		{"rw=randwrite\nbs=4k,16k", 0, false},
	} {
		body := "size=4m\n" + tc.body
		for name, recs := range map[string][]logIO{"fio": fioLog(t, "null", body), "blkq": blkqLog(t, "null", body, 2)} {
			ios := onlyIO(recs)
			if tc.ios != 0 && len(ios) != tc.ios || tc.ios == 0 && (len(ios) > 256 || len(ios) < 16) {
				t.Errorf("%s %q: %d I/Os", name, tc.body, len(ios))
			}
			seen := map[int64]bool{}
			for _, r := range ios {
				if r.off%16384 != 0 {
					t.Fatalf("%s %q: an I/O at %d, not 16k-aligned", name, tc.body, r.off)
				}
				if seen[r.off] && !tc.overlapping {
					t.Fatalf("%s %q: offset %d done twice", name, tc.body, r.off)
				}
				seen[r.off] = true
			}
			t.Logf("%s %q: %d I/Os on %d offsets", name, tc.body, len(ios), len(seen))
		}
	}
}

// TestFioFileServiceOrder: with four files of 256 blocks, the order in
// which fio serves them is the order blkq serves them, I/O for I/O:
// round robin (fio's default), round robin three at a time, all of one
// file before the next (sequential), and two files open at once
// (openfiles=2: the other two wait until the first two are done).
func TestFioFileServiceOrder(t *testing.T) {
	for _, opt := range []string{"", "file_service_type=roundrobin:3", "file_service_type=sequential", "openfiles=2", "file_service_type=sequential\nopenfiles=3"} {
		body := "rw=read\nnrfiles=4\nsize=4m\nbs=4k\n" + opt
		f, b := fioLog(t, "null", body), blkqLog(t, "null", body, 1)
		if len(onlyIO(f)) != 1024 || !sameIO(f, b) {
			t.Errorf("%q: fio did %d I/Os %s, blkq %d %s", opt, len(onlyIO(f)), sketchLog(f), len(onlyIO(b)), sketchLog(b))
		}
	}
	seq := onlyIO(blkqLog(t, "null", "rw=read\nnrfiles=4\nsize=4m\nbs=4k\nfile_service_type=sequential", 1))
	for i, r := range seq {
		if want := fmt.Sprintf("j.0.%d", i/256); r.file != want || r.off != int64(i%256)*4096 {
			t.Fatalf("sequential: I/O %d is %v, want %s at %d", i, r, want, (i%256)*4096)
		}
	}
}

// fileShares returns each file's share of the I/Os, largest first, and
// the share of I/Os that go to another file than the one before.
func fileShares(recs []logIO) (shares []float64, switches float64) {
	ios := onlyIO(recs)
	count := map[string]int{}
	for i, r := range ios {
		count[r.file]++
		if i > 0 && r.file != ios[i-1].file {
			switches++
		}
	}
	for _, c := range count {
		shares = append(shares, float64(c)/float64(len(ios)))
	}
	slices.SortFunc(shares, func(a, b float64) int { return -cmpFloat(a, b) })
	return shares, switches / float64(len(ios)-1)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestFioFileServiceRandom: file_service_type's random kinds pick files
// as fio's do. random: each file still read once in order (256 I/Os
// each), three picks in four moving to another file while all four are
// left, and with :8 the runs on a file are whole eights; zipf, pareto
// and normal (16384 I/Os over four files that start again when done):
// each file's share, largest first, within 3 points of fio's, and the
// same for the switches.
func TestFioFileServiceRandom(t *testing.T) {
	for _, tc := range []struct {
		kind string
		io   string
	}{
		{"random", ""},
		{"random:8", ""},
		{"zipf:1.2", "io_size=64m"},
		{"pareto:0.3", "io_size=64m"},
		{"normal", "io_size=64m"},
	} {
		body := fmt.Sprintf("rw=read\nnrfiles=4\nsize=4m\nbs=4k\nfile_service_type=%s\n%s", tc.kind, tc.io)
		f, b := fioLog(t, "null", body), blkqLog(t, "null", body, 4)
		fs, fsw := fileShares(f)
		bs, bsw := fileShares(b)
		t.Logf("%s: shares fio %.3f switches %.3f, blkq %.3f switches %.3f", tc.kind, fs, fsw, bs, bsw)
		if len(fs) != len(bs) || len(onlyIO(f)) != len(onlyIO(b)) {
			t.Fatalf("%s: fio %d I/Os over %d files, blkq %d over %d", tc.kind, len(onlyIO(f)), len(fs), len(onlyIO(b)), len(bs))
		}
		for i := range fs {
			if math.Abs(fs[i]-bs[i]) > 0.03 {
				t.Errorf("%s: file share %d: fio %.3f, blkq %.3f: more than 3 points apart", tc.kind, i, fs[i], bs[i])
			}
		}
		if math.Abs(fsw-bsw) > 0.03 {
			t.Errorf("%s: switches fio %.3f, blkq %.3f: more than 3 points apart", tc.kind, fsw, bsw)
		}
		if tc.io != "" {
			continue
		}
		for name, recs := range map[string][]logIO{"fio": f, "blkq": b} {
			next := map[string]int64{}
			run := 0
			ios := onlyIO(recs)
			for i, r := range ios {
				if r.off != next[r.file] {
					t.Fatalf("%s %s: %v does not follow %s's last I/O", name, tc.kind, r, r.file)
				}
				next[r.file] = r.off + r.n
				run++
				if tc.kind == "random:8" && (i+1 == len(ios) || ios[i+1].file != r.file) {
					if run%8 != 0 && next[r.file] != 1<<20 {
						t.Fatalf("%s %s: a run of %d I/Os on %s", name, tc.kind, run, r.file)
					}
					run = 0
				}
			}
		}
	}
}

// TestFioFilenameFormat: filename_format names the files as fio does,
// keywords in any case, for each clone and file ($jobname, $jobnum,
// $filenum; $clientuid is empty outside fio's client/server mode), and
// clones whose names coincide share the file: the same names, and the
// same I/O on each, in fio's iologs and blkq's.
func TestFioFilenameFormat(t *testing.T) {
	for _, tc := range []struct {
		body  string
		names []string
	}{
		{"numjobs=2\nfilename_format=myfile.$jobnum.$filenum", []string{"myfile.0.0", "myfile.1.0"}},
		{"nrfiles=2\nfilename_format=$JOBNAME-$FileNum.dat", []string{"j-0.dat", "j-1.dat"}},
		{"numjobs=2\nfilename_format=shared.$filenum", []string{"shared.0"}},
		{"filename_format=x$clientuid.$filenum.$jobname$jobname", []string{"x.0.jj"}},
	} {
		body := "rw=read\nsize=16k\nbs=4k\n" + tc.body
		f, b := fioLog(t, "null", body), blkqLog(t, "null", body, 1)
		count := func(recs []logIO) map[logIO]int {
			m := map[logIO]int{}
			for _, r := range onlyIO(recs) {
				m[r]++
			}
			return m
		}
		names := func(recs []logIO) []string {
			var ns []string
			for _, r := range recs {
				if !slices.Contains(ns, r.file) {
					ns = append(ns, r.file)
				}
			}
			slices.Sort(ns)
			return ns
		}
		if fn, bn := names(f), names(b); !slices.Equal(fn, tc.names) || !slices.Equal(bn, tc.names) {
			t.Errorf("%q: files fio %v, blkq %v; want %v", tc.body, fn, bn, tc.names)
		}
		if fc, bc := count(f), count(b); !maps.Equal(fc, bc) {
			t.Errorf("%q: I/O fio %v, blkq %v", tc.body, fc, bc)
		}
	}
}

// syncsOf is the fsyncs of an iolog, in order: file and action.
func syncsOf(recs []logIO) []string {
	var out []string
	for _, r := range recs {
		if r.op == "sync" || r.op == "datasync" {
			out = append(out, r.file+" "+r.op)
		}
	}
	return out
}

// TestFioEndSyncs: end_fsync and fsync_on_close fsync each file at the
// end of each pass, as fio's iolog shows (per loop, per pass of an
// io_size beyond the file, per file), and not right after an fsync=N;
// fsync_on_close also fsyncs a file as it closes (a new pass closes the
// open files; a file done within a pass closes): those flushes reach the
// device outside the iolog, as fio's own fsync(2) calls do (counted with
// strace on Debian's fio 3.33: 3 calls for loops=2, 3 for io_size=128k
// over 64k, 3 for two files served one after the other).
func TestFioEndSyncs(t *testing.T) {
	for _, tc := range []struct {
		opt   string
		close int // flushes beyond the iolog's fsyncs
	}{
		{"end_fsync=1", 0},
		{"fsync_on_close=1", 0},
		{"end_fsync=1\nloops=2", 0},
		{"fsync_on_close=1\nloops=2", 1},
		{"fsync_on_close=1\nfilesize=64k\nio_size=128k", 1},
		{"end_fsync=1\nnrfiles=2\nsize=128k", 0},
		{"fsync_on_close=1\nrw=randwrite\nnrfiles=2\nsize=128k", 0},
		{"fsync_on_close=1\nnrfiles=2\nsize=128k\nfile_service_type=sequential", 1},
		{"fsync_on_close=1\nfsync=4", 0},
		{"fsync_on_close=1\nrw=read", 0},
	} {
		body := "rw=write\nbs=4k\nsize=64k\n" + tc.opt
		f := fioLog(t, "psync", body)
		var flushes int
		tr := blkq.TracerFunc(func(e *blkq.Event) {
			if e.Action == 'Q' && e.Op == blkq.OpFlush {
				flushes++
			}
		})
		path := filepath.Join(t.TempDir(), "b.log")
		// sim:ssd has a write cache: its flushes reach it (on the null
		// device, which has none, an empty flush ends at once, untraced).
		run(t, fmt.Sprintf("[j]\nioengine=psync\nwrite_iolog=%s\n%s\n", path, body), Options{Device: "sim:ssd", Tracers: []blkq.Tracer{tr}})
		b := readIologV3(t, path)
		fs, bs := syncsOf(f), syncsOf(b)
		if !slices.Equal(fs, bs) || flushes != len(bs)+tc.close {
			t.Errorf("%q: fio's iolog fsyncs %v, blkq's %v and %d flushes (want %d beyond them)", tc.opt, fs, bs, flushes, tc.close)
		}
	}
}

// TestFioZoneRange: zonemode=strided reads zonesize bytes of each zone,
// zones starting zonerange apart (plus zoneskip), going round within a
// zone larger than its range, and back at the region's start when a zone
// would start past the file's end, until the job's size is done: the
// same offsets as fio's, I/O for I/O.
func TestFioZoneRange(t *testing.T) {
	for _, opt := range []string{
		"zonesize=64k\nzonerange=256k",
		"zonesize=64k\nzonerange=256k\nzoneskip=64k",
		"zonesize=128k\nzonerange=64k",
		"zonesize=64k",
		"zonesize=64k\nzoneskip=64k",
		"zonesize=64k\nzoneskip=192k\noffset=128k",
	} {
		body := "rw=read\nbs=4k\nsize=1m\nzonemode=strided\n" + opt
		f, b := fioLog(t, "null", body), blkqLog(t, "null", body, 1)
		if len(onlyIO(f)) != 256 || !sameIO(f, b) {
			t.Errorf("%q: fio did %d I/Os %s, blkq %d %s", opt, len(onlyIO(f)), sketchLog(f), len(onlyIO(b)), sketchLog(b))
		}
	}
}
