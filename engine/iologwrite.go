package engine

import (
	"strconv"
	"time"

	"github.com/blkq-dev/blkq"
)

// write_iolog: the job's I/O as fio 3.33 logs it (iolog.c), version 3:
//
//	fio version 3 iolog
//	49 /tmp/f add
//	374 /tmp/f open
//	382 /tmp/f read 0 4096
//	392 /tmp/f sync 0 0
//	2792 /tmp/f close
//
// Times are microseconds since the job started; an I/O is logged when it
// is issued, its offset relative to its file. As fio does, the file is
// appended to (a second run adds a second log after the first), a sync
// carries the offset of the I/O before it and length 0, and each of the
// job's files is added and opened when the job starts and closed when it
// ends. blkq's job opens its files at its start, so add and open share a
// time.

// iologWriter writes one job's iolog.
type iologWriter struct {
	f     *logFile
	logs  *jobLogs
	files []iologFile // the job's (logs.files)
	last  int         // the file of the last I/O
	off   int64       // its offset in the file
	buf   []byte
}

// iologFile is one of the job's files: its name and where it lies on the
// device.
type iologFile struct {
	name       string
	base, size int64 // device bytes
}

func (w *iologWriter) begin() {
	w.buf = append(w.buf[:0], "fio version 3 iolog\n"...)
	w.flush()
	for _, act := range []string{"add", "open"} {
		for i := range w.files {
			w.fileLine(w.logs.start, i, act)
		}
	}
}

// issued logs an I/O as the job issues it; syncFile, for an fsync of
// one file, is that file's device offset (-1 otherwise: an fsync is
// logged on the file of the I/O before it).
func (w *iologWriter) issued(now blkq.Time, op blkq.Op, datasync bool, devOff, length, syncFile int64) {
	var act string
	switch op {
	case blkq.OpRead:
		act = "read"
	case blkq.OpWrite:
		act = "write"
	case blkq.OpDiscard:
		act = "trim"
	case blkq.OpFlush:
		act = "sync"
		if datasync {
			act = "datasync"
		}
	default:
		return
	}
	if op != blkq.OpFlush {
		w.last, w.off = w.logs.fileOf(devOff)
	} else if syncFile >= 0 {
		w.last, _ = w.logs.fileOf(syncFile)
	}
	if len(w.files) == 0 {
		return
	}
	w.stamp(now)
	w.buf = append(w.buf, w.files[w.last].name...)
	w.buf = append(w.buf, ' ')
	w.buf = append(w.buf, act...)
	w.buf = append(w.buf, ' ')
	w.buf = strconv.AppendInt(w.buf, w.off, 10)
	w.buf = append(w.buf, ' ')
	if op == blkq.OpFlush {
		length = 0
	}
	w.buf = strconv.AppendInt(w.buf, length, 10)
	w.buf = append(w.buf, '\n')
	w.flush()
}

// fileOf returns the job's file holding device offset off and the
// offset in it, as fio's logs give offsets.
func (jl *jobLogs) fileOf(off int64) (int, int64) {
	for i, f := range jl.files {
		if off >= f.base && off < f.base+f.size {
			return i, off - f.base
		}
	}
	return 0, off // outside every file (cannot happen): the device offset
}

func (w *iologWriter) finish(end blkq.Time) {
	for i := range w.files {
		w.fileLine(end, i, "close")
	}
}

func (w *iologWriter) fileLine(now blkq.Time, i int, act string) {
	w.stamp(now)
	w.buf = append(w.buf, w.files[i].name...)
	w.buf = append(w.buf, ' ')
	w.buf = append(w.buf, act...)
	w.buf = append(w.buf, '\n')
	w.flush()
}

// stamp starts a line with its time, µs since the job started.
func (w *iologWriter) stamp(now blkq.Time) {
	w.buf = strconv.AppendInt(w.buf[:0], int64(now-w.logs.start)/int64(time.Microsecond), 10)
	w.buf = append(w.buf, ' ')
}

func (w *iologWriter) flush() { w.logs.rl.write(w.f, w.buf) }

// iologFiles are j's files for its iolog: fio's names, and where each
// lies on the device.
func (r *runner) iologFiles(j *job) []iologFile {
	if j.gen == nil {
		return nil
	}
	names := j.names // fio's names, or a read_iolog job's iolog's
	var fs []iologFile
	for i, f := range j.gen.files {
		if i < len(names) {
			fs = append(fs, iologFile{name: names[i], base: f.fileBase, size: f.fileSize})
		}
	}
	return fs
}
