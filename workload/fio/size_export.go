package fio

import (
	"strings"
	"time"
)

// ParseSize reads a size for one of blkq's own flags (--size-cap, bench
// --size) in fio's notation under the default kb_base=1024 ("64m", "4k",
// "1g", "0x1000", "(2*4k)"), in bytes. Unlike a job file's value, which is
// read as fio reads it whatever follows the unit (fioDecimal), a flag's
// must be a number and a unit and nothing else: "12x" or "1.5g" is an
// error, not 12 or 1 bytes, and "0x10k" is 16 KiB.
func ParseSize(s string) (int64, error) {
	v := strings.TrimSpace(s)
	if v == "" || v[0] == '(' {
		return parseSize(s, 1024)
	}
	neg, digits, rest, hex := splitNumber(v)
	if digits == "" {
		return 0, badValue("bad size", s, "not a number")
	}
	if neg {
		return 0, badValue("bad size", s, "negative")
	}
	n, err := parseDigits(digits, hex)
	if err != nil {
		return 0, badValue("bad size", s, "too large")
	}
	m, why := sizeMult(rest, 1024)
	if why != "" {
		return 0, badValue("bad size", s, "%s", why)
	}
	if n, err = mulChecked(n, m); err != nil {
		return 0, badValue("bad size", s, "too large")
	}
	return n, nil
}

// ParseTime reads a time as fio's command line does for
// --status-interval ("1", "500ms", "2m"; a bare number is seconds).
func ParseTime(s string) (time.Duration, error) { return parseDuration(s, time.Second) }
