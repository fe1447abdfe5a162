package engine

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
)

// failEvery8th fails, with errno e, every request that starts at the
// second 4 KiB block of each 32 KiB: 32 of a 1 MiB job's 256 blocks.
func failEvery8th(e unix.Errno) func(rq *blkq.Request) error {
	return func(rq *blkq.Request) error {
		if rq.Sector%64 == 8 {
			return e
		}
		return nil
	}
}

// runErr runs src and returns its result, whatever its jobs' errors.
func runErr(t *testing.T, src string, opt Options) *Result {
	t.Helper()
	res, err := Run(parse(t, src), opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

const failJob = "[r]\nrw=read\nbs=4k\nsize=1m\ndirect=1\nfilename=/dev/sdb\n"

// TestContinueOnErrorGoesOnAfterEIO: with continue_on_error=all (or
// ignore_error naming EIO for reads) a job on a disk that fails 32 of
// its 256 reads with EIO reads to its end, counts the 32 (total_err,
// first_error 5), issues all 256 (fio's total_ios counts the failed
// ones) and moves the 224 good ones' bytes; its err= is the first error
// (fio's "func=xfer" text for psync) but it did not fail, and no io_u
// error line is printed. Without the options it stops at its first
// failure, as before.
func TestContinueOnErrorGoesOnAfterEIO(t *testing.T) {
	opt := Options{Device: "sim:ssd", FailRequest: failEvery8th(unix.EIO)}
	for _, extra := range []string{"continue_on_error=all", "continue_on_error=read", "continue_on_error=1", "ignore_error=EIO", "ignore_error=5:28"} {
		res := runErr(t, failJob+extra+"\n", opt)
		js := res.Run.Jobs[0]
		if js.Read.IOs != 256 || js.Read.Bytes != 224*4096 || js.TotalErr != 32 || js.FirstError != 5 {
			t.Errorf("%s: %d reads, %d bytes, total_err %d, first_error %d; want 256, %d, 32, 5", extra, js.Read.IOs, js.Read.Bytes, js.TotalErr, js.FirstError, 224*4096)
		}
		if js.Error != 5 || !js.ErrorContinued || js.ErrorText != "func=xfer, error=Input/output error" || len(res.IOErrors) != 0 {
			t.Errorf("%s: err=%d (%s) continued=%v, %d io_u error lines", extra, js.Error, js.ErrorText, js.ErrorContinued, len(res.IOErrors))
		}
	}
	for _, extra := range []string{"", "continue_on_error=none", "continue_on_error=write", "continue_on_error=verify", "ignore_error=,EIO", "ignore_error=EIO:ENOSPC\ncontinue_on_error=0"} {
		res := runErr(t, failJob+extra+"\n", opt)
		js := res.Run.Jobs[0]
		if js.Read.IOs != 2 || js.Read.Bytes != 4096 || js.Error != 5 || js.ErrorContinued || js.TotalErr != 0 || len(res.IOErrors) != 1 {
			t.Errorf("%q: %d reads, %d bytes, err=%d continued=%v total_err %d, %d io_u lines; want a stop at the second read", extra, js.Read.IOs, js.Read.Bytes, js.Error, js.ErrorContinued, js.TotalErr, len(res.IOErrors))
		}
	}
}

// TestContinueOnErrorStopsOnAFatalErrno: continue_on_error only goes on
// after fio's non-fatal errors (EIO, EILSEQ) unless ignore_error lists
// others: ENOSPC stops the job, and is counted (total_err 1) because
// continue_on_error covers its type.
func TestContinueOnErrorStopsOnAFatalErrno(t *testing.T) {
	opt := Options{Device: "sim:ssd", FailRequest: failEvery8th(unix.ENOSPC)}
	w := strings.Replace(failJob, "rw=read", "rw=write", 1)
	res := runErr(t, w+"continue_on_error=all\n", opt)
	js := res.Run.Jobs[0]
	if js.Write.IOs != 2 || js.Error != 28 || js.ErrorContinued || js.TotalErr != 1 || js.FirstError != 28 || len(res.IOErrors) != 1 {
		t.Errorf("ENOSPC under continue_on_error=all: %d writes, err=%d continued=%v, total_err %d first %d, %d lines; want a stop at the second write, counted",
			js.Write.IOs, js.Error, js.ErrorContinued, js.TotalErr, js.FirstError, len(res.IOErrors))
	}
	res = runErr(t, w+"ignore_error=,ENOSPC\n", opt)
	if js := res.Run.Jobs[0]; js.Write.IOs != 256 || js.TotalErr != 32 || js.FirstError != 28 || !js.ErrorContinued {
		t.Errorf("ignore_error=,ENOSPC: %d writes, total_err %d first %d continued=%v; want 256, 32, 28, true", js.Write.IOs, js.TotalErr, js.FirstError, js.ErrorContinued)
	}
}

// TestErrorDumpAndAsyncEngineText: error_dump=1 prints fio's io_u error
// line for every error the job goes on after; an async engine's first
// error has no text (fio prints "err= 5 ()").
func TestErrorDumpAndAsyncEngineText(t *testing.T) {
	opt := Options{Device: "sim:ssd", FailRequest: failEvery8th(unix.EIO)}
	res := runErr(t, failJob+"continue_on_error=all\nerror_dump=1\n", opt)
	if n := len(res.IOErrors); n != 32 || !strings.Contains(res.IOErrors[0], ": Input/output error: read offset=4096, buflen=4096") {
		t.Fatalf("error_dump=1: %d lines %q, want 32", n, res.IOErrors)
	}
	opt.NoMerges = 2 // a merged request would fail its neighbours' bios too
	res = runErr(t, failJob+"ioengine=libaio\niodepth=4\ncontinue_on_error=all\n", opt)
	js := res.Run.Jobs[0]
	if js.Read.IOs != 256 || js.TotalErr != 32 || js.ErrorText != "" {
		t.Fatalf("libaio: %d reads, total_err %d, text %q", js.Read.IOs, js.TotalErr, js.ErrorText)
	}
	var normal, terse bytes.Buffer
	if err := report.WriteNormal(&normal, res.Run); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"r: (groupid=0, jobs=1): err= 5 (): pid=", "     errors    : total=32, first_error=5/<Input/output error>\n"} {
		if !strings.Contains(normal.String(), want) {
			t.Errorf("normal report lacks %q:\n%s", want, normal.String())
		}
	}
	if err := report.WriteTerse(&terse, res.Run); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(terse.String(), ";32;5\n") {
		t.Errorf("terse line does not end with total_err;first_error: %q", terse.String())
	}
}

// TestFioIgnoreErrorENOSPC compares blkq with Debian's fio 3.33 on a
// 1 MiB tmpfs, where most of a job's 64 direct 64 KiB writes fail with
// ENOSPC: with ignore_error=,ENOSPC both go on to the end and report the
// same error, total_err, first_error and bytes written in JSON (49
// errors, 15 writes done, on this machine). fio's total_ios may count
// one more: the write the file system took in part fio issues again for
// its remainder (a short write), where blkq's file device fails it whole.
func TestFioIgnoreErrorENOSPC(t *testing.T) {
	bin := needFio(t)
	const body = "[w]\nrw=write\nbs=64k\nsize=4m\ndirect=1\nignore_error=,ENOSPC\n"
	type jsonJob struct {
		Error      int `json:"error"`
		TotalErr   int `json:"total_err"`
		FirstError int `json:"first_error"`
		Write      struct {
			IOBytes  int `json:"io_bytes"`
			TotalIOs int `json:"total_ios"`
		} `json:"write"`
	}
	parseJSON := func(b []byte) jsonJob {
		var out struct{ Jobs []jsonJob }
		if i := bytes.IndexByte(b, '{'); i > 0 {
			b = b[i:]
		}
		if err := json.Unmarshal(b, &out); err != nil || len(out.Jobs) != 1 {
			t.Fatalf("JSON: %v\n%s", err, b)
		}
		return out.Jobs[0]
	}
	dir := mountTmpfs(t, "1m")
	fioJob := filepath.Join(dir, "fio.fio")
	if err := os.WriteFile(fioJob, []byte(body+"filename="+filepath.Join(dir, "f")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--output-format=json", fioJob).Output()
	if err != nil {
		t.Fatalf("fio: %v\n%s", err, out)
	}
	want := parseJSON(out)
	os.Remove(filepath.Join(dir, "f"))
	res := runErr(t, body, Options{Device: "file:" + filepath.Join(dir, "dev")})
	var js bytes.Buffer
	if err := report.WriteJSON(&js, res.Run); err != nil {
		t.Fatal(err)
	}
	got := parseJSON(js.Bytes())
	t.Logf("fio %+v, blkq %+v", want, got)
	if want.TotalErr < 40 || got.Write.TotalIOs != 64 || want.Write.TotalIOs-got.Write.TotalIOs > 1 {
		t.Fatalf("blkq %+v, fio %+v", got, want)
	}
	got.Write.TotalIOs = want.Write.TotalIOs
	if got != want {
		t.Fatalf("blkq %+v, fio %+v", got, want)
	}
	if len(res.IOErrors) != 0 || !res.Run.Jobs[0].ErrorContinued {
		t.Fatalf("%d io_u error lines, continued=%v", len(res.IOErrors), res.Run.Jobs[0].ErrorContinued)
	}
}
