package engine

// fio's verify state files (verify_state_save, verify_state_load): a
// write job with verify= saves, when it ends, how many writes it issued
// and the offsets of its last completed ones; a later verify_only run of
// the same job with verify_state_load=1 reads the file and verifies only
// what had been written by then, so that a write job cut short (a crash,
// a signal, number_ios) can still be checked. The file is fio 3.33's
// (verify-state.h, version 3), so fio reads blkq's and blkq reads fio's:
//
//	local-NAME-INDEX-verify.state   NAME the job's ('/' made '.'), INDEX its place in the run from 0
//	header:  version (3), size of the rest, crc32c of the rest (fio's: no final inversion), u64 each
//	rest:    comps (u64), iodepth (u32), nrfiles (u32), writes issued (u64), INDEX (u64),
//	         random state: use64 (u64) and 6 × u64, the job's name (64 bytes, NUL-padded),
//	         iodepth × nrfiles completions: file number (u64), offset in the file (u64)
//
// all little-endian. The random state is the generator's that fio keeps
// in the file and never reads back; blkq does not reproduce fio's
// generator, so it stores its own: use64 1 and the verifier's seed state
// in the first word. The stop rule is fio's (verify_state_should_stop):
// verify reads go on while the file's writes are more than iodepth ahead
// of the reads done; in the last iodepth, a block is read only if it is
// among the saved completions, and the first that is not ends the verify
// (a read job with verify=, each of whose reads is a verify read, ends
// there).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
)

const (
	vstateVersion = 3
	vstateHdrSize = 24
	vstateFixed   = 152 // the rest's size before the completions
)

// verifyState is one job's state file.
type verifyState struct {
	depth, nrFiles uint32
	numberio       uint64 // writes issued
	index          uint64
	rand           [7]uint64 // use64, then the state words
	name           string
	comps          []fileComp // the last completed writes, newest first
}

// fileComp is a completed write: its file (the job's file number, from 0)
// and its offset in that file.
type fileComp struct{ fileno, offset uint64 }

// verifyStateName is fio's name of the state file of job name at index.
func verifyStateName(name string, index int) string {
	return fmt.Sprintf("local-%s-%d-verify.state", strings.ReplaceAll(name, "/", "."), index)
}

// marshal returns the file's bytes.
func (s *verifyState) marshal() []byte {
	size := vstateFixed + 16*int(s.depth)*int(s.nrFiles)
	b := make([]byte, vstateHdrSize+size)
	le := binary.LittleEndian
	rest := b[vstateHdrSize:]
	le.PutUint64(rest[0:], uint64(len(s.comps)))
	le.PutUint32(rest[8:], s.depth)
	le.PutUint32(rest[12:], s.nrFiles)
	le.PutUint64(rest[16:], s.numberio)
	le.PutUint64(rest[24:], s.index)
	for i, w := range s.rand {
		le.PutUint64(rest[32+8*i:], w)
	}
	copy(rest[88:88+63], s.name) // NUL-terminated, as fio's snprintf leaves it
	for i, c := range s.comps {
		le.PutUint64(rest[vstateFixed+16*i:], c.fileno)
		le.PutUint64(rest[vstateFixed+16*i+8:], c.offset)
	}
	le.PutUint64(b[0:], vstateVersion)
	le.PutUint64(b[8:], uint64(size))
	le.PutUint64(b[16:], uint64(crc32cFio(rest)))
	return b
}

// parseVerifyState reads a state file's bytes; a file that is not one is
// an error saying what is wrong, as fio refuses it.
func parseVerifyState(b []byte) (*verifyState, error) {
	le := binary.LittleEndian
	if len(b) < vstateHdrSize {
		return nil, errors.New("shorter than the 24-byte header")
	}
	if v := le.Uint64(b); v != vstateVersion {
		return nil, fmt.Errorf("version %d in its header, want %d (fio 3.33's)", v, vstateVersion)
	}
	size := le.Uint64(b[8:])
	rest := b[vstateHdrSize:]
	if size < vstateFixed || size != uint64(len(rest)) {
		return nil, fmt.Errorf("its header gives %d bytes after it, the file has %d", size, len(rest))
	}
	if crc := le.Uint64(b[16:]); crc != uint64(crc32cFio(rest)) {
		return nil, errors.New("corrupt (its crc32c does not match)")
	}
	s := &verifyState{depth: le.Uint32(rest[8:]), nrFiles: le.Uint32(rest[12:]),
		numberio: le.Uint64(rest[16:]), index: le.Uint64(rest[24:])}
	for i := range s.rand {
		s.rand[i] = le.Uint64(rest[32+8*i:])
	}
	name := rest[88 : 88+64]
	if i := strings.IndexByte(string(name), 0); i >= 0 {
		name = name[:i]
	}
	s.name = string(name)
	n := le.Uint64(rest[0:])
	if slots := (size - vstateFixed) / 16; n > slots || slots != uint64(s.depth)*uint64(s.nrFiles) {
		return nil, fmt.Errorf("%d completions for %d × %d slots", n, s.depth, s.nrFiles)
	}
	for i := range int(n) {
		o := vstateFixed + 16*i
		s.comps = append(s.comps, fileComp{le.Uint64(rest[o:]), le.Uint64(rest[o+8:])})
	}
	return s, nil
}

// shouldStop reports whether the verify read of the block at offset of
// file fileno ends the verify, after reads verify reads completed (fio's
// verify_state_should_stop).
func (s *verifyState) shouldStop(reads uint64, fileno, offset uint64) bool {
	depth := uint64(s.depth)
	if (reads < depth || s.numberio-reads > depth) && s.numberio > depth {
		return false
	}
	for _, c := range s.comps {
		if c.fileno == fileno && c.offset == offset {
			return false
		}
	}
	return true
}

// writeLog is what a write job keeps for its state file: per file, a
// ring of the offsets of its last iodepth completed writes.
type writeLog struct {
	issued, completed uint64
	rings             [][]uint64 // per file, iodepth slots
	next              []int      // per file, the slot of the next completion
}

// fileOf returns the file number and the offset in it of device offset
// off in job j's files.
func (j *job) fileOf(off int64) (fileno int, fileOff int64) {
	if j.gen != nil {
		for i, f := range j.gen.files {
			if off >= f.fileBase && off < f.fileBase+f.fileSize {
				return i, off - f.fileBase
			}
		}
	}
	return 0, off
}

// logWrite records j's completed write at device offset off.
func (v *verifier) logWrite(off int64) {
	w := v.wlog
	if w == nil {
		return
	}
	f, fo := v.j.fileOf(off)
	w.completed++
	w.rings[f][w.next[f]] = uint64(fo)
	w.next[f] = (w.next[f] + 1) % len(w.rings[f])
}

// state is the job's state file as it ends, fio's layout: per file the
// newest min(completed writes, iodepth) completions, newest first.
func (v *verifier) state() *verifyState {
	j, w := v.j, v.wlog
	s := &verifyState{depth: uint32(j.depth), nrFiles: uint32(len(w.rings)), numberio: w.issued,
		index: uint64(j.index), name: j.name}
	s.rand[0], s.rand[1] = 1, v.seed
	n := min(w.completed, uint64(j.depth))
	for f, ring := range w.rings {
		k := w.next[f]
		for range n {
			k = (k - 1 + len(ring)) % len(ring)
			s.comps = append(s.comps, fileComp{uint64(f), ring[k]})
		}
	}
	return s
}

// saveVerifyState writes j's state file when it ends (fio saves it as the
// job exits); a failure is a warning, as fio's is a message.
func (j *job) saveVerifyState() {
	v := j.vfy
	if v == nil || v.wlog == nil {
		return
	}
	path := filepath.Join(j.r.opt.VerifyStateDir, verifyStateName(j.name, j.index))
	if err := os.WriteFile(path, v.state().marshal(), 0o644); err != nil {
		j.r.stateErrs = append(j.r.stateErrs, fmt.Sprintf("job %q: verify_state_save: %v", j.name, err))
	}
}

// setupVerifyState prepares v for verify_state_save and loads the state
// file for verify_state_load, when the run has a directory for them.
func (r *runner) setupVerifyState(v *verifier) error {
	j, vo := v.j, v.j.spec.Verification
	dir := r.opt.VerifyStateDir
	if vo.StateLoad {
		switch {
		case dir == "":
			return fmt.Errorf("%s:%d: job %q: verify_state_load: this run has no directory for verify state files (Options.VerifyStateDir)", r.jf.Path, j.spec.Line, j.name)
		case v.mixed:
			return fmt.Errorf("%s:%d: job %q: verify_state_load is modelled for a write job's verify and for a read job, not for a job that reads and writes", r.jf.Path, j.spec.Line, j.name)
		}
		path := filepath.Join(dir, verifyStateName(j.name, j.index))
		b, err := os.ReadFile(path)
		if err == nil {
			v.loaded, err = parseVerifyState(b)
		}
		if err != nil {
			return fmt.Errorf("%s:%d: job %q: verify_state_load: %s: %w", r.jf.Path, j.spec.Line, j.name, path, err)
		}
	}
	if v.loaded != nil && !v.writes {
		j.src = &stateLoadSource{inner: j.src, v: v} // a read job checks each read
	}
	if vo.StateSave && dir != "" && v.writes && !vo.Only {
		files := 1
		if j.gen != nil {
			files = max(len(j.gen.files), 1)
		}
		w := &writeLog{rings: make([][]uint64, files), next: make([]int, files)}
		for i := range w.rings {
			w.rings[i] = make([]uint64, max(j.depth, 1))
		}
		v.wlog = w
	}
	return nil
}

// stateLoadSource is a read job's source under verify_state_load: each
// read is a verify read, and fio's rule may end the job before it.
type stateLoadSource struct {
	inner source
	v     *verifier
}

func (s *stateLoadSource) begin()                           { s.inner.begin() }
func (s *stateLoadSource) failed(u *ioUnit, err error) bool { return s.inner.failed(u, err) }
func (s *stateLoadSource) describe(js *report.JobStats)     { s.inner.describe(js) }

func (s *stateLoadSource) next() (nextIO, srcStatus) {
	io, st := s.inner.next()
	if st == srcReady && io.op == blkq.OpRead {
		f, off := s.v.j.fileOf(io.offset)
		if s.v.loaded.shouldStop(s.v.readsDone, uint64(f), uint64(off)) {
			return nextIO{}, srcEnd
		}
	}
	return io, st
}
