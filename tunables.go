package blkq

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"syscall"
)

// Tunables are described as data: one table entry per file of
// /sys/block/<dev>/queue/ (attrs.go) or of its iosched/ directory (each
// scheduler's file), with its unit, bounds, default and where the default
// comes from. The same entry reads and writes the value (Attr, SetAttr),
// lists it (Attrs) and is checked against docs/linux-block-layer.md, so
// the three cannot disagree.

// tunableInfo is what a reader of the docs needs to know about a tunable.
type tunableInfo struct {
	name   string // as in sysfs
	unit   string
	lo, hi int64  // bounds of a number (see parse); 0, 0 for text
	def    string // the value on a new queue, as Attr shows it
	source string // where the default comes from
	doc    string
}

// A tunable of T (*Queue or an elevator) is read by get and written by set
// (a number, parsed by parse against lo..hi) or by setText (text); with
// neither it is read-only (EACCES).
type tunable[T any] struct {
	tunableInfo
	get     func(T) string
	parse   func(value string, lo, hi int64) (int64, error)
	set     func(T, int64) error
	setText func(T, string) error
}

// errNoAttr is the error for a tunable the queue or its elevator does not
// have. It wraps ENOENT, as opening a missing sysfs file fails.
var errNoAttr error = &errnoError{"no such attribute", syscall.ENOENT}

func tunableNames[T any](tab []tunable[T]) []string {
	names := make([]string, len(tab))
	for i := range tab {
		names[i] = tab[i].name
	}
	return names
}

func findTunable[T any](tab []tunable[T], name string) *tunable[T] {
	for i := range tab {
		if tab[i].name == name {
			return &tab[i]
		}
	}
	return nil
}

func readTunable[T any](tab []tunable[T], x T, name string) (string, error) {
	t := findTunable(tab, name)
	if t == nil {
		return "", errNoAttr
	}
	return t.get(x), nil
}

// writeTunable writes value (spaces trimmed) to x's tunable name. A
// refused write changes nothing; the error wraps the errno.
func writeTunable[T any](tab []tunable[T], x T, name, value string) error {
	t := findTunable(tab, name)
	switch {
	case t == nil:
		return errNoAttr
	case t.setText != nil:
		return t.setText(x, strings.TrimSpace(value))
	case t.set == nil:
		return fmt.Errorf("%w (read-only)", syscall.EACCES)
	}
	n, err := t.parse(strings.TrimSpace(value), t.lo, t.hi)
	if err != nil {
		return err
	}
	return t.set(x, n)
}

// parseSysfsNumber parses a queue tunable as queue_var_store does:
// decimal, an optional leading '+', at most UINT_MAX (4294967295), else
// EINVAL. The bounds are the setter's to apply (Linux clamps some and
// refuses others).
func parseSysfsNumber(s string, _, _ int64) (int64, error) {
	n, err := strconv.ParseUint(strings.TrimPrefix(s, "+"), 10, 64)
	if err != nil || n > math.MaxUint32 || s == "+" {
		return 0, fmt.Errorf("%w (want a decimal integer 0..4294967295)", syscall.EINVAL)
	}
	return int64(n), nil
}

// parseInt32 parses a 32-bit int as kstrtoint does (a sign is allowed):
// EINVAL if it is not a number, ERANGE if it does not fit.
func parseInt32(s string) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%w (want an int: %d..%d)", syscall.ERANGE, math.MinInt32, math.MaxInt32)
		}
		return 0, fmt.Errorf("%w (want a decimal integer)", syscall.EINVAL)
	}
	return v, nil
}

// parseInt32Clamped is parseInt32 clamped to lo..hi (mq-deadline's
// STORE_INT and STORE_JIFFIES).
func parseInt32Clamped(s string, lo, hi int64) (int64, error) {
	v, err := parseInt32(s)
	return min(max(v, lo), hi), err
}

// parseInt32Bounded is parseInt32 with a value outside lo..hi refused
// (EINVAL), as elvtune's ioctl refused negative values.
func parseInt32Bounded(s string, lo, hi int64) (int64, error) {
	v, err := parseInt32(s)
	if err == nil && (v < lo || v > hi) {
		err = fmt.Errorf("%w (want %d..%d)", syscall.EINVAL, lo, hi)
	}
	return v, err
}
