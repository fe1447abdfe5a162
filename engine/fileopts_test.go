package engine

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
)

// fioJSON runs job text through fio in a directory of its own and
// returns its JSON report's jobs (name, error, I/Os per direction, the
// latency sample counts) and whether it reported disks.
type fioJobJSON struct {
	Name  string `json:"jobname"`
	Error int    `json:"error"`
	Read  struct {
		IOs  int64 `json:"total_ios"`
		Slat struct {
			N int64 `json:"N"`
		} `json:"slat_ns"`
		Clat struct {
			N int64 `json:"N"`
		} `json:"clat_ns"`
		Lat struct {
			N int64 `json:"N"`
		} `json:"lat_ns"`
	} `json:"read"`
	Write struct {
		IOs int64 `json:"total_ios"`
	} `json:"write"`
}

func fioJSON(t *testing.T, job string) ([]fioJobJSON, bool) {
	t.Helper()
	bin := needFio(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "j.fio"), []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--output-format=json", "j.fio")
	cmd.Dir = dir
	out, _ := cmd.Output() // a job's error is a non-zero exit; the JSON says which
	i := strings.IndexByte(string(out), '{')
	if i < 0 {
		t.Fatalf("fio %s: no JSON in %q", job, out)
	}
	var doc struct {
		Jobs  []fioJobJSON    `json:"jobs"`
		Disks json.RawMessage `json:"disk_util"`
	}
	if err := json.Unmarshal(out[i:], &doc); err != nil {
		t.Fatalf("fio's JSON: %v", err)
	}
	return doc.Jobs, len(doc.Disks) > 2
}

// runJobs runs src through blkq and returns its report (jobs may fail).
func runJobs(t *testing.T, src string, opt Options) *Result {
	t.Helper()
	res, err := Run(parse(t, src), opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestFioCreateOnly: create_only lays the files out and issues nothing,
// in fio's report and in blkq's.
func TestFioCreateOnly(t *testing.T) {
	const job = "[j]\nioengine=psync\nrw=write\nbs=4k\nsize=64k\ncreate_only=1\n"
	f, _ := fioJSON(t, job)
	res := runJobs(t, job, Options{Device: "null"})
	if len(f) != 1 || f[0].Write.IOs != 0 || res.Run.Jobs[0].Write.IOs != 0 || res.Disk.IOs[blkq.OpWrite] != 0 {
		t.Errorf("fio %+v, blkq %d writes (%d on the device); want none", f, res.Run.Jobs[0].Write.IOs, res.Disk.IOs[blkq.OpWrite])
	}
}

// TestFioUnlinkEachLoop: a reading job whose files unlink_each_loop
// deletes after its first loop fails to open them (ENOENT) having done
// that loop, in fio and blkq; a writing one does every loop.
func TestFioUnlinkEachLoop(t *testing.T) {
	for _, tc := range []struct {
		rw       string
		err, ios int64
	}{
		{"read", 2, 16},
		{"write", 0, 32},
	} {
		job := "[j]\nioengine=psync\nrw=" + tc.rw + "\nbs=4k\nsize=64k\nloops=2\nunlink_each_loop=1\n"
		f, _ := fioJSON(t, job)
		b := runJobs(t, job, Options{Device: "null"}).Run.Jobs[0]
		fios, bios := f[0].Read.IOs+f[0].Write.IOs, b.Read.IOs+b.Write.IOs
		if int64(f[0].Error) != tc.err || int64(b.Error) != tc.err || fios != tc.ios || int64(bios) != tc.ios {
			t.Errorf("rw=%s: fio err=%d after %d I/Os, blkq err=%d (%s) after %d; want err=%d after %d", tc.rw, f[0].Error, fios, b.Error, b.ErrorText, bios, tc.err, tc.ios)
		}
		if tc.err != 0 && !strings.Contains(b.ErrorText, "open(j.0.0)") {
			t.Errorf("rw=%s: error %q, want fio's func=open(j.0.0)", tc.rw, b.ErrorText)
		}
	}
}

// TestUnlinkFreesTheFile: on a file: device, unlink frees the job's file
// when it ends: its blocks read as zeros (a hole), and the run's data
// check no longer counts them; the job without unlink leaves its data.
func TestUnlinkFreesTheFile(t *testing.T) {
	for _, unlink := range []string{"0", "1"} {
		path := filepath.Join(t.TempDir(), "dev")
		res := run(t, "[w]\nioengine=psync\ndirect=1\nrw=write\nbs=4k\nsize=256k\nunlink="+unlink+"\n", Options{Device: "file:" + path})
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		zero := strings.Count(string(data), "\x00") == len(data)
		if unlink == "1" && (!zero || res.Verified != 0) || unlink == "0" && (zero || res.Verified == 0) {
			t.Errorf("unlink=%s: file all zeros %v, %d sectors checked", unlink, zero, res.Verified)
		}
	}
}

// TestPreRead: pre_read reads a buffered job's file into the page cache
// before the job starts (its reads then all hit the cache: the device
// reads the file once, the pre-read's reads), counted in none of the
// job's figures; a direct job's pre-read reads the file once more on the
// device.
func TestPreRead(t *testing.T) {
	count := func(src string) (jobReads, devReadBytes uint64) {
		res := run(t, src, Options{Device: "sim:ssd"})
		return res.Run.Jobs[0].Read.IOs, res.Disk.Sectors[blkq.OpRead] << blkq.SectorShift
	}
	const body = "[r]\nioengine=psync\nrw=randread\nbs=4k\nsize=1m\n"
	if ios, dev := count(body + "pre_read=1\n"); ios != 256 || dev != 1<<20 {
		t.Errorf("buffered pre_read: %d job reads, %d bytes read from the device; want 256 and the file once (1 MiB)", ios, dev)
	}
	if ios, dev := count(body + "pre_read=1\ndirect=1\n"); ios != 256 || dev != 2<<20 {
		t.Errorf("direct pre_read: %d job reads, %d bytes from the device; want 256 and the file twice", ios, dev)
	}
	if ios, dev := count(body); ios != 256 || dev < 1<<20 {
		t.Errorf("no pre_read: %d job reads, %d bytes from the device; want 256 and at least the file", ios, dev)
	}
}

// TestExitAllOnError: exitall_on_error stops the other jobs of the group
// when a job ends in error (a max_latency miss), and leaves them be
// without it.
func TestExitAllOnError(t *testing.T) {
	const src = "[global]\nioengine=psync\nbs=4k\nsize=64m\n%s\n[slow]\nrw=randread\nmax_latency=1us\n[other]\nrw=read\ntime_based\nruntime=1s\n"
	for _, opt := range []string{"", "exitall_on_error"} {
		res := runJobs(t, strings.Replace(src, "%s", opt, 1), Options{Device: "sim:hdd"})
		slow, other := res.Run.Jobs[0], res.Run.Jobs[1]
		if slow.Error != 110 {
			t.Fatalf("%q: the slow job's error %d (%s), want 110 (ETIMEDOUT)", opt, slow.Error, slow.ErrorText)
		}
		stopped := other.Runtime < 0.9e9
		if stopped != (opt != "") {
			t.Errorf("%q: the other job ran %d ms; stopped early %v, want %v", opt, other.Runtime/1e6, stopped, opt != "")
		}
	}
}

// TestMaxLatency: max_latency fails the job at its first I/O slower than
// the limit of its direction (ETIMEDOUT, with fio's line on stderr), an
// I/O of the ramp excepted; a limit above every latency, a direction
// without a limit, and disable_lat (fio checks the total latency it then
// does not measure) leave the job be.
func TestMaxLatency(t *testing.T) {
	const job = "[r]\nioengine=psync\ndirect=1\nrw=randrw\nbs=4k\nsize=64m\nnumber_ios=200\n"
	for _, tc := range []struct {
		opt  string
		fail bool
	}{
		{"max_latency=100us", true},
		{"max_latency=10s", false},
		{"max_latency=10s,100us", true},
		{"max_latency=,10s", false}, // no limit for reads
		{"max_latency=100us\ndisable_lat=1", false},
	} {
		res := runJobs(t, job+tc.opt+"\n", Options{Device: "sim:hdd"})
		js := res.Run.Jobs[0]
		failed := js.Error == 110
		if failed != tc.fail || tc.fail && (len(res.IOErrors) != 1 || !strings.Contains(res.IOErrors[0], "exceeds specified max")) {
			t.Errorf("%q: error %d (%s), lines %q; want a failure %v", tc.opt, js.Error, js.ErrorText, res.IOErrors, tc.fail)
		}
	}
}

// TestFioDisableStats: disable_lat, disable_clat, disable_slat and
// gtod_reduce leave out the figures fio leaves out (its JSON's sample
// counts are 0 where blkq's are), and disk_util=0 drops the disk from
// both reports.
func TestFioDisableStats(t *testing.T) {
	for _, opt := range []string{"", "disable_lat=1", "disable_clat=1", "disable_slat=1", "gtod_reduce=1", "disk_util=0"} {
		job := "[j]\nioengine=libaio\niodepth=4\nrw=randread\nbs=4k\nsize=1m\nfilename=data\n" + opt + "\n"
		fj, fdisk := fioJSON(t, job)
		if len(fj) != 1 {
			t.Fatalf("%q: fio reported %d jobs", opt, len(fj))
		}
		f := fj[0].Read
		res := run(t, job, Options{Device: "null"})
		b := res.Run.Jobs[0].Dir(report.DirRead)
		got := [3]bool{b.Slat.Count() > 0, b.Clat.Count() > 0, b.Lat.Count() > 0}
		want := [3]bool{f.Slat.N > 0, f.Clat.N > 0, f.Lat.N > 0}
		if got != want || fdisk != (len(res.Run.Disks) > 0) {
			t.Errorf("%q: slat/clat/lat kept %v, disks %v; fio %v, disks %v", opt, got, len(res.Run.Disks) > 0, want, fdisk)
		}
	}
}

// TestFioTrimVerify: trim_percentage trims nothing without trim_backlog
// (fio's iolog: the same writes and verify reads, no trim; blkq's the
// same), and the combinations fio aborts on or that would trim are
// refused before the run, naming the job.
func TestFioTrimVerify(t *testing.T) {
	body := "rw=write\nbs=4k\nsize=256k\nverify=md5\ntrim_percentage=50"
	f, b := fioLog(t, "psync", body), blkqLog(t, "psync", body, 1)
	count := func(recs []logIO) map[string]int {
		m := map[string]int{}
		for _, r := range onlyIO(recs) {
			m[r.op]++
		}
		return m
	}
	if fc, bc := count(f), count(b); fc["write"] != 64 || fc["read"] != 64 || fc["trim"] != 0 || !maps.Equal(fc, bc) {
		t.Errorf("without trim_backlog: fio %v, blkq %v; want 64 writes, 64 verify reads, no trim", fc, bc)
	}
	for _, rw := range []string{"write", "trimwrite"} {
		_, err := Run(parse(t, "[j]\nrw="+rw+"\nbs=4k\nsize=256k\nverify=md5\ntrim_percentage=50\ntrim_backlog=8\n"), Options{Device: "null"})
		if err == nil || !strings.Contains(err.Error(), `job "j"`) || !strings.Contains(err.Error(), "trim_backlog") {
			t.Errorf("rw=%s with trim_backlog: %v; want the job refused", rw, err)
		}
	}
}
