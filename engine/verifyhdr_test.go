package engine

import (
	"bytes"
	"testing"
)

// TestFioChecksums pins blkq's versions of fio's checksums to known
// values: table entries fio's crc/ sources list, xxHash32's published
// vectors, and a header that round-trips with its CRC.
func TestFioChecksums(t *testing.T) {
	if crc64Table[1] != 0x7ad870c830358979 || crc64Table[255] != 0x29b7d047efec8728 {
		t.Errorf("crc64 table %x %x", crc64Table[1], crc64Table[255])
	}
	if crc16Table[1] != 0xC0C1 || crc16Table[255] != 0x4040 {
		t.Errorf("crc16 table %x %x", crc16Table[1], crc16Table[255])
	}
	if crc7Table[1] != 0x09 || crc7Table[2] != 0x12 || crc7Table[3] != 0x1b {
		t.Errorf("crc7 table %x %x %x", crc7Table[1], crc7Table[2], crc7Table[3])
	}
	if crc32MSB[1] != 0x04C11DB7 {
		t.Errorf("crc32 table %x", crc32MSB[1])
	}
	// CRC-32C of "123456789" is e3069283; fio's leaves it uninverted.
	if got := crc32cFio([]byte("123456789")); got != ^uint32(0xe3069283) {
		t.Errorf("crc32c %x", got)
	}
	if got := xxh32(nil, 0); got != 0x02CC5D05 {
		t.Errorf("xxh32 empty %x", got)
	}
	if got := xxh32([]byte("abc"), 0); got != 0x32D153FF {
		t.Errorf("xxh32 abc %x", got)
	}
	b := make([]byte, 64)
	h := vheader{magic: hdrMagic, vtype: 5, length: 4096, seed: 7, offset: 8192, numberio: 3, thread: 1}
	h.put(b)
	g := getHeader(b)
	if g != h || g.crc != crc32cFio(b[:36]) {
		t.Errorf("header %+v, want %+v", g, h)
	}
}

// TestVerifyBlockRoundTrip: a block blkq fills checks clean, and one
// flipped byte anywhere in it is found, for every method (those
// without a checksum with a verify_pattern).
func TestVerifyBlockRoundTrip(t *testing.T) {
	for name, vt := range vtypes {
		if vt.id == vtypes["null"].id {
			continue
		}
		v := &verifier{t: vt, interval: 1024, thread: 1, numCheck: true}
		if vt.noHeader || vt.sum == nil {
			v.pattern = []byte{0xde, 0xad, 0, 0, 0, 0, 0, 0, 0, 0, 0xbe}
			v.patOffs = []int{2}
		}
		p := &vpiece{off: 1 << 20, length: 4096, seed: 99, numberio: 5}
		buf := make([]byte, 4096)
		v.fill(buf, p, 12345)
		if err := v.checkNamed(buf, p, "dev"); err != nil {
			t.Fatalf("%s: clean block fails: %v", name, err)
		}
		for _, at := range []int{0, 39, 41, 1000, 1024 + 60, 4095} {
			bad := bytes.Clone(buf)
			bad[at] ^= 1
			if err := v.checkNamed(bad, p, "dev"); err == nil {
				t.Errorf("%s: byte %d flipped, not found", name, at)
			}
		}
	}
}
