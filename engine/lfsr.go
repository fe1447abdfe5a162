package engine

// random_generator=lfsr: a maximal-length linear feedback shift register
// walks a region's blocks, each exactly once per pass, with no random
// map. A register of w bits steps through every nonzero w-bit value once
// before it repeats (2^w − 1 states); state s stands for block s−1, and
// the states past the region's last block are stepped over.
//
// The tap positions are those of Xilinx application note XAPP052
// ("Efficient Shift Registers, LFSR Counters, and Long Pseudo-Random
// Sequence Generators", table 3), bits numbered from 1; the test steps
// the registers of up to 22 bits through their whole period.
var lfsrTaps = [...][]uint{
	3: {3, 2}, 4: {4, 3}, 5: {5, 3}, 6: {6, 5}, 7: {7, 6}, 8: {8, 6, 5, 4},
	9: {9, 5}, 10: {10, 7}, 11: {11, 9}, 12: {12, 6, 4, 1}, 13: {13, 4, 3, 1},
	14: {14, 5, 3, 1}, 15: {15, 14}, 16: {16, 15, 13, 4}, 17: {17, 14},
	18: {18, 11}, 19: {19, 6, 2, 1}, 20: {20, 17}, 21: {21, 19}, 22: {22, 21},
	23: {23, 18}, 24: {24, 23, 22, 17}, 25: {25, 22}, 26: {26, 6, 2, 1},
	27: {27, 5, 2, 1}, 28: {28, 25}, 29: {29, 27}, 30: {30, 6, 4, 1},
	31: {31, 28}, 32: {32, 22, 2, 1}, 33: {33, 20}, 34: {34, 27, 2, 1},
	35: {35, 33}, 36: {36, 25}, 37: {37, 5, 4, 3, 2, 1}, 38: {38, 6, 5, 1},
	39: {39, 35}, 40: {40, 38, 21, 19}, 41: {41, 38}, 42: {42, 41, 20, 19},
	43: {43, 42, 38, 37}, 44: {44, 43, 18, 17}, 45: {45, 44, 42, 41},
	46: {46, 45, 26, 25}, 47: {47, 42}, 48: {48, 47, 21, 20}, 49: {49, 40},
	50: {50, 49, 24, 23}, 51: {51, 50, 36, 35}, 52: {52, 49},
	53: {53, 52, 38, 37}, 54: {54, 53, 18, 17}, 55: {55, 31},
	56: {56, 55, 35, 34}, 57: {57, 50}, 58: {58, 39}, 59: {59, 58, 38, 37},
	60: {60, 59}, 61: {61, 60, 46, 45}, 62: {62, 61, 6, 5}, 63: {63, 62},
}

// lfsr visits the blocks [0, n) once each per pass, in the register's
// order from a seeded start.
type lfsr struct {
	n, width   uint64
	mask, taps uint64 // taps: bit t−1 set for each tap position t
	start, s   uint64 // the pass's first state and the current one
	left       uint64 // blocks still to visit this pass
}

// newLFSR returns a register over n ≥ 1 blocks starting at a state picked
// by seed.
func newLFSR(n, seed uint64) *lfsr {
	w := uint64(3)
	for w < 63 && (uint64(1)<<w)-1 < n {
		w++
	}
	l := &lfsr{n: n, width: w, mask: 1<<w - 1}
	for _, t := range lfsrTaps[w] {
		l.taps |= 1 << (t - 1)
	}
	l.start = 1 + seed%l.mask
	l.reset()
	return l
}

// reset starts a new pass, in the same order as the last (fio's lfsr
// repeats its sequence on each loop).
func (l *lfsr) reset() { l.s, l.left = l.start, l.n }

// step moves to the register's next state: the feedback bit, the parity
// of the tapped bits, enters at the bottom.
func (l *lfsr) step() {
	fb := uint64(parity(l.s & l.taps))
	l.s = (l.s<<1 | fb) & l.mask
}

func parity(x uint64) uint {
	x ^= x >> 32
	x ^= x >> 16
	x ^= x >> 8
	x ^= x >> 4
	x ^= x >> 2
	x ^= x >> 1
	return uint(x & 1)
}

// next returns the next block of the pass; false once all n are done.
func (l *lfsr) next() (uint64, bool) {
	if l.left == 0 {
		return 0, false
	}
	for {
		b := l.s - 1
		l.step()
		if b < l.n {
			l.left--
			return b, true
		}
	}
}
