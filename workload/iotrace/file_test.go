package iotrace

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blkq-dev/blkq/trace"
)

// TestOpenDetectsAndRereads: Open finds a blktrace binary file and a text
// format by their content; each call of the Opener reads the file from
// the start; a DiskSim time unit scales the arrival times.
func TestOpenDetectsAndRereads(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "run.blktrace.0")
	if err := os.WriteFile(bin, blktraceQ(blktraceNote(nil, 3, "dd"), trace.TCRead, 40, 8, 4096, 3), 0o600); err != nil {
		t.Fatal(err)
	}
	ds := filepath.Join(dir, "x.trace")
	if err := os.WriteFile(ds, []byte("0 0 8 8 1\n5 0 16 8 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path   string
		unit   time.Duration
		format Format
		last   Record
	}{
		{bin, 0, FormatBlktrace, Record{PID: 3, Process: "dd", Sector: 8, Sectors: 8, Line: 2}},
		{ds, time.Millisecond, FormatDiskSim, Record{Time: 5 * time.Millisecond, Sector: 16, Sectors: 8, Line: 2}},
	} {
		if f, err := FileFormat(tc.path, ""); err != nil || f != tc.format {
			t.Errorf("%s: format %q, %v; want %q", tc.path, f, err, tc.format)
		}
		open, err := Open(tc.path, "", tc.unit)
		if err != nil {
			t.Fatal(err)
		}
		for pass := range 2 {
			f, err := open()
			if err != nil {
				t.Fatal(err)
			}
			recs, err := ReadAll(f)
			f.Close()
			if err != nil || len(recs) == 0 {
				t.Fatalf("%s pass %d: %d records, %v", tc.path, pass, len(recs), err)
			}
			last := recs[len(recs)-1]
			last.Op, last.Flags, last.Device = 0, 0, ""
			if !reflect.DeepEqual(last, tc.last) {
				t.Errorf("%s pass %d: last record %+v, want %+v", tc.path, pass, last, tc.last)
			}
		}
	}
}

// TestOpenRefusesAPipeAndNamesTheFile: a FIFO would give each pass only
// what the previous left; garbage fails detection, naming the file.
func TestOpenRefusesAPipeAndNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "p")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(fifo, "", 0); err == nil || !strings.Contains(err.Error(), "a pipe, FIFO or socket") {
		t.Errorf("FIFO: %v", err)
	}
	junk := filepath.Join(dir, "junk")
	if err := os.WriteFile(junk, []byte("not a trace at all\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(junk, "", 0); err == nil || !strings.HasPrefix(err.Error(), junk+": ") {
		t.Errorf("garbage: %v", err)
	}
	if _, err := Open(junk, "nope", 0); err == nil || !strings.Contains(err.Error(), `unknown format "nope"`) {
		t.Errorf("unknown format: %v", err)
	}
}
