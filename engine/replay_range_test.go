package engine

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/workload/fio"
)

// TestReplayEndPastByteOffset2To63IsAnError: a record whose end lies past
// byte offset 2^63 (sector 2^54) is an error naming its line, on a file
// and on a simulated device, never a wrapped offset.
func TestReplayEndPastByteOffset2To63IsAnError(t *testing.T) {
	for _, r := range []ReplayRecord{
		{Op: blkq.OpWrite, Sector: 1 << 54, Sectors: 8, Line: 3},
		{Op: blkq.OpRead, Sector: 1<<54 - 8, Sectors: 16, Line: 3},
		{Op: blkq.OpRead, Sector: 1<<64 - 8, Sectors: 16, Line: 3},
	} {
		recs := []ReplayRecord{{Op: blkq.OpWrite, Sector: 0, Sectors: 8, Line: 2}, r}
		for _, dev := range []string{"file:" + filepath.Join(t.TempDir(), "dev"), "sim:hdd"} {
			_, err := Replay("huge", recs, Options{Device: dev}, ReplayOptions{})
			if err == nil || !strings.Contains(err.Error(), "huge:3") || !strings.Contains(err.Error(), "2^63") {
				t.Fatalf("%s, sector %d+%d: %v", dev, r.Sector, r.Sectors, err)
			}
		}
	}
}

// TestReplayRecordLargerThanDeviceFailsAlone: a record larger than the
// whole device cannot be wrapped into it: without --strict it fails on
// its own (no buffer is allocated for it) and the records before and
// after it replay; with --strict the trace is refused, naming its line,
// as for any record beyond the device.
func TestReplayRecordLargerThanDeviceFailsAlone(t *testing.T) {
	var recs []ReplayRecord
	for i := range 6 {
		recs = append(recs, ReplayRecord{Op: blkq.OpWrite, Sector: uint64(i) * 8, Sectors: 8, Line: i + 1})
	}
	recs[3] = ReplayRecord{Op: blkq.OpWrite, Sector: 0, Sectors: 1 << 31, Line: 4} // 1 TiB
	opt := Options{Device: "file:" + filepath.Join(t.TempDir(), "dev"), SizeCap: 1 << 20}
	for _, timing := range []string{"afap", "trace"} {
		res, err := Replay("big", recs, opt, ReplayOptions{Timing: timing})
		if err != nil {
			t.Fatalf("%s: %v", timing, err)
		}
		js := res.Run.Jobs[0]
		if js.Write.IOs != 5 || js.Error != 5 || !strings.Contains(js.ErrorText, "line 4") {
			t.Fatalf("%s: %d writes replayed, error %d (%s); want 5, EIO naming line 4", timing, js.Write.IOs, js.Error, js.ErrorText)
		}
		if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "larger than the device") || !strings.Contains(w, "line 4") {
			t.Fatalf("%s: warnings %q", timing, w)
		}
	}
	if _, err := Replay("big", recs, opt, ReplayOptions{Strict: true}); err == nil || !strings.Contains(err.Error(), "big:4") {
		t.Fatalf("--strict: %v", err)
	}
}

// TestJobOffsetPast2To63IsAnError: offset=2^63 is refused by the parser,
// naming the option; an offset whose region ends past byte 2^63 is an
// error naming offset, not a device size that wrapped.
func TestJobOffsetPast2To63IsAnError(t *testing.T) {
	_, err := fio.Parse("o.fio", []byte("[o]\nrw=read\nsize=1m\noffset=9223372036854775808\n"), func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), `o.fio:4`) || !strings.Contains(err.Error(), `"offset"`) {
		t.Fatalf("offset=2^63: %v", err)
	}
	for _, dev := range []string{"sim:hdd", "file:" + filepath.Join(t.TempDir(), "dev")} {
		_, err = Run(parse(t, "[o]\nrw=read\nsize=1m\noffset=9223372036854775296\n"), Options{Device: dev})
		if err == nil || !strings.Contains(err.Error(), "test.fio:1") || !strings.Contains(err.Error(), "offset=9223372036854775296") {
			t.Fatalf("%s: offset=2^63-512: %v", dev, err)
		}
	}
}
