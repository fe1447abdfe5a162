package trace_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/sim"
	"github.com/blkq-dev/blkq/trace"
)

// writeScenario returns the records a Writer wrote of the scenario.
func writeScenario(t testing.TB, devErr error, opt trace.WriterOptions) ([]byte, []trace.Record) {
	t.Helper()
	var buf bytes.Buffer
	w := trace.NewWriter(&buf, opt)
	scenario(t, devErr, w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := bytes.Clone(buf.Bytes())
	recs, err := trace.ReadAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return data, recs
}

func TestWriterScenarioRecords(t *testing.T) {
	_, recs := writeScenario(t, nil, trace.WriterOptions{})
	// The action words follow the kernel: bio events carry QUEUE and the
	// direction; request events add FS; P and U are reads of nothing.
	want := []struct {
		seq    uint32
		ms     float64
		pid    uint32
		action uint32
		sector uint64
		bytes  uint32
		pdu    string
	}{
		{0, 0, 7, 0x04000000, 0, 0, "writer\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"}, // process note
		{1, 0, 7, 0x00120001, 0, 4096, ""},                                            // Q W
		{2, 0, 7, 0x00120004, 0, 4096, ""},                                            // G W
		{3, 0, 7, 0x00110009, 0, 0, ""},                                               // P
		{4, 0, 7, 0x00120001, 8, 4096, ""},                                            // Q W
		{5, 0, 7, 0x00120002, 8, 4096, ""},                                            // M W
		{6, 0, 7, 0x00120001, 100, 4096, ""},                                          // Q W
		{7, 0, 7, 0x00120004, 100, 4096, ""},                                          // G W
		{8, 0, 7, 0x0011000a, 0, 0, "\x00\x00\x00\x00\x00\x00\x00\x02"},               // U, 2 requests
		{9, 0, 7, 0x0112000c, 0, 8192, ""},                                            // I W (FS)
		{10, 0, 7, 0x0112000c, 100, 4096, ""},                                         // I W
		{11, 0, 7, 0x01420007, 0, 8192, ""},                                           // D W
		{0, 0.5, 9, 0x04000000, 0, 0, "reader\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"},
		{12, 0.5, 9, 0x10190001, 200, 4096, ""}, // Q R sync meta
		{13, 0.5, 9, 0x10190004, 200, 4096, ""}, // G
		{14, 0.5, 9, 0x1119000c, 200, 4096, ""}, // I
		{15, 1, 7, 0x01820008, 0, 8192, ""},     // C W
		{16, 1, 7, 0x01420007, 100, 4096, ""},   // D W
		{17, 2, 7, 0x01820008, 100, 4096, ""},   // C W
		{18, 2, 9, 0x11490007, 200, 4096, ""},   // D R sync meta
		{19, 3, 9, 0x11890008, 200, 4096, ""},   // C
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i, w := range want {
		r := recs[i]
		if r.Version != 7 || r.Sequence != w.seq || r.Time != uint64(w.ms*1e6) || r.PID != w.pid ||
			r.Action != w.action || r.Sector != w.sector || r.Bytes != w.bytes || string(r.PDU) != w.pdu ||
			r.Device != trace.MakeDev(8, 0) || r.CPU != 0 || r.Error != 0 {
			t.Errorf("record %d = %+v (action %#08x), want %+v", i, r, r.Action, w)
		}
	}
	if n := trace.Names(recs); n[7] != "writer" || n[9] != "reader" || len(n) != 2 {
		t.Errorf("names %v", n)
	}
}

func TestWriterDeviceAndByteOrder(t *testing.T) {
	dev := trace.MakeDev(253, 3)
	data, recs := writeScenario(t, nil, trace.WriterOptions{Dev: dev, ByteOrder: binary.BigEndian})
	if !bytes.Equal(data[:4], []byte{0x65, 0x61, 0x74, 0x07}) {
		t.Fatalf("big-endian magic bytes % x", data[:4])
	}
	if got := binary.BigEndian.Uint32(data[36:]); got != 253<<20|3 {
		t.Fatalf("device word %#x", got)
	}
	for _, r := range recs {
		if r.Device != dev {
			t.Fatalf("device %v, want 253,3", r.Device)
		}
	}
	if d := trace.MakeDev(8, 16); d.Major() != 8 || d.Minor() != 16 || d.String() != "8,16" || uint32(d) != 0x00800010 {
		t.Fatalf("MakeDev(8,16) = %#x %v", uint32(d), d)
	}
}

func TestWriterCompletionErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want uint16
	}{
		{errors.New("media error"), 0xfffb},                            // -EIO
		{fmt.Errorf("full: %w", syscall.ENOSPC), uint16(0x10000 - 28)}, // -ENOSPC
	} {
		_, recs := writeScenario(t, tc.err, trace.WriterOptions{})
		n := 0
		for _, r := range recs {
			if r.Letter() == "C" {
				n++
				if r.Error != tc.want {
					t.Errorf("%v: C error %d, want %d", tc.err, r.Error, tc.want)
				}
			} else if r.Error != 0 {
				t.Errorf("%v: %s record with error %d", tc.err, r.Letter(), r.Error)
			}
		}
		if n != 3 {
			t.Errorf("%d completions, want 3", n)
		}
	}
}

// flagBios are one bio of each operation and flag combination, with the
// RWBS column blkparse prints for it.
var flagBios = []struct {
	op    blkq.Op
	flags blkq.Flags
	n     uint32
	want  string
}{
	{blkq.OpRead, 0, 8, "R"},
	{blkq.OpRead, blkq.FlagReadAhead, 8, "RA"},
	{blkq.OpRead, blkq.FlagSync | blkq.FlagMeta | blkq.FlagReadAhead, 8, "RASM"},
	{blkq.OpWrite, 0, 8, "W"},
	{blkq.OpWrite, blkq.FlagSync, 8, "WS"},
	{blkq.OpWrite, blkq.FlagFUA, 8, "WF"},
	{blkq.OpWrite, blkq.FlagPreflush | blkq.FlagFUA | blkq.FlagSync, 8, "FWFS"},
	{blkq.OpWrite, blkq.FlagNoMerge, 8, "W"},
	{blkq.OpFlush, 0, 0, "FW"},
	{blkq.OpFlush, blkq.FlagSync, 0, "FWS"}, // an fsync, as Linux 6.18 traces it

	{blkq.OpDiscard, 0, 8, "D"},
}

// writeFlagsTrace traces one lone bio of each of flagBios.
func writeFlagsTrace(t testing.TB) []byte {
	t.Helper()
	loop := sim.NewLoop()
	dev := &fixedDevice{loop: loop, service: time.Millisecond}
	q, err := blkq.New(dev, loop, blkq.Config{Scheduler: "none"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := trace.NewWriter(&buf, trace.WriterOptions{})
	q.AddTracer(w)
	task := blkq.NewTask(1, "t")
	loop.Post(func() {
		for i, b := range flagBios {
			q.Enqueue(task, &blkq.Bio{Op: b.op, Flags: b.flags, Sector: uint64(i) * 64, Sectors: b.n})
		}
	})
	loop.Run()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestWriterRWBS checks the categories of each operation and flag against
// the kernel's: the Q record of a lone bio of each kind, as blkparse's
// RWBS column shows it.
func TestWriterRWBS(t *testing.T) {
	recs, err := trace.ReadAll(bytes.NewReader(writeFlagsTrace(t)))
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for _, r := range recs {
		if r.Letter() != "Q" {
			continue
		}
		b := flagBios[i]
		if got := r.RWBS(); got != b.want {
			t.Errorf("bio %d (%v %v): RWBS %q, want %q", i, b.op, b.flags, got, b.want)
		}
		i++
	}
	if i != len(flagBios) {
		t.Fatalf("%d Q records, want %d", i, len(flagBios))
	}
}

// TestWriterSkipsBlkqOnlyActions: a wake-up (W, blkq's own) has no
// blktrace action and leaves no record, nor does an unknown action. (A
// request-to-request merge is an M since Linux 5.11 and is written: see
// TestMergeTotalsEqualDiskStats.)
func TestWriterSkipsBlkqOnlyActions(t *testing.T) {
	var buf bytes.Buffer
	w := trace.NewWriter(&buf, trace.WriterOptions{})
	w.Trace(&blkq.Event{Action: 'W', PID: 1, Sector: 8, Sectors: 8})
	w.Trace(&blkq.Event{Action: '?', PID: 1})
	if err := w.Close(); err != nil || buf.Len() != 0 {
		t.Fatalf("wrote %d bytes (%v), want nothing", buf.Len(), err)
	}
}

type failWriter struct{ after int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.after < len(p) {
		n := f.after
		f.after = 0
		return n, syscall.ENOSPC
	}
	f.after -= len(p)
	return len(p), nil
}

func TestWriterReportsErrors(t *testing.T) {
	w := trace.NewWriter(&failWriter{after: 100}, trace.WriterOptions{})
	for i := range 5000 {
		w.Trace(&blkq.Event{Action: 'Q', PID: 1, Sector: uint64(i), Sectors: 8})
	}
	if err := w.Flush(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Flush: %v, want ENOSPC", err)
	}
	if err := w.Close(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Close: %v, want ENOSPC", err)
	}
	if err := w.Err(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Err: %v", err)
	}

	var buf bytes.Buffer
	w = trace.NewWriter(&buf, trace.WriterOptions{})
	w.Trace(&blkq.Event{Action: 'Q', PID: 1, Sectors: 8})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if ev, notes := w.Counts(); ev != 1 || notes != 1 || buf.Len() != 2*trace.RecordSize+16 {
		t.Fatalf("counts %d %d, %d bytes", ev, notes, buf.Len())
	}
	w.Trace(&blkq.Event{Action: 'Q', PID: 1, Sectors: 8})
	if err := w.Err(); !errors.Is(err, trace.ErrClosed) {
		t.Fatalf("event after Close: %v, want ErrClosed", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestCreateWritesFile(t *testing.T) {
	name := t.TempDir() + "/x.blktrace.0"
	w, err := trace.Create(name, trace.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	scenario(t, nil, w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := trace.ReadFile(name)
	if err != nil || len(recs) != 21 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	if _, err := trace.Create(t.TempDir()+"/no/such/dir", trace.WriterOptions{}); err == nil {
		t.Fatal("Create in a missing directory succeeded")
	}
}

// TestWriterConcurrent feeds one Writer from several goroutines while
// another flushes (run with -race): every event lands once, with
// sequence numbers 1..n.
func TestWriterConcurrent(t *testing.T) {
	var buf bytes.Buffer
	w := trace.NewWriter(&buf, trace.WriterOptions{})
	const goroutines, each = 4, 500
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				w.Trace(&blkq.Event{Time: blkq.Time(i), Action: 'Q', PID: 100 + g, Sector: uint64(i), Sectors: 8})
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 50 {
			if err := w.Flush(); err != nil {
				t.Error(err)
			}
		}
	}()
	wg.Wait()
	<-done
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := trace.ReadAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint32]bool{}
	notes := 0
	for _, r := range recs {
		if r.IsNotify() {
			notes++
			continue
		}
		if seen[r.Sequence] || r.Sequence < 1 || r.Sequence > goroutines*each {
			t.Fatalf("sequence %d repeated or out of range", r.Sequence)
		}
		seen[r.Sequence] = true
	}
	if len(seen) != goroutines*each || notes != goroutines {
		t.Fatalf("%d events and %d notes, want %d and %d", len(seen), notes, goroutines*each, goroutines)
	}
}

// noFUADevice is a fixedDevice with a volatile write cache and no FUA,
// as a loop device on Linux 6.18.
type noFUADevice struct{ fixedDevice }

func (d *noFUADevice) QueueLimit(name string) (string, bool) {
	switch name {
	case "write_cache":
		return "write back", true
	case "fua":
		return "0", true
	}
	return "", false
}

// TestWriterFlushSequenceAsLinux: an O_DSYNC write (FUA) and an fsync on
// a device with a write cache and no FUA trace as Linux 6.18 traced them
// on this project's machine (a loop device, the blk tracer):
//
//	Q WFS 0 + 8, G WFS 0 + 8, I WS 0 + 8, D WS 0 + 8, C WS 0 + 8,
//	D FN, C FN 0, C WS 0 [0]      (the FUA write: data, postflush, end)
//	Q FWS, G FWS, D FN, C FN, C WS 0 [0]      (the fsync)
func TestWriterFlushSequenceAsLinux(t *testing.T) {
	loop := sim.NewLoop()
	dev := &noFUADevice{fixedDevice{loop: loop, service: time.Millisecond}}
	q, err := blkq.New(dev, loop, blkq.Config{Scheduler: "mq-deadline"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := trace.NewWriter(&buf, trace.WriterOptions{})
	q.AddTracer(w)
	task := blkq.NewTask(1, "dd")
	loop.Post(func() {
		q.Enqueue(task, &blkq.Bio{Op: blkq.OpWrite, Flags: blkq.FlagFUA | blkq.FlagSync, Sector: 0, Sectors: 8,
			EndIO: func(*blkq.Bio, error) { q.Enqueue(task, &blkq.Bio{Op: blkq.OpFlush, Flags: blkq.FlagSync}) }})
	})
	loop.Run()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := trace.ReadAll(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		if r.IsNotify() {
			continue
		}
		got = append(got, fmt.Sprintf("%s %s %d+%d", r.Letter(), r.RWBS(), r.Sector, r.Sectors()))
	}
	want := "Q WFS 0+8,G WFS 0+8,I WS 0+8,D WS 0+8,C WS 0+8,D FN 0+0,C FN 0+0,C WS 0+0," +
		"Q FWS 0+0,G FWS 0+0,D FN 0+0,C FN 0+0,C WS 0+0"
	if strings.Join(got, ",") != want {
		t.Fatalf("records:\n got %s\nwant %s", strings.Join(got, ","), want)
	}
}
