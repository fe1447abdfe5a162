package engine

import "math/bits"

// The random map: which blocks of a file's region a pass of random I/O
// has done, as fio's axmap keeps it. A drawn block that is done moves to
// the next free one (wrapping to the region's start), and an I/O of
// several blocks is cut short at the first done block, so I/Os of
// variable size (bsrange, bssplit) never overlap and a pass covers the
// region exactly.
//
// The bitmap is kept in chunks allocated on first use, each with a count
// of its set bits: a full chunk is skipped in one step, and a small job
// on a large device pays for the blocks it touches, not for the device.

const (
	mapChunkBits  = 1 << 18 // blocks per chunk (32 KiB of bitmap)
	mapChunkWords = mapChunkBits / 64
)

// randMap is a bitmap over n blocks.
type randMap struct {
	n      uint64
	chunks [][]uint64 // nil until a block in the chunk is set
	used   []uint32   // set bits per chunk
	done   uint64     // set bits in all
}

func newRandMap(n uint64) *randMap {
	nc := (n + mapChunkBits - 1) / mapChunkBits
	return &randMap{n: n, chunks: make([][]uint64, nc), used: make([]uint32, nc)}
}

// full reports whether every block is done.
func (m *randMap) full() bool { return m.done >= m.n }

// reset clears the map for a new pass, keeping its memory.
func (m *randMap) reset() {
	for i, c := range m.chunks {
		clear(c)
		m.used[i] = 0
	}
	m.done = 0
}

func (m *randMap) isSet(b uint64) bool {
	c := m.chunks[b/mapChunkBits]
	if c == nil {
		return false
	}
	i := b % mapChunkBits
	return c[i/64]&(1<<(i%64)) != 0
}

// setRun marks up to nr blocks from b as done, stopping before the first
// block already done or the end of the region, and returns how many it
// marked.
func (m *randMap) setRun(b, nr uint64) uint64 {
	var k uint64
	for ; k < nr && b+k < m.n && !m.isSet(b+k); k++ {
		x := b + k
		ci := x / mapChunkBits
		if m.chunks[ci] == nil {
			m.chunks[ci] = make([]uint64, mapChunkWords)
		}
		i := x % mapChunkBits
		m.chunks[ci][i/64] |= 1 << (i % 64)
		m.used[ci]++
		m.done++
	}
	return k
}

// nextFree returns the first block at or after b that is not done,
// wrapping to block 0; false when every block is done.
func (m *randMap) nextFree(b uint64) (uint64, bool) {
	if m.full() {
		return 0, false
	}
	if f, ok := m.freeFrom(b, m.n); ok {
		return f, true
	}
	return m.freeFrom(0, b)
}

// freeFrom finds a free block in [b, end).
func (m *randMap) freeFrom(b, end uint64) (uint64, bool) {
	for b < end {
		ci := b / mapChunkBits
		chunkEnd := min((ci+1)*mapChunkBits, end)
		c := m.chunks[ci]
		switch {
		case c == nil:
			return b, true
		case m.used[ci] == mapChunkBits:
		default:
			for x := b; x < chunkEnd; {
				i := x % mapChunkBits
				w := ^c[i/64] >> (i % 64) // free bits from x on, in this word
				if w != 0 {
					if f := x + uint64(bits.TrailingZeros64(w)); f < chunkEnd {
						return f, true
					}
					break
				}
				x += 64 - i%64
			}
		}
		b = chunkEnd
	}
	return 0, false
}
