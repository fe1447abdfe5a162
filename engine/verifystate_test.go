package engine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyStateFileIsFios: the state file blkq writes for a job is fio
// 3.33's byte for byte (testdata: fio's own, for the same sequential
// job cut at 64 writes), but for the random state words, which blkq
// fills with its own seed and fio never reads back; blkq reads fio's
// file back to the same fields.
func TestVerifyStateFileIsFios(t *testing.T) {
	fioFile, err := os.ReadFile("testdata/fio-3.33-local-w-0-verify.state")
	if err != nil {
		t.Fatal(err)
	}
	s, err := parseVerifyState(fioFile)
	if err != nil {
		t.Fatal(err)
	}
	want := verifyState{depth: 1, nrFiles: 1, numberio: 64, index: 0, name: "w", comps: []fileComp{{0, 63 * 4096}}}
	if s.depth != want.depth || s.nrFiles != want.nrFiles || s.numberio != want.numberio || s.name != want.name ||
		len(s.comps) != 1 || s.comps[0] != want.comps[0] || s.rand != [7]uint64{} {
		t.Fatalf("fio's state file read as %+v, want %+v", *s, want)
	}
	if got := want.marshal(); !bytes.Equal(got, fioFile) {
		t.Errorf("blkq's file of fio's state differs from fio's:\nblkq %x\nfio  %x", got, fioFile)
	}
	// Damaged files are refused, saying why.
	for name, damage := range map[string]func(b []byte) []byte{
		"version":   func(b []byte) []byte { b[0] = 2; return b },
		"crc":       func(b []byte) []byte { b[100] ^= 1; return b },
		"truncated": func(b []byte) []byte { return b[:len(b)-1] },
		"header":    func(b []byte) []byte { return b[:10] },
		"comps":     func(b []byte) []byte { b[24] = 9; return fixCRC(b) },
	} {
		b := damage(append([]byte(nil), fioFile...))
		if _, err := parseVerifyState(b); err == nil {
			t.Errorf("%s: a damaged state file was read", name)
		}
	}
}

// fixCRC recomputes a state file's crc after a change.
func fixCRC(b []byte) []byte {
	c := crc32cFio(b[vstateHdrSize:])
	for i := range 8 {
		b[16+i] = byte(uint64(c) >> (8 * i))
	}
	return b
}

// stateJob is a sequential 1 MiB write job with verify=crc32c on path.
func stateJob(path, extra string) string {
	return "[w]\nfilename=" + path + "\nrw=write\nbs=4k\nsize=1m\ndirect=1\nverify=crc32c\n" + extra
}

// TestVerifyStateLoadChecksWhatWasWritten: a write job cut short at 64
// writes (number_ios) saves its state; verify_only with
// verify_state_load=1 then reads back only those blocks, clean, where
// verify_only without it finds the 65th never written (bad magic); so
// does a read job with verify= and verify_state_load=1. With
// psync that is all 64. At iodepth=4 the file holds the last 4
// completions, newest first, which on a file need not be the last 4
// writes issued; fio's rule reads the first 60 blocks, then, once 60
// reads have completed, a block only while it is among them (reads still
// in flight then were let through, as in fio): 60 to 64 blocks, never
// one past them.
func TestVerifyStateLoadChecksWhatWasWritten(t *testing.T) {
	for _, depth := range []string{"ioengine=psync\n", "ioengine=libaio\niodepth=4\n"} {
		dir, path := newDataFile(t, 1<<20)
		opt := Options{Device: "file:" + path, VerifyStateDir: dir}
		res, err := Run(parse(t, stateJob(path, depth+"number_ios=64\n")), opt)
		if err != nil || res.Run.Jobs[0].Error != 0 || res.Run.Jobs[0].Write.Bytes != 64*4096 {
			t.Fatalf("%s: write: %v %+v", depth, err, res)
		}
		b, err := os.ReadFile(filepath.Join(dir, "local-w-0-verify.state"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := parseVerifyState(b)
		if err != nil {
			t.Fatal(err)
		}
		n := uint64(s.depth)
		seen := map[fileComp]bool{}
		for _, c := range s.comps {
			if c.fileno != 0 || c.offset%4096 != 0 || c.offset >= 64*4096 || seen[c] {
				t.Errorf("%s: completion %+v: want distinct blocks of the 64 written", depth, c)
			}
			seen[c] = true
		}
		if s.numberio != 64 || uint64(len(s.comps)) != n || n != map[bool]uint64{true: 1, false: 4}[depth == "ioengine=psync\n"] {
			t.Errorf("%s: state %+v: want 64 writes and the last iodepth completions", depth, *s)
		}
		res, err = Run(parse(t, stateJob(path, depth+"verify_only=1\nverify_state_load=1\n")), opt)
		if err != nil {
			t.Fatal(err)
		}
		if js := res.Run.Jobs[0]; js.Error != 0 || js.Read.Bytes > 64*4096 || js.Read.Bytes < (64-n)*4096 || n == 1 && js.Read.Bytes != 64*4096 || js.Write.Bytes != 0 {
			t.Errorf("%s: verify_only with the state: err %d (%s), read %d, wrote %d; want 0, %d to 64 blocks, 0", depth, js.Error, js.ErrorText, js.Read.Bytes, js.Write.Bytes, 64-n)
		}
		// A read job with verify=: each read a verify read, ended by the
		// same rule (fio's t0036).
		reader := strings.Replace(stateJob(path, depth+"verify_state_load=1\n"), "rw=write", "rw=read", 1)
		res, err = Run(parse(t, reader), opt)
		if err != nil {
			t.Fatal(err)
		}
		if js := res.Run.Jobs[0]; js.Error != 0 || js.Read.Bytes > 64*4096 || js.Read.Bytes < (64-n)*4096 || n == 1 && js.Read.Bytes != 64*4096 {
			t.Errorf("%s: read job with the state: err %d (%s), read %d; want 0, %d to 64 blocks", depth, js.Error, js.ErrorText, js.Read.Bytes, 64-n)
		}
		res, err = Run(parse(t, stateJob(path, depth+"verify_only=1\n")), opt)
		if err != nil {
			t.Fatal(err)
		}
		if js := res.Run.Jobs[0]; js.Error == 0 || !containsLine(res.IOErrors, "bad magic header 0") {
			t.Errorf("%s: verify_only without the state: err %d, lines %q; want the unwritten block's bad magic", depth, js.Error, res.IOErrors)
		}
	}
}

// TestVerifyStateLoadNeedsItsFile: verify_state_load without a state file,
// or in a run with no directory for one, is an error naming the job and
// the file; so is a state file for a job that reads and writes.
func TestVerifyStateLoadNeedsItsFile(t *testing.T) {
	dir, path := newDataFile(t, 1<<20)
	for _, c := range []struct {
		src, stateDir, want string
	}{
		{stateJob(path, "verify_only=1\nverify_state_load=1\n"), dir, "local-w-0-verify.state: open"},
		{stateJob(path, "verify_only=1\nverify_state_load=1\n"), "", "no directory for verify state files"},
		{strings.Replace(stateJob(path, "verify_state_load=1\n"), "rw=write", "rw=randrw", 1), dir, "not for a job that reads and writes"},
	} {
		_, err := Run(parse(t, c.src), Options{Device: "file:" + path, VerifyStateDir: c.stateDir})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `job "w"`) {
			t.Errorf("%q: %v; want an error naming the job and %q", c.src, err, c.want)
		}
	}
}

// TestVerifyStateAcrossFio: fio 3.33 reads blkq's state file and blkq
// reads fio's: each program's verify_only --verify_state_load=1 checks,
// clean, exactly the 64 blocks the other's write job wrote before
// number_ios cut it.
func TestVerifyStateAcrossFio(t *testing.T) {
	fioPath := needOutside(t, "fio")
	dir, path := newDataFile(t, 1<<20)
	src := stateJob(path, "ioengine=psync\n")
	opt := Options{Device: "file:" + path, VerifyStateDir: dir}
	if _, err := Run(parse(t, src+"number_ios=64\n"), opt); err != nil {
		t.Fatal(err)
	}
	out, ok := fioCombined(t, fioPath, dir, src, "--verify_only", "--verify_state_load=1", "--minimal")
	if f := strings.Split(out, ";"); !ok || len(f) < 6 || f[5] != "256" {
		t.Errorf("fio --verify_only --verify_state_load=1 of blkq's writes: ok %v, want 256 KiB read:\n%.300s", ok, out)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if out, ok := fioCombined(t, fioPath, dir, src+"number_ios=64\n"); !ok {
		t.Fatalf("fio write: %s", out)
	}
	res, err := Run(parse(t, src+"verify_only=1\nverify_state_load=1\n"), opt)
	if err != nil {
		t.Fatal(err)
	}
	if js := res.Run.Jobs[0]; js.Error != 0 || js.Read.Bytes != 64*4096 {
		t.Errorf("blkq verify_only with fio's state: err %d (%s) %q, read %d; want 256 KiB clean", js.Error, js.ErrorText, res.IOErrors, js.Read.Bytes)
	}
}

// FuzzParseVerifyState: any bytes are read as a state file or refused
// with an error, never a panic; a state read, written again, reads back
// the same.
func FuzzParseVerifyState(f *testing.F) {
	if b, err := os.ReadFile("testdata/fio-3.33-local-w-0-verify.state"); err == nil {
		f.Add(b)
	}
	f.Add((&verifyState{depth: 2, nrFiles: 2, numberio: 9, name: "a/b", comps: []fileComp{{1, 4096}}}).marshal())
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := parseVerifyState(b)
		if err != nil {
			return
		}
		if len(s.name) > 63 {
			return // fio's name field keeps 63 bytes and a NUL
		}
		again, err := parseVerifyState(s.marshal())
		if err != nil || fmt.Sprint(*again) != fmt.Sprint(*s) {
			t.Errorf("read %+v, written and read again %+v (%v)", *s, again, err)
		}
	})
}
