package engine

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/workload/fio"
)

// What a job's writes hold on a file: its buffer options as fio 3.33
// fills buffers (fill_io_buffer in io_u.c, the seeds of lib/rand.c and
// dedupe.c, read for behaviour; the generator is blkq's own).
//
// A job without buffer options writes random bytes, and fio keeps them
// from repeating (scramble_buffers, or refill_buffers): blkq writes the
// run's data-check pattern there (data.go), unique to each sector and
// checked after the run. Everything else is this file's: buffer_pattern
// (repeated from each buffer's start), zero_buffers, and the chunked
// buffers of buffer_compress_percentage and dedupe_percentage, each chunk
// of buffer_compress_chunk bytes (at most the smallest write) random for
// (100 - compress)% and then zeros or the pattern. Each chunk's random
// bytes come from a seed, the next of the job's stream; a dedupe buffer
// takes its chunks' seeds from elsewhere, so its bytes repeat another
// buffer's: with dedupe_mode=repeat, from where the stream stands (fio
// 3.33's repeat copies its state after the last unique buffer, so a
// dedupe buffer is the same as the next unique one, and runs of them are
// the same as one another); with working_set, from one of the first
// dedupe_working_set_percentage% of the job's unique buffers (with
// dedupe_global, the working set is made of every job's first buffers in
// turn, so one job's dedupe buffers repeat another's). A job that does
// not refill fills each of its iodepth buffers once when it starts and
// writes them again and again (in turn), scrambled per 512-byte block
// with the offset and time unless it compresses, dedupes or verifies; a
// job that refills fills them once too, as fio does, which moves its
// stream on (the first buffers of a working set are never written).
//
// Sectors this file fills are not the data check's: the check forgets
// them once written (job.done). Tests compare the bytes a run leaves in
// the file with fio's (bufdata_test.go).

// writeData is a job's write content; nil for the data-check pattern.
type writeData struct {
	opt      fio.DataFill
	chunk    int    // bytes per chunk (compression, dedupe)
	scramble bool   // small_content_scramble of buffers that are not refilled
	key      uint64 // the job's stream
	pos      uint64 // seeds of the stream used by unique buffers so far
	dedupe   *rand.Rand
	ws       workingSet
	static   []fillPlan // not refilled: the job's buffers, filled once, written in turn
	turn     int        // the static buffer the next write uses
}

// fillPlan is what one write's buffer holds, decided on the executor
// when the write is prepared: chunk i's seed is seed(key, pos+i) (every
// chunk's seed(key, pos) when same); at is the time for scrambling.
type fillPlan struct {
	key, pos uint64
	same     bool
	at       blkq.Time
}

// workingSet is dedupe_mode=working_set's pages: page i is unique buffer
// k of job t, whose chunks start at seed k*adv of t's stream.
type workingSet struct {
	pages, perSeed int64
	adv            uint64 // seeds per page: the smallest write over the chunk size, as fio advances them
	own, jobs      int
	global         bool
}

// bufferKey is job t's stream of seeds: any job can name another's, for
// dedupe_global.
func (r *runner) bufferKey(t int) uint64 {
	return r.rng.Split(fmt.Sprintf("buffers %d", t)).Uint64()
}

// newWriteData returns j's write content, or nil when j writes the data
// check's pattern (plain random bytes that do not repeat) or fio's
// verify blocks (verify.go). Called once the jobs are planned, on a file.
func (r *runner) newWriteData(j *job) *writeData {
	spec := j.spec
	d := spec.Data()
	verifies := spec.VerifyEnabled()
	if verifies && spec.Verify != "null" || !spec.RW.Writes() {
		return nil
	}
	scramble := d.Scramble && !verifies && !d.Refill
	if d.Random() && (d.Refill || scramble) {
		return nil
	}
	minW, _ := bsBounds(spec, fio.DirWrite)
	c := minW
	if d.Chunk > 0 {
		c = min(c, d.Chunk)
	}
	w := &writeData{opt: d, chunk: int(c), scramble: scramble, key: r.bufferKey(j.index),
		dedupe: r.rng.Split(fmt.Sprintf("dedupe %d", j.index)).Rand()}
	if d.DedupePercentage > 0 && d.WorkingSet {
		var size int64
		for _, f := range j.gen.files {
			size += f.size
		}
		pages := max(size*int64(d.WorkingSetPercent)/100/minW, 1)
		w.ws = workingSet{pages: pages, perSeed: max(pages/int64(len(r.jobs)), 1), adv: uint64(max(minW/c, 1)),
			own: j.index, jobs: len(r.jobs), global: d.Global}
	}
	// fio fills each of its iodepth buffers once, at its largest, as the
	// job starts (init_io_u_buffers), even when it refills them for each
	// write: the fills take the first seeds (and dedupe draws), and
	// dedupe's working set, drawn before, names buffers never written.
	maxBS := int64(0)
	for dir := range 3 {
		_, hi := bsBounds(spec, dir)
		maxBS = max(maxBS, hi)
	}
	for range max(spec.IODepth, 1) {
		if p := w.plan(r, maxBS); !d.Refill && len(w.static) < j.depth {
			w.static = append(w.static, p)
		}
	}
	return w
}

// next returns the plan of a write of n bytes at time now.
func (w *writeData) next(r *runner, n int64, now blkq.Time) fillPlan {
	var p fillPlan
	if w.static != nil {
		p = w.static[w.turn]
		w.turn = (w.turn + 1) % len(w.static)
	} else {
		p = w.plan(r, n)
	}
	p.at = now
	return p
}

// plan fills a buffer of n bytes anew: a unique one, or with dedupe
// percentage% of the time one that repeats another (get_buf_state).
func (w *writeData) plan(r *runner, n int64) fillPlan {
	d := w.opt
	if !d.Mixed() {
		p := fillPlan{key: w.key, pos: w.pos}
		w.pos++ // one seed per buffer
		return p
	}
	switch {
	case d.DedupePercentage == 100:
		return fillPlan{key: w.key, pos: w.pos, same: true} // every chunk of every buffer alike
	case d.DedupePercentage > 0 && w.dedupe.IntN(100) < d.DedupePercentage:
		if d.WorkingSet {
			return w.ws.page(r, w.dedupe.Int64N(w.ws.pages))
		}
		return fillPlan{key: w.key, pos: w.pos} // what the next unique buffer will hold
	}
	p := fillPlan{key: w.key, pos: w.pos}
	w.pos += uint64((n + int64(w.chunk) - 1) / int64(w.chunk))
	return p
}

// page returns working-set page i's plan (init_dedupe_working_set_seeds).
func (ws workingSet) page(r *runner, i int64) fillPlan {
	t, k := ws.own, i
	if ws.global {
		g := i / ws.perSeed
		t, k = int((int64(ws.own)+g)%int64(ws.jobs)), i-g*ws.perSeed
	}
	key := r.bufferKey(t)
	return fillPlan{key: key, pos: uint64(k) * ws.adv}
}

// fill writes plan p into buf, the buffer of a write at device byte off.
// It reads only w's fixed configuration: it may run off the executor (a
// buffered write fills when its cache slot comes, bufpool.go).
func (w *writeData) fill(buf []byte, off int64, p fillPlan) {
	d := w.opt
	switch {
	case d.Mixed():
		for i, at := uint64(0), 0; at < len(buf); i, at = i+1, at+w.chunk {
			s := p.pos + i
			if p.same {
				s = p.pos
			}
			fillPercentage(buf[at:min(at+w.chunk, len(buf))], seedAt(p.key, s), d.CompressPercentage, d.Pattern)
		}
	case d.Pattern != nil:
		repeatPattern(buf, d.Pattern)
	case d.Zero:
		clear(buf)
	default:
		fillXorshift(buf, seedAt(p.key, p.pos))
	}
	if w.scramble {
		scramble(buf, off, p.at)
	}
}

// seedAt is seed i of stream key.
func seedAt(key, i uint64) uint64 {
	var g rand.PCG
	g.Seed(key, i)
	return g.Uint64()
}

// fillPercentage fills a chunk as fio's __fill_random_buf_percentage does
// with the chunk as its segment: (100 - compress)% random bytes from
// seed, then the pattern (from its start) or zeros.
func fillPercentage(b []byte, seed uint64, compress int, pattern []byte) {
	n := len(b) * (100 - compress) / 100
	fillXorshift(b[:n], seed)
	if pattern != nil {
		repeatPattern(b[n:], pattern)
	} else {
		clear(b[n:])
	}
}

// fillXorshift fills b with a xorshift64 stream from seed: random bytes
// that do not compress.
func fillXorshift(b []byte, seed uint64) {
	x := seed | 1
	var w [8]byte
	for i := 0; i < len(b); i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		binary.LittleEndian.PutUint64(w[:], x)
		copy(b[i:], w[:])
	}
}

// repeatPattern repeats pat over b from b's start (fio's cpy_pattern).
func repeatPattern(b, pat []byte) {
	for i := 0; i < len(b); i += len(pat) {
		copy(b[i:], pat)
	}
}

// scramble writes, into each 512-byte block of a buffer at device byte
// off, the block's offset at one of its first eight 64-byte lines (the
// same one for the whole buffer, chosen from the time and the offset)
// and the time, seconds and nanoseconds, in its bytes 48 to 63, as fio's
// small_content_scramble does, so that buffers written again do not
// repeat.
func scramble(buf []byte, off int64, at blkq.Time) {
	sec, nsec := uint64(at/1e9), uint64(at%1e9)
	line := int((nsec ^ uint64(off)) & 7)
	for i := 0; i+blkq.SectorSize <= len(buf); i += blkq.SectorSize {
		b := buf[i:]
		binary.LittleEndian.PutUint64(b[line<<6:], uint64(off)+uint64(i))
		binary.LittleEndian.PutUint64(b[48:], sec)
		binary.LittleEndian.PutUint64(b[56:], nsec)
	}
}
