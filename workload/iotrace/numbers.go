package iotrace

import (
	"math"
	"strconv"
	"time"

	"github.com/blkq-dev/blkq"
)

// maxStreamID bounds PID-like numbers (pids, device, disk and ASU numbers).
const maxStreamID = math.MaxInt32

// parseUint parses a non-negative decimal integer; field names it in errors.
func parseUint(field, s string) (uint64, error) {
	if s == "" {
		return 0, badField(field, "missing")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, badField(field, "invalid number %q", s)
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, badField(field, "number %q out of range", s)
	}
	return v, nil
}

// parseID parses a pid, device, disk or ASU number.
func parseID(field, s string) (int, error) {
	v, err := parseUint(field, s)
	if err != nil {
		return 0, err
	}
	if v > maxStreamID {
		return 0, badField(field, "%s is larger than %d", s, maxStreamID)
	}
	return int(v), nil
}

// parseDuration parses a non-negative decimal "123" or "123.456" counted in
// unit and returns it in nanoseconds, truncating digits finer than 1 ns.
// unit must be a power of ten nanoseconds for the fraction to be exact.
func parseDuration(field, s string, unit time.Duration) (time.Duration, error) {
	intPart, frac := s, ""
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			intPart, frac = s[:i], s[i+1:]
			if frac == "" {
				return 0, badField(field, "invalid number %q", s)
			}
			break
		}
	}
	if intPart == "" {
		return 0, badField(field, "invalid number %q", s)
	}
	whole, err := parseUint(field, intPart)
	if err != nil {
		return 0, badField(field, "invalid number %q", s)
	}
	if whole > uint64(math.MaxInt64/unit) {
		return 0, badField(field, "time %q out of range", s)
	}
	d := time.Duration(whole) * unit
	scale := unit
	for i := 0; i < len(frac); i++ {
		c := frac[i]
		if c < '0' || c > '9' {
			return 0, badField(field, "invalid number %q", s)
		}
		scale /= 10
		if add := time.Duration(c-'0') * scale; d > math.MaxInt64-add {
			return 0, badField(field, "time %q out of range", s)
		} else {
			d += add
		}
	}
	return d, nil
}

// sectorRange converts a byte range to the 512-byte sectors that cover it:
// the start rounds down, the end rounds up. A zero length is an error;
// lenField names the length in errors.
func sectorRange(lenField string, off, n uint64) (uint64, uint32, error) {
	if n == 0 {
		return 0, 0, badField(lenField, "zero-length I/O")
	}
	if off > math.MaxUint64-n {
		return 0, 0, badField(lenField, "range %d+%d overflows", off, n)
	}
	first := off / blkq.SectorSize
	end := (off + n) / blkq.SectorSize
	if (off+n)%blkq.SectorSize != 0 {
		end++
	}
	count := end - first
	if count > math.MaxUint32 {
		return 0, 0, badField(lenField, "%d bytes is more than %d sectors", n, uint32(math.MaxUint32))
	}
	return first, uint32(count), nil
}

// sectorCount checks a length given in sectors and the range it makes.
func sectorCount(lenField string, sector, n uint64) (uint32, error) {
	if n == 0 {
		return 0, badField(lenField, "zero-length I/O")
	}
	if n > math.MaxUint32 {
		return 0, badField(lenField, "%d sectors is more than %d", n, uint32(math.MaxUint32))
	}
	if sector > math.MaxUint64-n {
		return 0, badField(lenField, "range %d+%d overflows", sector, n)
	}
	return uint32(n), nil
}
