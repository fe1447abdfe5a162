package fio

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Value syntax shared by fio options: sizes with unit suffixes, times,
// ranges, per-direction lists and bssplit. Every parser returns a
// *valueError naming the value on failure and never panics.

// maxSplitEntries is fio's limit on bssplit entries per direction.
const maxSplitEntries = 64

// parseDigits parses an unsigned decimal or hexadecimal digit string that
// must fit an int64.
func parseDigits(digits string, hex bool) (int64, error) {
	base := 10
	if hex {
		base = 16
	}
	n, err := strconv.ParseUint(digits, base, 63)
	if err != nil {
		return 0, errOverflow
	}
	return int64(n), nil
}

// sizeMult gives the multiplier of a size suffix, for size literals in
// expressions: k/m/g/t/p, optionally followed by "b" or "i", mean powers
// of kb_base; followed by "ib" they mean powers of the other base (fio
// 3.33, observed with Debian's binary: under the default kb_base=1024,
// 1m = 1mb = 1mi = 1048576 while 1mib = 1000000; kb_base=1000 swaps the
// two). Case does not matter.
func sizeMult(suffix string, kbBase int64) (int64, string) {
	s := strings.ToLower(suffix)
	if s == "" || s == "b" {
		return 1, ""
	}
	if s == "z" {
		return 0, zoneUnits
	}
	if s == "%" {
		return 0, "a percentage is not allowed here"
	}
	exp := strings.IndexByte("kmgtp", s[0]) + 1
	if exp == 0 {
		return 0, "unknown unit " + quote(suffix)
	}
	switch s[1:] {
	case "", "b", "i", "ib":
	default:
		return 0, "unknown unit " + quote(suffix)
	}
	return unitPower(exp, strings.HasPrefix(s[1:], "ib"), kbBase), ""
}

const zoneUnits = "zone units ('z') need zonemode=zbd, which blkq does not model"

// unitPower is kb_base (or, for the "ib" forms, the other base) to the
// power exp (1 for k ... 5 for p).
func unitPower(exp int, ib bool, kbBase int64) int64 {
	base := kbBase
	if ib {
		if kbBase == 1000 {
			base = 1024
		} else {
			base = 1000
		}
	}
	m := int64(1)
	for range exp {
		m *= base // at most 1024^5: no overflow
	}
	return m
}

// fioDecimal reads a number with a unit as fio 3.33 reads one
// (parse.c's str_to_decimal, read for behaviour), so that a value means
// here what it means to fio, whatever follows it:
//
//   - the number is the longest integer strtoll takes from the start:
//     an optional sign and decimal digits, or hexadecimal ones (with or
//     without 0x) when the text holds "0x" anywhere;
//   - the unit is read after the leading sign and decimal digits, if a
//     letter or '%' comes there: up to the first separator (- : , /) it
//     is matched by its start, the "ib" forms first (kib, mib, gib, tib,
//     pib: the other base), then k, m, g, t, p (kb_base's powers), then
//     % (a percentage); anything else is bytes;
//   - nothing else is looked at.
//
// So 4k, 4kb, 4kx and 4k-8k are 4096, 4kib is 4000, 4Q and "4 k" are 4,
// 1.5k is 1 (the number and the unit both end at the '.'), 0x10k is 16
// (the unit would start at the 'x'), and 20% and 20%x are 20 percent
// while 20.5% is 20 bytes, as fio reads them. Text that does not start
// with a number is refused, as fio refuses it.
func fioDecimal(s string, kbBase int64) (n int64, percent bool, err error) {
	hex := strings.Contains(s, "0x") || strings.Contains(s, "0X")
	i, neg := 0, false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if hex && i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && isHexDigit(s[i+2]) {
		i += 2
	}
	j := i
	for j < len(s) && (isDigit(s[j]) || hex && isHexDigit(s[j])) {
		j++
	}
	if j == i {
		return 0, false, errorString("not a number")
	}
	if n, err = parseDigits(s[i:j], hex); err != nil {
		return 0, false, errorString("too large")
	}
	mult, pct := fioUnit(s, kbBase)
	if pct {
		if neg {
			return 0, false, errorString("negative percentage")
		}
		return n, true, nil
	}
	if n, err = mulChecked(n, mult); err != nil {
		return 0, false, errorString("too large")
	}
	if neg {
		n = -n
	}
	return n, false, nil
}

// fioUnit is the unit fio 3.33 reads in s (fioDecimal's rules): its
// multiplier, or percent.
func fioUnit(s string, kbBase int64) (mult int64, percent bool) {
	p := 0
	if len(s) >= 2 {
		digit := false
		for p < len(s) && (isDigit(s[p]) || !digit && (s[p] == '+' || s[p] == '-')) {
			digit = digit || isDigit(s[p])
			p++
		}
		if p == len(s) || !isLetter(s[p]) && s[p] != '%' {
			return 1, false
		}
	}
	u := strings.ToLower(s[p:])
	if k := strings.IndexAny(u, ":-,/"); k >= 0 {
		u = u[:k]
	}
	for exp, pre := range []string{"kib", "mib", "gib", "tib", "pib"} {
		if strings.HasPrefix(u, pre) {
			return unitPower(exp+1, true, kbBase), false
		}
	}
	if u != "" {
		if exp := strings.IndexByte("kmgtp", u[0]) + 1; exp > 0 {
			return unitPower(exp, false, kbBase), false
		}
		if u[0] == '%' {
			return 1, true
		}
	}
	return 1, false
}

// sizeUnit is the unitFunc of size literals inside expressions.
func sizeUnit(kbBase int64) unitFunc {
	return func(n int64, unit string) (int64, error) {
		m, why := sizeMult(unit, kbBase)
		if why != "" {
			return 0, errorString(why)
		}
		return mulChecked(n, m)
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// splitNumber splits "[-]digits rest" (digits decimal, or hex after 0x).
func splitNumber(s string) (neg bool, digits, rest string, hex bool) {
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isHexDigit(s[2]) {
		hex, s = true, s[2:]
	}
	i := 0
	for i < len(s) && (isDigit(s[i]) || hex && isHexDigit(s[i])) {
		i++
	}
	return neg, s[:i], s[i:], hex
}

// parseSignedSize parses a byte count such as 4k, 0x1000, -8k or (2*4k),
// read as fio reads it (fioDecimal). A value ending in 'z' is in zones,
// which only zonemode=zbd gives a size (fio refuses it elsewhere).
func parseSignedSize(s string, kbBase int64) (int64, error) {
	v := strings.TrimSpace(s)
	if v == "" {
		return 0, badValue("bad size", s, "empty")
	}
	if v[0] == '(' {
		n, err := evalExpr(v, sizeUnit(kbBase))
		if err != nil {
			return 0, badValue("bad size", s, "%v", err)
		}
		return n, nil
	}
	if strings.HasSuffix(v, "z") {
		return 0, badValue("bad size", s, "%s", zoneUnits)
	}
	n, pct, err := fioDecimal(v, kbBase)
	if err != nil {
		return 0, badValue("bad size", s, "%v", err)
	}
	if pct {
		return 0, badValue("bad size", s, "a percentage is not allowed here")
	}
	return n, nil
}

// parseSize parses a non-negative byte count.
func parseSize(s string, kbBase int64) (int64, error) {
	n, err := parseSignedSize(s, kbBase)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, badValue("bad size", s, "negative")
	}
	return n, nil
}

// parseSizeOrPercent parses a byte count or a percentage "20%" (0 < p <=
// 100), read as fio reads them (fioDecimal: a percentage is a whole
// number, and "20.5%" is 20 bytes).
func parseSizeOrPercent(s string, kbBase int64) (n int64, pct float64, err error) {
	v := strings.TrimSpace(s)
	if v != "" && v[0] != '(' && !strings.HasSuffix(v, "z") {
		p, isPct, err := fioDecimal(v, kbBase)
		if err == nil && isPct {
			if p <= 0 || p > 100 {
				return 0, 0, badValue("bad percentage", s, "must be above 0 and at most 100")
			}
			return 0, float64(p), nil
		}
	}
	n, err = parseSize(v, kbBase)
	return n, 0, err
}

// parseInt parses an integer option within [lo, hi]. fio's integers take the
// same suffixes as sizes (iodepth=1k is 1024).
func parseInt(s string, kbBase, lo, hi int64) (int64, error) {
	n, err := parseSignedSize(s, kbBase)
	if err != nil {
		if ve, ok := err.(*valueError); ok {
			ve.kind = "bad number"
		}
		return 0, err
	}
	if n < lo || n > hi {
		if hi >= math.MaxInt32 {
			if n < lo {
				return 0, badValue("bad number", s, "must be at least %d", lo)
			}
			return 0, badValue("bad number", s, "must be at most %d", hi)
		}
		return 0, badValue("bad number", s, "must be between %d and %d", lo, hi)
	}
	return n, nil
}

// parseBool accepts 0 or 1, as fio's boolean options do ("true" is refused
// by fio too).
func parseBool(s string) (bool, error) {
	n, err := parseInt(s, 1024, 0, 1)
	if err != nil {
		return false, badValue("bad boolean", s, "must be 0 or 1")
	}
	return n == 1, nil
}

// parseUint64 parses a 64-bit unsigned value such as randseed=.
func parseUint64(s string, kbBase int64) (uint64, error) {
	v := strings.TrimSpace(s)
	if strings.HasPrefix(v, "0x") || strings.HasPrefix(v, "0X") {
		if n, err := strconv.ParseUint(v[2:], 16, 64); err == nil {
			return n, nil
		}
	} else if n, err := strconv.ParseUint(v, 10, 64); err == nil {
		return n, nil
	}
	n, err := parseSize(v, kbBase)
	if err != nil {
		if ve, ok := err.(*valueError); ok {
			ve.kind = "bad number"
		}
		return 0, err
	}
	return uint64(n), nil
}

// timeUnit returns the length of a time suffix; def is the unit of a bare
// number. Units are case-insensitive, as in fio.
func timeUnit(unit string, def time.Duration) (time.Duration, bool) {
	switch strings.ToLower(unit) {
	case "":
		return def, true
	case "us", "usec":
		return time.Microsecond, true
	case "ms", "msec":
		return time.Millisecond, true
	case "s", "sec":
		return time.Second, true
	case "m":
		return time.Minute, true
	case "h":
		return time.Hour, true
	case "d":
		return 24 * time.Hour, true
	}
	return 0, false
}

// parseDuration parses a non-negative time such as 60, 10m, 500ms or
// (1s+500ms). def is the unit of a bare number: seconds for most options,
// microseconds for thinktime. Inside an expression a bare number is in
// microseconds, as fio's HOWTO says.
func parseDuration(s string, def time.Duration) (time.Duration, error) {
	v := strings.TrimSpace(s)
	if v == "" {
		return 0, badValue("bad time", s, "empty")
	}
	if v[0] == '(' {
		// fio reads an expression's result in microseconds; a literal with a
		// unit is converted to microseconds first.
		us, err := evalExpr(v, func(n int64, unit string) (int64, error) {
			u, ok := timeUnit(unit, time.Microsecond)
			if !ok {
				return 0, errorString("unknown time unit " + strconv.Quote(unit))
			}
			return mulChecked(n, int64(u/time.Microsecond))
		})
		if err == nil {
			us, err = mulChecked(us, int64(time.Microsecond))
		}
		if err != nil {
			return 0, badValue("bad time", s, "%v", err)
		}
		if us < 0 {
			return 0, badValue("bad time", s, "negative")
		}
		return time.Duration(us), nil
	}
	neg, digits, rest, hex := splitNumber(v)
	switch {
	case digits == "" || hex:
		return 0, badValue("bad time", s, "not a number")
	case neg:
		return 0, badValue("bad time", s, "negative")
	case strings.HasPrefix(rest, "."):
		return 0, badValue("bad time", s, "fractions are not allowed; use a smaller unit")
	}
	u, ok := timeUnit(rest, def)
	if !ok {
		return 0, badValue("bad time", s, "unknown unit %q (use us, ms, s, m, h or d)", rest)
	}
	n, err := parseDigits(digits, false)
	if err == nil {
		n, err = mulChecked(n, int64(u))
	}
	if err != nil {
		return 0, badValue("bad time", s, "too large")
	}
	return time.Duration(n), nil
}

// splitTop splits s at sep, ignoring separators inside parentheses.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// rangeSep finds the '-' or ':' separating the two ends of a range, outside
// parentheses and not as a leading sign (nor the sign of the second end).
func rangeSep(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case '-', ':':
			if depth == 0 && i > 0 && strings.TrimSpace(s[:i]) != "" {
				return i
			}
		}
	}
	return -1
}

// parseSizeRange parses "lo-hi" or "lo:hi" (or a single value, lo = hi).
// Ends given in the wrong order are swapped, as fio does.
func parseSizeRange(s string, kbBase int64) (Range, error) {
	lo, hi := s, s
	if i := rangeSep(s); i >= 0 {
		lo, hi = s[:i], s[i+1:]
	}
	a, err := parseSize(lo, kbBase)
	if err != nil {
		return Range{}, err
	}
	b, err := parseSize(hi, kbBase)
	if err != nil {
		return Range{}, err
	}
	if a > b {
		a, b = b, a
	}
	return Range{Min: a, Max: b}, nil
}

// parseDurationRange parses a time or a time range "1s-5s".
func parseDurationRange(s string, def time.Duration) ([2]time.Duration, error) {
	lo, hi := s, s
	if i := rangeSep(s); i >= 0 {
		lo, hi = s[:i], s[i+1:]
	}
	a, err := parseDuration(lo, def)
	if err != nil {
		return [2]time.Duration{}, err
	}
	b, err := parseDuration(hi, def)
	if err != nil {
		return [2]time.Duration{}, err
	}
	if a > b {
		a, b = b, a
	}
	return [2]time.Duration{a, b}, nil
}

// dirParts splits a per-direction value "R[,W[,T]]" the way fio 3.33 fills
// read, write and trim (observed with Debian's binary): one value sets all
// three; with two values trim takes the write one; an empty position keeps
// the option's default (so "rate=,500k" limits writes only).
func dirParts(s string) (parts [3]string, set [3]bool, err error) {
	fields := splitTop(s, ',')
	if len(fields) > 3 {
		return parts, set, badValue("bad value", s, "at most three comma-separated values (read,write,trim)")
	}
	if len(fields) == 1 {
		f := strings.TrimSpace(fields[0])
		for d := range parts {
			parts[d], set[d] = f, f != ""
		}
	} else {
		for d, f := range fields {
			f = strings.TrimSpace(f)
			parts[d], set[d] = f, f != ""
		}
		if len(fields) == 2 && set[DirWrite] {
			parts[DirTrim], set[DirTrim] = parts[DirWrite], true
		}
	}
	if !set[0] && !set[1] && !set[2] {
		return parts, set, badValue("bad value", s, "empty")
	}
	return parts, set, nil
}

// parseBSSplit parses one direction of bssplit, "bs/pct:bs/pct:...", as
// fio 3.33 does (options.c, read for behaviour):
//
//   - entries end at the first empty one ("4k/50::8k/50" is 4k/50);
//   - a share is read as C's atoi reads it (its leading integer, 0 when
//     there is none), and above 100 (or negative) is 100;
//   - an entry without a share, or with 0, gets an equal part of what the
//     others leave of 100 (integer division);
//   - shares over 100 in all are refused only with two such entries or
//     more; otherwise they stand, and since the lookup walks the entries
//     in order of share, smallest first, an I/O takes the first whose
//     running sum passes a uniform draw below 100: 4k/50:8k/60 is 50%
//     each, 4k/60:8k/20 gives 8k 20% and 4k the other 80%;
//   - beside shares over 100, the one entry without a share takes every
//     I/O: its part of the rest is negative, which fio's unsigned share
//     turns into the largest of all, sorted first. It is kept here as the
//     first entry with a share of 100.
//
// The entries are returned in that order: by share, stably.
func parseBSSplit(s string, kbBase int64) ([]Split, error) {
	entries := strings.Split(s, ":")
	if len(entries) > maxSplitEntries {
		return nil, badValue("bad bssplit", s, "more than %d entries", maxSplitEntries)
	}
	out := make([]Split, 0, len(entries))
	sum, missing := 0, 0
	for _, e := range entries {
		if strings.TrimSpace(e) == "" {
			break
		}
		bsStr, pctStr, hasPct := strings.Cut(e, "/")
		bs, err := parseSize(bsStr, kbBase)
		if err != nil {
			return nil, badValue("bad bssplit", s, "%v", err)
		}
		if bs == 0 {
			return nil, badValue("bad bssplit", s, "zero block size in %q", e)
		}
		pct := -1
		if hasPct {
			if n := cAtoi(pctStr); n > 100 || n < 0 {
				pct = 100
			} else if n > 0 {
				pct = n
			}
		}
		if pct < 0 {
			missing++
		} else {
			sum += pct
		}
		out = append(out, Split{BS: bs, Percent: pct})
	}
	if len(out) == 0 {
		return nil, badValue("bad bssplit", s, "empty entry")
	}
	if sum > 100 && missing > 1 {
		return nil, badValue("bad bssplit", s, "percentages add up to %d%%, more than 100%%, with %d entries left to share the rest (fio: bssplit percentages add to more than 100%%)", sum, missing)
	}
	key := make(map[*Split]int, len(out))
	if missing > 0 {
		share := (100 - sum) / missing
		if len(out) == 1 {
			share = 100
		}
		for i := range out {
			if out[i].Percent < 0 {
				out[i].Percent = share
				if share < 0 {
					out[i].Percent = 100
					key[&out[i]] = share // sorted first, as fio's wrapped share is
				}
			}
		}
	}
	order := func(x *Split) int {
		if k, ok := key[x]; ok {
			return k
		}
		return x.Percent
	}
	sorted := make([]Split, len(out))
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return order(&out[a]) - order(&out[b]) })
	for i, k := range idx {
		sorted[i] = out[k]
	}
	return sorted, nil
}

// cAtoi is C's atoi: optional blanks and a sign, then decimal digits, 0
// when there are none (and a saturated value on overflow).
func cAtoi(s string) int {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	n := 0
	for i := 0; i < len(s) && isDigit(s[i]); i++ {
		n = min(n*10+int(s[i]-'0'), math.MaxInt32)
	}
	if neg {
		return -n
	}
	return n
}

// parseFilenames splits filename= at ':' where "\:" is a literal colon.
// Empty names (from "a::b") are dropped.
func parseFilenames(s string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if n := strings.TrimSpace(b.String()); n != "" {
			out = append(out, n)
		}
		b.Reset()
	}
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == ':':
			b.WriteByte(':')
			i++
		case s[i] == ':':
			flush()
		default:
			b.WriteByte(s[i])
		}
	}
	flush()
	return out
}
