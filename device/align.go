package device

import "unsafe"

// DirectAlign is the alignment, in bytes, of the buffers AlignedBuffer
// returns and that File requires of O_DIRECT buffers before it copies
// through an aligned one of its own: 4096, the page size and the largest
// logical block size in common use, so a buffer aligned to it suits any
// disk.
const DirectAlign = 4096

// AlignedBuffer returns a zeroed buffer of n bytes whose first byte sits at
// a multiple of DirectAlign, as O_DIRECT wants. Go's heap does not move
// objects, so the alignment holds for the buffer's life.
func AlignedBuffer(n int) []byte {
	if n <= 0 {
		return []byte{}
	}
	b := make([]byte, n+DirectAlign-1)
	off := 0
	if r := int(uintptr(unsafe.Pointer(unsafe.SliceData(b))) % DirectAlign); r != 0 {
		off = DirectAlign - r
	}
	return b[off : off+n : off+n]
}

// aligned reports whether b starts at a multiple of DirectAlign.
func aligned(b []byte) bool {
	return len(b) == 0 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%DirectAlign == 0
}
