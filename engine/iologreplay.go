package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
	"github.com/blkq-dev/blkq/workload/iotrace"
)

// read_iolog: a fio job whose I/O is an iolog's (fio's iolog v2 or v3, or
// a blktrace binary, as fio 3.33 takes both), replayed through the same
// trace source as `blkq replay` (replay.go), with the job's depth, engine
// and logs.
//
// As fio does: the job's files are the iolog's (its "add" lines, or the
// one file of replay_redirect) and each is as large as the iolog's I/O
// reaches, offsets are divided by replay_scale and aligned down to
// replay_align, replay_skip leaves out a blktrace's reads, writes, trims
// or syncs (fio applies it to blktrace replays only), and the iolog's
// times are kept at replay_time_scale percent of their speed unless
// replay_no_stall issues the records as fast as the job's depth allows.
//
// Unlike fio, whose replay waits for each record's delay after issuing the
// one before (a closed loop bounded by iodepth), the records are due at
// their times (an open loop, as in `blkq replay`), still bounded by the
// job's depth: the two agree whenever the device keeps up with the log.

// iologReplay is what planning learns of a job's iolog.
type iologReplay struct {
	path   string
	open   iotrace.Opener
	format iotrace.Format
	names  []string         // the job's files, in order
	ends   map[string]int64 // bytes each file's I/O reaches
	rd     ReplayReader     // the replay's reader, closed with the run's logs
}

// planIologReplay returns the files of j's read_iolog and the bytes each
// must hold, reading the iolog once; nil when the job has none.
func (r *runner) planIologReplay(j *job) (*iologReplay, error) {
	o := j.spec.Logs
	if o.ReadIolog == "" {
		return nil, nil
	}
	// As fio does, read_iolog=A:B:C gives clone n the (n mod 3)th log.
	logs := strings.Split(o.ReadIolog, ":")
	path := logs[j.clone%len(logs)]
	place := func(err error) error {
		return fmt.Errorf("%s: job %q: read_iolog=%s: %w", jobPlace(r.jf, j.spec), j.name, path, err)
	}
	format, err := iologFormat(path)
	if err != nil {
		return nil, place(err)
	}
	if format != iotrace.FormatIolog && format != iotrace.FormatBlktrace {
		return nil, place(fmt.Errorf("a %s trace: fio reads an iolog (version 2 or 3) or a blktrace binary", format))
	}
	open, err := iotrace.Open(path, format, 0)
	if err != nil {
		return nil, place(err)
	}
	ir := &iologReplay{path: path, open: open, format: format, ends: map[string]int64{}}
	f, err := open()
	if err != nil {
		return nil, place(err)
	}
	defer f.Close()
	for {
		rec, err := f.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, place(err)
		}
		x, ok := ir.mapRecord(j, rec)
		if !ok {
			continue
		}
		name := x.Device
		if _, seen := ir.ends[name]; !seen {
			ir.names = append(ir.names, name)
		}
		ir.ends[name] = max(ir.ends[name], int64(x.Sector+uint64(x.Sectors))<<blkq.SectorShift)
	}
	if len(ir.names) == 0 {
		return nil, place(errors.New("no I/O to replay"))
	}
	if r.logs == nil {
		r.logs = &runLogs{}
	}
	if r.logs.replays == nil {
		r.logs.replays = map[*job]*iologReplay{}
	}
	r.logs.replays[j] = ir
	return ir, nil
}

// iologFormat is the format of the file at path: an iolog when it starts
// as one (so that a bad line is reported as the iolog's, not as a format
// that cannot be told), else what iotrace detects.
func iologFormat(path string) (iotrace.Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	head := make([]byte, len("fio version 2 iolog"))
	n, _ := io.ReadFull(f, head)
	f.Close()
	if bytes.HasPrefix(head[:n], []byte("fio version ")) {
		return iotrace.FormatIolog, nil
	}
	return iotrace.FileFormat(path, "")
}

// mapRecord applies the job's replay options to rec: its file (a
// blktrace's records go to the job's first file, as in fio), offset scale
// and alignment, and replay_skip; false leaves it out.
func (ir *iologReplay) mapRecord(j *job, rec iotrace.Record) (iotrace.Record, bool) {
	o := j.spec.Logs
	if ir.format == iotrace.FormatBlktrace {
		if slices.Contains(o.ReplaySkip, skipName(rec.Op)) {
			return rec, false
		}
		rec.Device = ""
		if len(j.spec.Filenames) > 0 {
			rec.Device = j.spec.Filenames[0]
		}
	}
	if o.ReplayRedirect != "" {
		rec.Device = o.ReplayRedirect
	}
	if rec.Device == "" {
		rec.Device = j.name + ".0.0"
	}
	if rec.Op == blkq.OpFlush {
		rec.Sector, rec.Sectors = 0, 0
		return rec, true
	}
	off := int64(rec.Sector) << blkq.SectorShift
	if o.ReplayScale > 1 {
		off /= o.ReplayScale
	}
	if a := o.ReplayAlign; a > 0 {
		off -= off % a
	}
	rec.Sector = uint64(off) >> blkq.SectorShift
	return rec, true
}

// skipName is replay_skip's name of op.
func skipName(op blkq.Op) string {
	switch op {
	case blkq.OpRead:
		return "read"
	case blkq.OpWrite:
		return "write"
	case blkq.OpDiscard:
		return "trim"
	}
	return "sync"
}

// attachIologReplays makes each read_iolog job's source its iolog, once
// the files are laid out.
func (r *runner) attachIologReplays() error {
	if r.logs == nil {
		return nil
	}
	for _, j := range r.jobs {
		ir := r.logs.replays[j]
		if ir == nil {
			continue
		}
		if err := r.attachIologReplay(j, ir); err != nil {
			if errors.Is(err, ErrInterrupted) {
				return err
			}
			return fmt.Errorf("%s: job %q: read_iolog=%s: %w", jobPlace(r.jf, j.spec), j.name, ir.path, err)
		}
	}
	return nil
}

func (r *runner) attachIologReplay(j *job, ir *iologReplay) error {
	base := map[string]int64{}
	for i, f := range j.gen.files {
		base[ir.names[i]] = f.fileBase
	}
	src := func() (ReplayReader, error) {
		f, err := ir.open()
		if err != nil {
			return nil, err
		}
		return &iologRecords{f: f, ir: ir, j: j, base: base}, nil
	}
	o := j.spec.Logs
	ro := ReplayOptions{Timing: "trace", Speed: float64(o.ReplayTimeScale) / 100, IODepth: j.depth, Strict: true}
	if o.ReplayNoStall {
		ro.Timing = "afap"
	}
	sc, err := scanTrace(ir.path, src, ro, r.opt.Stop)
	if err != nil {
		return err
	}
	if sc.err != nil {
		return sc.err
	}
	if sc.maxEnd > r.dev.Capacity() {
		return fmt.Errorf("its I/O reaches sector %d, beyond the device's %d", sc.maxEnd, r.dev.Capacity())
	}
	rd, err := src()
	if err != nil {
		return err
	}
	ir.rd = rd
	ts := &traceSource{j: j, name: ir.path, ro: ro, t0: sc.t0, bs: sc.bs, tasks: map[int]*submitter{j.pid: &j.main},
		feed: &feeder{rd: rd, left: sc.n, wrapTo: r.dev.Capacity()}}
	j.src = &iologSource{ts}
	j.st.flushIsSync = true // the iolog's syncs are the job's fsyncs
	j.limit = math.MaxInt64 // the iolog ends the job
	return nil
}

// iologSource is a fio job's source replaying its iolog: the trace's
// records, reported as the fio job, whose I/O error stops it as fio's
// would.
type iologSource struct{ *traceSource }

func (s *iologSource) failed(*ioUnit, error) bool { return false }

func (s *iologSource) describe(js *report.JobStats) { (&fioSource{j: s.j}).describe(js) }

// iologRecords yields an iolog's records for the job: mapped by the replay
// options, on the job's pid, at their files' places on the device.
type iologRecords struct {
	f    *iotrace.File
	ir   *iologReplay
	j    *job
	base map[string]int64
}

func (x *iologRecords) Next() (ReplayRecord, error) {
	for {
		rec, err := x.f.Next()
		if err != nil {
			return ReplayRecord{}, err
		}
		m, ok := x.ir.mapRecord(x.j, rec)
		if !ok {
			continue
		}
		sector := m.Sector + uint64(x.base[m.Device])>>blkq.SectorShift
		return ReplayRecord{Time: m.Time, PID: x.j.pid, Process: x.j.name, Op: m.Op, Flags: iologFlags(x.j.spec, m), Sector: sector, Sectors: m.Sectors, Line: m.Line}, nil
	}
}

// iologFlags are a replayed record's bio flags: the job's engine decides
// them, as for its own I/O (a sync engine's reads and writes are sync).
func iologFlags(spec *fio.Job, m iotrace.Record) blkq.Flags {
	if m.Op == blkq.OpFlush || spec.IsSync() && m.Op != blkq.OpDiscard {
		return m.Flags | blkq.FlagSync
	}
	return m.Flags
}

func (x *iologRecords) Close() error { return x.f.Close() }
