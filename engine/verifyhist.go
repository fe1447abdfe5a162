package engine

import "math"

// The verify history's memory. A write job with verify= keeps every block
// whose write completed until it reads it back, which for a job that
// writes its whole device before reading (basic-verify.fio) is every block
// of the device at once: what a block costs there is what the job costs.
// A block is a 24-byte record in a queue of fixed-size chunks (vhistory),
// plus a 4-byte slot in a table by offset (vlatest) that says which record
// of an offset is its latest write: about 28 bytes a block, where pieces
// by pointer, a map by offset and a slice of pointers took about 140.

// vrec is a block in the history: a vpiece packed into 24 bytes.
type vrec struct {
	off      int64
	seed     uint64
	lenLo    uint32 // the length's low 32 bits
	numberio uint16
	lenHi    uint16 // its bits 32 to 47
}

func packPiece(p *vpiece) vrec {
	return vrec{off: p.off, seed: p.seed, lenLo: uint32(p.length), lenHi: uint16(p.length >> 32), numberio: p.numberio}
}

func (r *vrec) piece() vpiece {
	return vpiece{off: r.off, length: int64(r.lenHi)<<32 | int64(r.lenLo), seed: r.seed, numberio: r.numberio}
}

// histChunk is the number of records in one chunk of the history.
const histChunk = 1 << 10

// vhistory is the queue of blocks to read back, in the order their writes
// completed, in chunks of histChunk records: it grows by a chunk at a
// time, without copying what it holds (an array that doubles holds twice
// what it needs once it has doubled), and a chunk read through is kept
// for the next one needed.
type vhistory struct {
	chunks []*[histChunk]vrec
	head   int    // the first record's index in chunks[0]
	tail   int    // the end of the records in the last chunk
	pushed uint64 // records pushed so far: the next one's sequence number
	taken  uint64 // records taken so far: the next one taken is number taken
	free   *[histChunk]vrec
}

// len is the number of records queued.
func (h *vhistory) len() int { return int(h.pushed - h.taken) }

// push appends r and returns its sequence number.
func (h *vhistory) push(r vrec) uint64 {
	if len(h.chunks) == 0 || h.tail == histChunk {
		c := h.free
		if c == nil {
			c = new([histChunk]vrec)
		}
		h.free = nil
		h.chunks = append(h.chunks, c)
		h.tail = 0
	}
	h.chunks[len(h.chunks)-1][h.tail] = r
	h.tail++
	h.pushed++
	return h.pushed - 1
}

// take removes the first record and returns it with its sequence number;
// ok false if the queue is empty.
func (h *vhistory) take() (r vrec, seq uint64, ok bool) {
	if h.pushed == h.taken {
		return vrec{}, 0, false
	}
	r = h.chunks[0][h.head]
	seq = h.taken
	h.taken++
	h.head++
	switch {
	case h.pushed == h.taken:
		// Empty: start again at the front of the chunk left.
		for len(h.chunks) > 1 {
			h.dropFirst()
		}
		h.head, h.tail = 0, 0
	case h.head == histChunk:
		h.dropFirst()
		h.head = 0
	}
	return r, seq, true
}

// dropFirst removes chunks[0], keeping it for the next push.
func (h *vhistory) dropFirst() {
	h.free = h.chunks[0]
	n := copy(h.chunks, h.chunks[1:])
	h.chunks[n] = nil
	h.chunks = h.chunks[:n]
}

// reset empties the queue and lets its memory go.
func (h *vhistory) reset() {
	*h = vhistory{pushed: h.pushed, taken: h.pushed}
}

// vlatest says which history record of each offset is its latest write:
// a record taken that is not is an overwritten block, not read back. It
// keeps the low 32 bits of the record's sequence number: two records of
// one offset four billion pushes apart, both still queued, would be needed
// to confuse it, a history of 96 GiB. Nothing needs clearing when a record
// is taken: records leave in the order they came, so once an offset's
// latest one is taken, none of that offset is left until it is written
// again.
//
// Offsets that are a multiple of unit within [lo, lo+len(table)*unit) have
// a slot in table, made on the first write; the others (a job whose block
// sizes or offsets do not fit, or whose range is too big for a table by
// the blocks it writes) are in the map.
type vlatest struct {
	lo      int64
	unit    int64
	shift   uint // log2(unit) if it is a power of two, else 0 and a division
	slots   int64
	table   []uint32
	byOther map[int64]uint32
}

// newVLatest makes the index for offsets in [lo, hi), writes of unit
// bytes or multiples, and expect blocks written (0: not known).
func newVLatest(lo, hi, unit, expect int64) vlatest {
	l := vlatest{byOther: map[int64]uint32{}}
	if unit <= 0 || hi <= lo || lo < 0 {
		return l
	}
	slots := (hi - lo) / unit
	// A table pays for itself when the job writes a good part of its
	// range (untouched pages of it cost no memory, but a sparse job
	// would touch a page per block); small ranges always.
	if slots > 1<<20 && (expect <= 0 || slots > 2*expect) || slots > math.MaxInt32 {
		return l
	}
	l.lo, l.unit, l.slots = lo, unit, slots
	if unit&(unit-1) == 0 {
		for unit > 1 {
			unit >>= 1
			l.shift++
		}
	}
	return l
}

// slot returns off's slot in the table, or -1.
func (l *vlatest) slot(off int64) int64 {
	if l.slots == 0 || off < l.lo {
		return -1
	}
	d := off - l.lo
	var s int64
	if l.shift > 0 || l.unit == 1 {
		if d&(l.unit-1) != 0 {
			return -1
		}
		s = d >> l.shift
	} else {
		if d%l.unit != 0 {
			return -1
		}
		s = d / l.unit
	}
	if s >= l.slots {
		return -1
	}
	return s
}

// set makes seq the latest write of off.
func (l *vlatest) set(off int64, seq uint64) {
	if s := l.slot(off); s >= 0 {
		if l.table == nil {
			l.table = make([]uint32, l.slots)
		}
		l.table[s] = uint32(seq)
		return
	}
	l.byOther[off] = uint32(seq)
}

// latest reports whether record seq is the latest write of off, as it is
// taken; a map entry goes with it.
func (l *vlatest) latest(off int64, seq uint64) bool {
	if s := l.slot(off); s >= 0 {
		return l.table[s] == uint32(seq)
	}
	if v, ok := l.byOther[off]; ok && v == uint32(seq) {
		delete(l.byOther, off)
		return true
	}
	return false
}

// reset forgets every offset.
func (l *vlatest) reset() {
	l.table = nil
	clear(l.byOther)
}
