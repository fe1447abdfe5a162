package engine

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha3"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/bits"
)

// fio 3.33's verify block format, so that fio checks what blkq wrote and
// blkq what fio wrote (fio's verify.h and crc/, read for behaviour).
//
// Each verify interval of a written block starts with a 40-byte header,
// little-endian: magic 0xacca (u16), verify type (u16), interval length
// (u32), rand seed (u64), offset of the interval on the file (u64), time
// (u32 s, u32 ns), thread number (u16), numberio (u16, the job's writes
// issued before this one), and the CRC32C of the 36 bytes before it
// (u32). The type's checksum of the rest of the interval follows; then
// the data. Some of fio's checksums are not the textbook ones, and blkq
// computes them as fio does: its crc32c has no final inversion, its crc32
// is the MSB-first 0x04C11DB7 with zero start, its crc64 the reflected
// 0x95AC9329AC4BC9B5 with zero start, and its sha256 appends the length
// little-endian and stores the low byte of each state word over the
// start of the last block it compressed (64 bytes in all). fio 3.33's
// sha512 stores no digest (the hash is never finished), so blkq refuses
// it rather than pretend.

// hdrMagic is fio's FIO_HDR_MAGIC.
const hdrMagic = 0xacca

// hdrLen is the size of fio's struct verify_header.
const hdrLen = 40

// vtype is one verify= method: fio's number for it and its checksum.
type vtype struct {
	name string
	id   uint16 // fio's enum value, stored in each header
	size int    // bytes of checksum after the header
	sum  func(dst, data []byte)
	// noHeader: no header at all (verify=pattern).
	noHeader bool
}

// vtypes are fio 3.33's verify methods, by verify= name (fio's enum order).
var vtypes = map[string]*vtype{
	"meta":         {name: "meta", id: 1},
	"md5":          {name: "md5", id: 2, size: 16, sum: func(d, p []byte) { s := md5.Sum(p); copy(d, s[:]) }},
	"crc64":        {name: "crc64", id: 3, size: 8, sum: func(d, p []byte) { binary.LittleEndian.PutUint64(d, crc64Fio(p)) }},
	"crc32":        {name: "crc32", id: 4, size: 4, sum: func(d, p []byte) { binary.LittleEndian.PutUint32(d, crc32Fio(p)) }},
	"crc32c":       {name: "crc32c", id: 5, size: 4, sum: func(d, p []byte) { binary.LittleEndian.PutUint32(d, crc32cFio(p)) }},
	"crc32c-intel": {name: "crc32c", id: 6, size: 4, sum: func(d, p []byte) { binary.LittleEndian.PutUint32(d, crc32cFio(p)) }},
	"crc16":        {name: "crc16", id: 7, size: 2, sum: func(d, p []byte) { binary.LittleEndian.PutUint16(d, crc16Fio(p)) }},
	"crc7":         {name: "crc7", id: 8, size: 1, sum: func(d, p []byte) { d[0] = crc7Fio(p) }},
	"sha256":       {name: "sha256", id: 9, size: 64, sum: sha256Fio},
	"sha3-224":     {name: "sha3-224", id: 11, size: 28, sum: func(d, p []byte) { s := sha3.Sum224(p); copy(d, s[:]) }},
	"sha3-256":     {name: "sha3-256", id: 12, size: 32, sum: func(d, p []byte) { s := sha3.Sum256(p); copy(d, s[:]) }},
	"sha3-384":     {name: "sha3-384", id: 13, size: 48, sum: func(d, p []byte) { s := sha3.Sum384(p); copy(d, s[:]) }},
	"sha3-512":     {name: "sha3-512", id: 14, size: 64, sum: func(d, p []byte) { s := sha3.Sum512(p); copy(d, s[:]) }},
	"xxhash":       {name: "xxhash", id: 15, size: 4, sum: func(d, p []byte) { binary.LittleEndian.PutUint32(d, xxh32(p, 1)) }},
	"sha1":         {name: "sha1", id: 16, size: 20, sum: sha1Fio},
	"pattern_hdr":  {name: "pattern", id: 17},                 // fio's VERIFY_PATTERN: verify_pattern without verify=, a header and the pattern
	"pattern":      {name: "pattern", id: 18, noHeader: true}, // fio's VERIFY_PATTERN_NO_HDR: the whole block is the pattern
	"null":         {name: "null", id: 19},
}

// vheader is a decoded verify header.
type vheader struct {
	magic, vtype     uint16
	length           uint32
	seed, offset     uint64
	sec, nsec        uint32
	thread, numberio uint16
	crc              uint32
}

func (h *vheader) put(b []byte) {
	le := binary.LittleEndian
	le.PutUint16(b[0:], h.magic)
	le.PutUint16(b[2:], h.vtype)
	le.PutUint32(b[4:], h.length)
	le.PutUint64(b[8:], h.seed)
	le.PutUint64(b[16:], h.offset)
	le.PutUint32(b[24:], h.sec)
	le.PutUint32(b[28:], h.nsec)
	le.PutUint16(b[32:], h.thread)
	le.PutUint16(b[34:], h.numberio)
	h.crc = crc32cFio(b[:36])
	le.PutUint32(b[36:], h.crc)
}

func getHeader(b []byte) vheader {
	le := binary.LittleEndian
	return vheader{magic: le.Uint16(b[0:]), vtype: le.Uint16(b[2:]), length: le.Uint32(b[4:]),
		seed: le.Uint64(b[8:]), offset: le.Uint64(b[16:]), sec: le.Uint32(b[24:]), nsec: le.Uint32(b[28:]),
		thread: le.Uint16(b[32:]), numberio: le.Uint16(b[34:]), crc: le.Uint32(b[36:])}
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// crc32cFio is fio's crc32c: CRC32C started at ~0, not inverted at the end.
func crc32cFio(p []byte) uint32 { return ^crc32.Checksum(p, castagnoli) }

var crc32MSB = func() (t [256]uint32) {
	for i := range t {
		c := uint32(i) << 24
		for range 8 {
			if c&(1<<31) != 0 {
				c = c<<1 ^ 0x04C11DB7
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return
}()

// crc32Fio is fio's crc32: MSB first, polynomial 0x04C11DB7, from 0.
func crc32Fio(p []byte) uint32 {
	var c uint32
	for _, b := range p {
		c = c<<8 ^ crc32MSB[byte(c>>24)^b]
	}
	return c
}

// reflectedTable is the table of a reflected CRC of polynomial poly
// (reflected form), width up to 64.
func reflectedTable(poly uint64) (t [256]uint64) {
	for i := range t {
		c := uint64(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ poly
			} else {
				c >>= 1
			}
		}
		t[i] = c
	}
	return
}

var crc64Table = reflectedTable(0x95AC9329AC4BC9B5)
var crc16Table = reflectedTable(0xA001)

// crc64Fio is fio's crc64: reflected, 0x95AC9329AC4BC9B5, from 0.
func crc64Fio(p []byte) uint64 {
	var c uint64
	for _, b := range p {
		c = crc64Table[byte(c)^b] ^ c>>8
	}
	return c
}

// crc16Fio is fio's crc16: CRC-16 0x8005 reflected, from 0.
func crc16Fio(p []byte) uint16 {
	var c uint16
	for _, b := range p {
		c = c>>8 ^ uint16(crc16Table[byte(c)^b])
	}
	return c
}

// crc7Table[i] is i·x^7 mod x^7+x^3+1.
var crc7Table = func() (t [256]byte) {
	for i := range t {
		r := uint16(i) << 7
		for bit := 14; bit >= 7; bit-- {
			if r&(1<<bit) != 0 {
				r ^= 0x89 << (bit - 7)
			}
		}
		t[i] = byte(r)
	}
	return
}()

// crc7Fio is fio's crc7 (the old Linux MMC crc7).
func crc7Fio(p []byte) byte {
	var c byte
	for _, b := range p {
		c = crc7Table[c<<1^b]
	}
	return c
}

var sha256K = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

// sha256Block compresses one 64-byte block into h (FIPS 180-4).
func sha256Block(h *[8]uint32, p []byte) {
	var w [64]uint32
	for i := range 16 {
		w[i] = binary.BigEndian.Uint32(p[4*i:])
	}
	for i := 16; i < 64; i++ {
		s0 := bits.RotateLeft32(w[i-15], -7) ^ bits.RotateLeft32(w[i-15], -18) ^ w[i-15]>>3
		s1 := bits.RotateLeft32(w[i-2], -17) ^ bits.RotateLeft32(w[i-2], -19) ^ w[i-2]>>10
		w[i] = w[i-16] + s0 + w[i-7] + s1
	}
	a, b, c, d, e, f, g, hh := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
	for i := range 64 {
		t1 := hh + (bits.RotateLeft32(e, -6) ^ bits.RotateLeft32(e, -11) ^ bits.RotateLeft32(e, -25)) + (e&f ^ ^e&g) + sha256K[i] + w[i]
		t2 := (bits.RotateLeft32(a, -2) ^ bits.RotateLeft32(a, -13) ^ bits.RotateLeft32(a, -22)) + (a&b ^ a&c ^ b&c)
		hh, g, f, e, d, c, b, a = g, f, e, d+t1, c, b, a, t1+t2
	}
	h[0] += a
	h[1] += b
	h[2] += c
	h[3] += d
	h[4] += e
	h[5] += f
	h[6] += g
	h[7] += hh
}

// sha256Fio is fio's sha256 "digest" of p into dst (64 bytes): see the
// top of the file.
func sha256Fio(dst, p []byte) {
	h := [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}
	full := len(p) &^ 63
	for i := 0; i < full; i += 64 {
		sha256Block(&h, p[i:i+64])
	}
	tail := append([]byte{}, p[full:]...)
	tail = append(tail, 0x80)
	for len(tail)%64 != 56 {
		tail = append(tail, 0)
	}
	tail = binary.LittleEndian.AppendUint64(tail, uint64(len(p))<<3&(1<<35-1)) // fio counts in a u32 of bytes
	for i := 0; i < len(tail); i += 64 {
		sha256Block(&h, tail[i:i+64])
	}
	copy(dst, tail[len(tail)-64:])
	for i := range h {
		dst[i] = byte(h[i])
	}
}

// sha1Fio is fio's sha1: the five state words in host (little-endian)
// order, where the standard digest has them big-endian.
func sha1Fio(dst, p []byte) {
	s := sha1.Sum(p)
	for i := 0; i < len(s); i += 4 {
		binary.LittleEndian.PutUint32(dst[i:], binary.BigEndian.Uint32(s[i:]))
	}
}

// xxh32 is the 32-bit xxHash of p with seed.
func xxh32(p []byte, seed uint32) uint32 {
	const p1, p2, p3, p4, p5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393
	le := binary.LittleEndian
	n := len(p)
	var h uint32
	round := func(acc, in uint32) uint32 { return bits.RotateLeft32(acc+in*p2, 13) * p1 }
	if n >= 16 {
		v1, v2, v3, v4 := seed+p1+p2, seed+p2, seed, seed-p1
		for len(p) >= 16 {
			v1 = round(v1, le.Uint32(p))
			v2 = round(v2, le.Uint32(p[4:]))
			v3 = round(v3, le.Uint32(p[8:]))
			v4 = round(v4, le.Uint32(p[12:]))
			p = p[16:]
		}
		h = bits.RotateLeft32(v1, 1) + bits.RotateLeft32(v2, 7) + bits.RotateLeft32(v3, 12) + bits.RotateLeft32(v4, 18)
	} else {
		h = seed + p5
	}
	h += uint32(n)
	for len(p) >= 4 {
		h = bits.RotateLeft32(h+le.Uint32(p)*p3, 17) * p4
		p = p[4:]
	}
	for _, b := range p {
		h = bits.RotateLeft32(h+uint32(b)*p5, 11) * p1
	}
	h ^= h >> 15
	h *= p2
	h ^= h >> 13
	h *= p3
	h ^= h >> 16
	return h
}

// vtypeOf returns the verify method of verify=name.
func vtypeOf(name string) (*vtype, error) {
	if name == "sha512" {
		return nil, fmt.Errorf("verify=sha512: fio 3.33 writes no digest for it (its sha512 is never finished), so there is nothing to check; use sha256 or sha3-512")
	}
	t, ok := vtypes[name]
	if !ok {
		return nil, fmt.Errorf("verify=%s: unknown method", name)
	}
	return t, nil
}
