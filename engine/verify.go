package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/internal/satmath"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
)

// fio's verify (verify= with do_verify, verify_backlog, verify_only, ...):
// a write job fills each block in fio's verify format (verifyhdr.go),
// keeps a history of the blocks whose writes completed, and reads them
// back through its path once it has written (or every verify_backlog
// blocks), checking each as fio does. A read-only job with verify= checks
// every block it reads; verify_only runs the write job's offsets without
// writing and reads them back. The reads are the job's I/O like any other
// read (fio's t/jobs count them in the read figures), but do not count
// against its size.
//
// On a simulated or null device the same reads are issued with no data to
// check. A bad block is fio's: its lines on stderr, err=84 (EILSEQ) and
// the job stops. Blocks the job wrote twice are verified once, for the
// last write; fio's serialize_overlap question (two writes of a block in
// flight at once) is not modelled: the later completion wins.

// verifier is a job's verify state; its configuration (the fields above
// history) is fixed once the job is planned and is read off the executor
// by check.
type verifier struct {
	j          *job
	t          *vtype
	method     string
	interval   int64 // fio's verify_interval after its fix-ups
	swap       int64 // verify_offset
	pattern    []byte
	patOffs    []int
	compress   int    // buffer_compress_percentage after fio's fix-ups: the zeros (or bufPattern) ending each block
	bufPattern []byte // buffer_pattern
	thread     uint16
	writes     bool // the job writes: it verifies its own history
	mixed      bool // it reads too: its own reads are not checked
	seedCheck  bool // the rand seed must be the one written (a mixed job without backlog)
	numCheck   bool // numberio is checked (fixed block size, not time_based, not verify_only)
	fatal      bool
	dump       bool // verify_dump: bad intervals go to files in the working directory, as fio's

	seed       uint64   // xorshift state for the blocks' seeds
	numberio   uint16   // writes issued so far
	history    vhistory // completed writes to read back, in order (verifyhist.go)
	latest     vlatest  // which of them is each offset's latest
	inFlight   int      // writes of the job in flight
	since      int      // writes completed since the last backlog batch
	batch      int      // verify reads left in the current backlog batch
	final      bool     // the write phase is over
	verifying  bool     // in a verify phase: the job's writes were reaped, its reads go on
	loopAt     int64    // bytes issued at which the current loop ends (loops > 1: fio verifies each loop)
	perLoop    int64
	handoff    vpiece // the verify read next() chose, for prepare
	hasHandoff bool

	wlog      *writeLog    // verify_state_save: the writes, for the state file (verifystate.go)
	loaded    *verifyState // verify_state_load: the write job's state
	readsDone uint64       // verify reads completed (fio's io_blocks[DDIR_READ])
	stopped   bool         // the loaded state ended the verify: nothing more is read back
}

// vpiece is one block written (or to be read back): fio's io_piece.
type vpiece struct {
	off, length int64
	seed        uint64
	numberio    uint16
}

// setupVerify makes j's verifier and wraps its source, if verify= asks.
func (r *runner) setupVerify(j *job) error {
	spec := j.spec
	if !spec.VerifyEnabled() {
		return nil
	}
	t, err := vtypeOf(spec.Verify)
	if err != nil {
		return fmt.Errorf("%s:%d: job %q: %w", r.jf.Path, spec.Line, j.name, err)
	}
	vo := spec.Verification
	rw := spec.RW.String()
	writes := strings.Contains(rw, "write") || rw == "rw" || rw == "readwrite" || rw == "randrw"
	mixed := rw == "rw" || rw == "readwrite" || rw == "randrw"
	v := &verifier{j: j, t: t, method: spec.Verify, swap: vo.Offset, pattern: vo.Pattern, patOffs: vo.PatternOffsets,
		thread: uint16(j.index + 1), writes: writes, mixed: mixed, fatal: vo.Fatal, dump: vo.Dump,
		seed: uint64(j.index+1)*0x9e3779b97f4a7c15 ^ r.rng.Split(fmt.Sprintf("verify %d", j.index)).Rand().Uint64() | 1}
	data := spec.Data()
	v.compress, v.bufPattern = data.CompressPercentage, data.Pattern
	if spec.Verify == "pattern" && v.pattern == nil {
		return fmt.Errorf("%s:%d: job %q: verify=pattern needs verify_pattern=", r.jf.Path, spec.Line, j.name)
	}
	wmin, wmax := bsBounds(spec, 1)
	rmin, _ := bsBounds(spec, 0)
	v.interval = fioVerifyInterval(vo.Interval, wmin, wmax, rmin, !writes || mixed)
	if hs := v.hdrSize(); v.interval <= int64(hs) && t.id != vtypes["null"].id {
		return fmt.Errorf("%s:%d: job %q: verify_interval %d is too small for verify=%s's %d-byte header (fio: Blocksize too small)", r.jf.Path, spec.Line, j.name, v.interval, spec.Verify, hs)
	}
	if v.swap > 0 && v.swap+int64(v.hdrSize()) > v.interval {
		return fmt.Errorf("%s:%d: job %q: verify_offset %d puts the %d-byte header past the %d-byte verify interval", r.jf.Path, spec.Line, j.name, v.swap, v.hdrSize(), v.interval)
	}
	v.latest = j.verifyIndex(wmin)
	v.seedCheck = mixed && vo.Backlog == 0
	v.numCheck = writes && wmin == wmax && rmin == wmax && !j.timeBased() && !vo.Only
	if loops := int64(spec.Loops); loops > 1 && !j.timeBased() && j.limit > 0 {
		v.perLoop = j.limit / loops
		v.loopAt = v.perLoop
	}
	j.vfy = v
	if writes {
		j.src = &verifySource{inner: j.src, v: v}
	}
	return r.setupVerifyState(v)
}

// bsBounds returns the smallest and largest block size of direction d.
func bsBounds(spec *fio.Job, d int) (int64, int64) {
	lo, hi := spec.BS[d].Min, spec.BS[d].Max
	if sp := spec.BSSplit[d]; len(sp) > 0 {
		lo, hi = sp[0].BS, sp[0].BS
		for _, x := range sp {
			lo, hi = min(lo, x.BS), max(hi, x.BS)
		}
	}
	return lo, hi
}

// fioVerifyInterval is verify_interval as fio 3.33 fixes it up: the
// smallest write size by default, at most the smallest read size of a
// job that reads, and a factor of the write sizes.
func fioVerifyInterval(iv, wmin, wmax, rmin int64, reads bool) int64 {
	if wmax != wmin && iv == 0 {
		iv = wmin
	}
	if iv > wmin {
		iv = wmin
	} else if reads && iv > rmin {
		iv = rmin
	}
	if iv == 0 || wmin%iv != 0 || wmax%iv != 0 {
		a, b := wmin, wmax
		for b != 0 {
			a, b = b, a%b
		}
		iv = a
	}
	return iv
}

// hdrSize is the header plus the method's checksum.
func (v *verifier) hdrSize() int {
	if v.t.noHeader {
		return 0
	}
	return hdrLen + v.t.size
}

// inc is the bytes each header covers in a block of n bytes.
func (v *verifier) inc(n int) int {
	if v.interval > 0 && v.interval <= int64(n) {
		return int(v.interval)
	}
	return n
}

func (v *verifier) nextSeed() uint64 {
	v.seed ^= v.seed << 13
	v.seed ^= v.seed >> 7
	v.seed ^= v.seed << 17
	return v.seed
}

// verifyIndex is the index by offset of j's verify history (vlatest):
// the range of its files' regions (an I/O past a region's end is in the
// index's map), blocks of unit bytes, and the blocks its size writes.
func (j *job) verifyIndex(unit int64) vlatest {
	var lo, hi int64
	if j.gen != nil && len(j.gen.files) > 0 {
		lo, hi = math.MaxInt64, 0
		for _, f := range j.gen.files {
			lo, hi = min(lo, f.base), max(hi, satmath.Add(f.base, f.size))
		}
	}
	var expect int64
	if unit > 0 && j.limit > 0 && !j.timeBased() {
		expect = j.limit / unit
	}
	return newVLatest(lo, hi, unit, expect)
}

// prepare gives u its piece (in u, vbuf): a new one for a write, the
// chosen one for a verify read, one for each read of a read-only job.
func (v *verifier) prepare(u *ioUnit, io nextIO) {
	switch {
	case v.hasHandoff:
		u.vbuf, v.hasHandoff = v.handoff, false
		u.vp = &u.vbuf
	case io.op == blkq.OpWrite:
		u.vp = &u.vbuf
		*u.vp = vpiece{off: io.offset, length: io.length, seed: v.nextSeed(), numberio: v.numberio}
		v.numberio++
		v.inFlight++
		if v.wlog != nil {
			v.wlog.issued++
		}
	case io.op == blkq.OpRead && !v.mixed:
		u.vp = &u.vbuf
		*u.vp = vpiece{off: io.offset, length: io.length}
	}
}

// written records u's completed write for reading back.
func (v *verifier) written(u *ioUnit) {
	p := u.vp
	v.logWrite(p.off)
	if v.stopped {
		return
	}
	v.push(p)
	v.since++
}

// push appends a copy of p to the history to read back, as its offset's
// latest write: an earlier one of the offset still queued is overwritten.
func (v *verifier) push(p *vpiece) {
	v.latest.set(p.off, v.history.push(packPiece(p)))
}

// writeEnded notes that one of the job's writes is no longer in flight.
func (v *verifier) writeEnded(u *ioUnit) {
	if u.vp != nil && u.bio.Op == blkq.OpWrite {
		v.inFlight--
	}
}

// take returns the next block to read back; ok false if none is left.
// Blocks written again after are skipped: the later write is read back.
func (v *verifier) take() (vpiece, bool) {
	for {
		r, seq, ok := v.history.take()
		if !ok {
			return vpiece{}, false
		}
		if v.latest.latest(r.off, seq) {
			return r.piece(), true
		}
	}
}

// pending reports whether blocks remain to read back after the writes.
func (v *verifier) pending() bool {
	return v.writes && v.j.spec.Verification.DoVerify && (v.history.len() > 0 || v.inFlight > 0)
}

// fill writes block p of buf in fio's verify format.
func (v *verifier) fill(buf []byte, p *vpiece, now blkq.Time) {
	if v.t.id == vtypes["null"].id {
		return
	}
	if v.pattern != nil {
		v.fillPattern(buf, p.off)
	} else {
		// fio: random bytes, the last compress% of the block zeros or
		// buffer_pattern (the header goes over the start below). The
		// bytes' stream starts from a hash of the seed: the seeds are
		// one xorshift stream, and a block filled from the seed itself
		// would repeat the one before it shifted by 8 bytes.
		fillPercentage(buf, seedAt(p.seed, 0), v.compress, v.bufPattern)
	}
	inc := v.inc(len(buf))
	hs := v.hdrSize()
	for n, i := 0, 0; i < len(buf); n, i = n+1, i+inc {
		iv := buf[i:min(i+inc, len(buf))]
		if v.t.noHeader {
			continue
		}
		h := vheader{magic: hdrMagic, vtype: v.t.id, length: uint32(inc), seed: p.seed,
			offset: uint64(p.off + int64(n)*v.interval), sec: uint32(now / 1e9), nsec: uint32(now % 1e9),
			thread: v.thread, numberio: p.numberio}
		h.put(iv)
		if v.t.sum != nil {
			v.t.sum(iv[hdrLen:hs], iv[hs:])
		}
		if v.swap > 0 {
			swapBytes(iv[:hs], iv[v.swap:v.swap+int64(hs)])
		}
	}
}

// fillPattern repeats the pattern over buf, %o being off.
func (v *verifier) fillPattern(buf []byte, off int64) {
	repeatPattern(buf, v.patternAt(off))
}

func (v *verifier) patternAt(off int64) []byte {
	if len(v.patOffs) == 0 {
		return v.pattern
	}
	pat := append([]byte{}, v.pattern...)
	for _, o := range v.patOffs {
		binary.LittleEndian.PutUint64(pat[o:], uint64(off))
	}
	return pat
}

func swapBytes(a, b []byte) {
	for i := range a {
		a[i], b[i] = b[i], a[i]
	}
}

// errVerify is a bad block: EILSEQ, as fio fails it.
var errVerify = unix.EILSEQ

// verifyFailure is a bad block: fio's lines for it, and EILSEQ.
type verifyFailure struct{ lines []string }

func (f *verifyFailure) Error() string { return f.lines[0] } // the rest is on stderr
func (f *verifyFailure) Unwrap() error { return errVerify }

// check checks the block p read into buf, as fio's verify_io_u does; nil
// if it is good. It reads only the verifier's fixed configuration (it
// runs where the read completes).
func (v *verifier) check(buf []byte, p *vpiece) error {
	return v.checkNamed(buf, p, v.j.r.dev.Name())
}

// checkNamed is check, naming the device devName in its lines.
func (v *verifier) checkNamed(buf []byte, p *vpiece, devName string) error {
	if v.t.id == vtypes["null"].id {
		return nil
	}
	var lines []string
	fail := func(format string, a ...any) { lines = append(lines, fmt.Sprintf(format, a...)) }
	inc := v.inc(len(buf))
	hs := v.hdrSize()
	for n, i := 0, 0; i < len(buf); n, i = n+1, i+inc {
		if len(lines) > 0 && v.fatal {
			break
		}
		iv := append([]byte{}, buf[i:min(i+inc, len(buf))]...)
		if v.swap > 0 && len(iv) >= int(v.swap)+hs {
			swapBytes(iv[:hs], iv[v.swap:v.swap+int64(hs)])
		}
		at := p.off + int64(n)*int64(inc)
		where := fmt.Sprintf(" at file %s offset %d, length %d (requested block: offset=%d, length=%d)", devName, at, inc, p.off, len(buf))
		if v.t.noHeader {
			before := len(lines)
			v.checkPattern(iv, n, inc, hs, at, inc, p, len(buf), devName, fail)
			if len(lines) > before && v.dump {
				v.dumpFile(iv, devName, at, "received", fail)
				want := make([]byte, len(iv))
				v.fillPattern(want, p.off)
				v.dumpFile(want, devName, at, "expected", fail)
			}
			continue
		}
		if len(iv) < hs {
			fail("verify: bad header length %d, wanted %d%s", len(iv), inc, where)
			return &verifyFailure{lines}
		}
		h := getHeader(iv)
		wantSeed := p.seed
		if !v.seedCheck {
			wantSeed = h.seed
		}
		switch {
		case h.magic != hdrMagic:
			fail("verify: bad magic header %x, wanted %x%s", h.magic, hdrMagic, where)
		case h.length != uint32(inc):
			fail("verify: bad header length %d, wanted %d%s", h.length, inc, where)
		case h.seed != wantSeed:
			fail("verify: bad header rand_seed %d, wanted %d%s", h.seed, wantSeed, where)
		case h.offset != uint64(p.off+int64(n)*v.interval):
			fail("verify: bad header offset %d, wanted %d%s", h.offset, p.off, where)
		case v.numCheck && h.numberio != p.numberio:
			fail("verify: bad header numberio %d, wanted %d%s", h.numberio, p.numberio, where)
		case h.crc != crc32cFio(iv[:36]):
			fail("verify: bad header crc %x, calculated %x%s", h.crc, crc32cFio(iv[:36]), where)
		}
		if len(lines) > 0 {
			v.dumpFile(iv, devName, at, "hdr_fail", fail)
			return &verifyFailure{lines} // fio stops at a bad header
		}
		before := len(lines)
		switch {
		case v.t.sum != nil:
			got := make([]byte, v.t.size)
			v.t.sum(got, iv[hs:])
			if string(got) != string(iv[hdrLen:hs]) {
				fail("%.8s: verify failed at file %s offset %d, length %d (requested block: offset=%d, length=%d, flags=%x)", v.t.name, devName, at, h.length, p.off, len(buf), 0)
				fail("       Expected CRC: %x", iv[hdrLen:hs])
				fail("       Received CRC: %x", got)
			}
		case v.pattern != nil:
			v.checkPattern(iv, n, inc, hs, at, int(h.length), p, len(buf), devName, fail)
		}
		if len(lines) > before && v.dump {
			v.dumpFile(iv, devName, at, "received", fail)
			want := make([]byte, len(buf))
			v.fill(want, &vpiece{off: p.off, length: p.length, seed: h.seed, numberio: h.numberio}, blkq.Time(h.sec)*1e9+blkq.Time(h.nsec))
			exp := want[i:min(i+inc, len(buf))]
			if v.swap > 0 {
				swapBytes(exp[:hs], exp[v.swap:v.swap+int64(hs)])
			}
			v.dumpFile(exp, devName, at, "expected", fail)
		}
	}
	if len(lines) > 0 {
		return &verifyFailure{lines}
	}
	return nil
}

// dumpFile writes b, an interval at offset at, to fio's dump file
// "<device's base name>.<offset>.<kind>" in the working directory, if
// verify_dump asks, and says so as fio does.
func (v *verifier) dumpFile(b []byte, devName string, at int64, kind string, say func(string, ...any)) {
	if !v.dump {
		return
	}
	name := fmt.Sprintf("%s.%d.%s", filepath.Base(devName), at, kind)
	if err := os.WriteFile(name, b, 0o644); err != nil {
		say("open verify buf file: %v", err)
		return
	}
	say("       %s data dumped as %s", kind, name)
}

// checkPattern compares interval n of a block (iv, after its hs header
// bytes) with the pattern, as fio's verify_io_u_pattern does.
func (v *verifier) checkPattern(iv []byte, n, inc, hs int, at int64, length int, p *vpiece, blockLen int, devName string, fail func(string, ...any)) {
	pat := v.patternAt(p.off)
	mod := (inc*n + hs) % len(pat)
	for k, b := range iv[hs:] {
		if want := pat[(mod+k)%len(pat)]; b != want {
			fail("fio: got pattern '%02x', wanted '%02x'. Bad bits %d", b, want, popcount(b^want))
			fail("fio: bad pattern block offset %d", k)
			fail("pattern: verify failed at file %s offset %d, length %d (requested block: offset=%d, length=%d, flags=%x)", devName, at, length, p.off, blockLen, 0)
			return
		}
	}
}

func popcount(b byte) int {
	n := 0
	for ; b != 0; b &= b - 1 {
		n++
	}
	return n
}

// verifySource is a write job's source with its verify reads: the
// backlog batches between the writes, then the whole history.
type verifySource struct {
	inner source
	v     *verifier
	dry   bool // verify_only's offsets have been drawn
}

func (s *verifySource) begin() { s.inner.begin() }

func (s *verifySource) failed(u *ioUnit, err error) bool { return s.inner.failed(u, err) }

func (s *verifySource) describe(js *report.JobStats) { s.inner.describe(js) }

func (s *verifySource) next() (nextIO, srcStatus) {
	v, j := s.v, s.v.j
	vo := j.spec.Verification
	if vo.Only && !s.dry {
		s.dryRun()
	}
	if !v.final {
		if j.limitReached() {
			// fio's I/O loop ends once the writes are issued, a backlog
			// batch due or under way included: what is left is read
			// back by the verify after it.
			v.batch = 0
		} else if vo.Backlog > 0 && v.batch == 0 && v.since >= vo.Backlog {
			v.since = 0
			v.batch = vo.BacklogBatch
			if v.batch == 0 {
				v.batch = vo.Backlog
			}
		}
		if v.batch > 0 {
			if p, ok := v.take(); ok {
				v.batch--
				return v.read(p)
			}
			v.batch = 0 // nothing completed to read back: go on writing, as fio does
		}
		for v.perLoop > 0 && v.loopAt < j.limit && j.issued >= v.loopAt && vo.DoVerify {
			// The end of a loop: fio verifies it before the next starts.
			if st, ok := v.enterVerify(); !ok {
				return nextIO{}, st
			}
			if p, ok := v.take(); ok {
				return v.read(p)
			}
			if j.inflight > 0 {
				return nextIO{}, srcDrain // fio's verify reaps its reads before the next loop
			}
			v.verifying = false
			j.st.phase(j.now(), false)
			v.loopAt += v.perLoop
		}
		if !j.limitReached() {
			io, st := s.inner.next()
			if st != srcEnd {
				return io, st
			}
		}
		v.final = true
	}
	if !vo.DoVerify {
		return nextIO{}, srcEnd
	}
	if st, ok := v.enterVerify(); !ok {
		return nextIO{}, st
	}
	if p, ok := v.take(); ok {
		return v.read(p)
	}
	return nextIO{}, srcEnd
}

// enterVerify begins a verify phase once the job's I/O in flight is
// reaped, as fio's I/O loop reaps all it has in flight before it verifies
// (its do_io returns, then do_verify runs): the writes' time ends there,
// for each direction's runtime (jobStats.phase). ok false: drain first.
func (v *verifier) enterVerify() (srcStatus, bool) {
	if v.verifying {
		return srcReady, true
	}
	if j := v.j; j.inflight > 0 {
		return srcDrain, false
	}
	v.verifying = true
	v.j.st.phase(v.j.now(), true)
	return srcReady, true
}

// read is the verify read of p, handed to prepare; with a loaded state
// (verify_state_load) it is srcEnd instead when fio's rule says the
// verify stops at p: what is left was not written by then.
func (v *verifier) read(p vpiece) (nextIO, srcStatus) {
	if s := v.loaded; s != nil {
		f, off := v.j.fileOf(p.off)
		if s.shouldStop(v.readsDone, uint64(f), uint64(off)) {
			v.stopped = true
			v.history.reset()
			v.latest.reset()
			return nextIO{}, srcEnd
		}
	}
	v.handoff, v.hasHandoff = p, true
	return nextIO{op: blkq.OpRead, offset: p.off, length: p.length, uncounted: true}, srcReady
}

// dryRun draws verify_only's writes without issuing them, as fio's dry
// run does: their offsets and sizes become the history to read back.
func (s *verifySource) dryRun() {
	s.dry = true
	v, j := s.v, s.v.j
	limit := j.limit
	if limit <= 0 {
		limit = 1 << 62 // time_based: the generator's end, bounded below
	}
	var drawn int64
	for n := 0; drawn < limit && n < 1<<24; n++ {
		io, _ := j.gen.next()
		if io.length <= 0 {
			break
		}
		drawn += io.length
		if io.op != blkq.OpWrite {
			continue
		}
		v.push(&vpiece{off: io.offset, length: io.length})
	}
	j.issued = limit
	v.final = true
}

// Hooks of the job (job.go, path.go, cache.go).

// fillWrite fills a write's buffer: fio's verify blocks for a verify job
// (verify=null writes what the job's buffer options give, as fio's does),
// what the buffer options give (bufdata.go), or the run's data-check
// pattern.
func (j *job) fillWrite(buf []byte, off int64, u *ioUnit) {
	switch {
	case j.vfy != nil && u.vp != nil && j.vfy.t.id != vtypes["null"].id:
		j.vfy.fill(buf, u.vp, j.now())
	case j.wdata != nil:
		j.wdata.fill(buf, off, u.plan)
	default:
		j.r.data.fill(buf, off)
	}
}

// checkRead checks a verify read's data where it completes (before the
// buffer goes back to the pool).
// (The page cache's path calls it with the buffer, then endIO without.)
func (j *job) checkRead(u *ioUnit, buf []byte, err error) {
	if err == nil && j.vfy != nil && u.vp != nil && u.bio.Op == blkq.OpRead && buf != nil {
		u.verr = j.vfy.check(buf, u.vp)
	}
}

// verifyDone handles u's completion for the verifier: a write joins the
// history; a verify read that failed its check is the job's error (fio's
// lines on stderr), and the job stops unless continue_on_error goes on.
func (j *job) verifyDone(u *ioUnit, err error) {
	v := j.vfy
	if v == nil || u.vp == nil {
		return
	}
	if u.bio.Op == blkq.OpWrite {
		v.writeEnded(u)
		if err == nil {
			v.written(u)
			if d := j.r.data; d != nil {
				d.trimmed(u.bio.Sector, u.bio.Sectors) // not the data check's pattern
			}
		}
		return
	}
	v.readsDone++
	u.vp = nil // read back and checked (checkRead, before this)
	f := u.verr
	u.verr = nil
	if f == nil || err != nil {
		return
	}
	var vf *verifyFailure
	if errors.As(f, &vf) {
		r := j.r
		for _, l := range vf.lines {
			if len(r.ioErrors) < maxIOErrorLines {
				r.ioErrors = append(r.ioErrors, l)
			}
		}
	}
	if j.goesOn(u, f) {
		return // continue_on_error=verify
	}
	if j.err == nil {
		j.err, j.errFunc = f, "io_u_queued_complete"
	}
	j.state.stop()
}

// verifyPending reports whether j still has blocks to read back.
func (j *job) verifyPending() bool { return j.vfy != nil && j.vfy.pending() }
