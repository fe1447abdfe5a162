package fio

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// fio's verify options other than verify= itself (options.go), with the
// pattern syntax of verify_pattern: fio 3.33's HOWTO "Verification" and
// lib/pattern.c's grammar, read for behaviour.

// Verification is a job's verify options besides verify=.
type Verification struct {
	// DoVerify is do_verify=: read back and check what a write job wrote
	// once it has written (fio default 1).
	DoVerify bool
	// Backlog is verify_backlog=N: verify after every N blocks written,
	// not only at the end (0: at the end).
	Backlog int
	// BacklogBatch is verify_backlog_batch=N: how many blocks each backlog
	// verify reads (0: Backlog).
	BacklogBatch int
	// Fatal is verify_fatal=1: stop the job at its first bad block.
	Fatal bool
	// Dump is verify_dump=1: fio dumps bad blocks to files (blkq names
	// the block on stderr and dumps nothing).
	Dump bool
	// Only is verify_only=1: issue no writes, only check what an earlier
	// run of the same job wrote.
	Only bool
	// Experimental is experimental_verify=1: fio replays the offsets
	// instead of logging them; the reads and checks are the same.
	Experimental bool
	// Interval is verify_interval= in bytes: one header per Interval bytes
	// of a block (0: fio's default, the job's smallest block size).
	Interval int64
	// Offset is verify_offset= in bytes: the header is swapped with the
	// bytes at this offset of each interval (0: at its start).
	Offset int64
	// Pattern is verify_pattern's bytes, nil when unset. PatternOffsets
	// are the positions in it of each %o: the block's offset, 8 bytes,
	// little-endian.
	Pattern        []byte
	PatternOffsets []int
	// StateSave, StateLoad are verify_state_save= and verify_state_load=
	// (fio default save=1): a write job saves fio's verify state file when
	// it ends, and a verify_only job loads it to verify only what had been
	// written (engine/verifystate.go).
	StateSave, StateLoad bool
}

// verifyOptions are the modelled verify options (registered by
// buildOptionTable with the rest).
var verifyOptions = []optSpec{
	{name: "do_verify", set: func(j *Job, c *optCtx) error { return setBool(&j.Verification.DoVerify, c) }},
	{name: "verify_backlog", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.Verification.Backlog, c, 0, math.MaxInt32)
	}},
	{name: "verify_backlog_batch", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.Verification.BacklogBatch, c, 0, math.MaxInt32)
	}},
	{name: "verify_fatal", set: func(j *Job, c *optCtx) error { return setBool(&j.Verification.Fatal, c) }},
	{name: "verify_dump", set: func(j *Job, c *optCtx) error { return setBool(&j.Verification.Dump, c) }},
	{name: "verify_only", bare: bareYes, set: func(j *Job, c *optCtx) error { return setBool(&j.Verification.Only, c) }},
	{name: "experimental_verify", set: func(j *Job, c *optCtx) error { return setBool(&j.Verification.Experimental, c) }},
	{name: "verify_state_save", set: func(j *Job, c *optCtx) error { return setBool(&j.Verification.StateSave, c) }},
	{name: "verify_state_load", set: func(j *Job, c *optCtx) error { return setBool(&j.Verification.StateLoad, c) }},
	{name: "verify_interval", scalar: true, set: func(j *Job, c *optCtx) error {
		return setByteCount(&j.Verification.Interval, "verify_interval", c)
	}},
	{name: "verify_offset", scalar: true, set: func(j *Job, c *optCtx) error {
		return setByteCount(&j.Verification.Offset, "verify_offset", c)
	}},
	{name: "verify_pattern", bare: bareYes, set: func(j *Job, c *optCtx) error {
		p, offs, err := ParsePattern(c.value)
		if err != nil {
			return badValue("bad verify_pattern", c.value, "%v", err)
		}
		j.Verification.Pattern, j.Verification.PatternOffsets = p, offs
		if _, set := j.lines["verify"]; !set && (j.Verify == "" || j.Verify == "0") {
			// fio: a pattern without verify= verifies the pattern after
			// a header (VERIFY_PATTERN; verify=pattern has none).
			j.Verify = "pattern_hdr"
		}
		return nil
	}},
}

// setByteCount parses a size that may not be negative.
func setByteCount(dst *int64, name string, c *optCtx) error {
	n, err := parseSize(c.value, c.kb)
	if err == nil && n < 0 {
		err = badValue("bad "+name, c.value, "negative")
	}
	*dst = n
	return err
}

// VerifyEnabled reports whether verify= asks for checking ("", "0" and
// "null" do not; "null" still issues the reads).
func (j *Job) VerifyEnabled() bool { return j.Verify != "" && j.Verify != "0" }

// maxPattern is fio's bound on a pattern's length (MAX_PATTERN_SIZE).
const maxPattern = 512

// ParsePattern parses fio's pattern syntax: a sequence of hex numbers
// (0x..., bytes in the order written), decimal numbers (their value's
// bytes, least significant first; 0 is one zero byte), "strings",
// 'file names' (the file's bytes, as many as fit in fio's 512: the rest is
// dropped, as fio 3.33 reads no more) and %o (the block's offset, 8
// bytes, at the returned positions). Elements follow one another without
// separators.
func ParsePattern(s string) ([]byte, []int, error) {
	var out []byte
	var offs []int
	s = strings.TrimSpace(s)
	for len(s) > 0 {
		switch {
		case s[0] == '"':
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				return nil, nil, fmt.Errorf("unterminated string %s", s)
			}
			out = append(out, s[1:1+end]...)
			s = s[2+end:]
		case s[0] == '\'':
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, nil, fmt.Errorf("unterminated file name %s", s)
			}
			b, err := readPatternFile(filepath.Clean(s[1:1+end]), maxPattern-len(out))
			if err != nil {
				return nil, nil, err
			}
			out = append(out, b...)
			s = s[2+end:]
		case strings.HasPrefix(s, "%o"):
			offs = append(offs, len(out))
			out = append(out, make([]byte, 8)...)
			s = s[2:]
		case len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
			n := 2
			for n < len(s) && isHex(s[n]) {
				n++
			}
			// "0xff0x14" is two numbers: a 0 before an x ends the first.
			if n < len(s) && (s[n] == 'x' || s[n] == 'X') && n > 3 {
				n--
			}
			digits := s[2:n]
			if digits == "" {
				return nil, nil, fmt.Errorf("no hex digits in %s", s)
			}
			if len(digits)%2 == 1 {
				digits = "0" + digits
			}
			for i := 0; i < len(digits); i += 2 {
				v, _ := strconv.ParseUint(digits[i:i+2], 16, 8)
				out = append(out, byte(v))
			}
			s = s[n:]
		case s[0] == '-' || s[0] >= '0' && s[0] <= '9':
			n := 1
			for n < len(s) && s[n] >= '0' && s[n] <= '9' && !(s[n] == '0' && n+1 < len(s) && (s[n+1] == 'x' || s[n+1] == 'X')) {
				n++
			}
			v, err := strconv.ParseInt(s[:n], 10, 64)
			if err != nil || v > math.MaxInt32 || v < math.MinInt32 {
				return nil, nil, fmt.Errorf("bad number %s", s[:n])
			}
			u := uint32(v)
			if u == 0 {
				out = append(out, 0)
			}
			for ; u != 0; u >>= 8 {
				out = append(out, byte(u))
			}
			s = s[n:]
		default:
			return nil, nil, fmt.Errorf("unexpected %q", s)
		}
		if len(out) > maxPattern {
			return nil, nil, fmt.Errorf("longer than fio's %d bytes", maxPattern)
		}
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("empty pattern")
	}
	return out, offs, nil
}

// readPatternFile reads at most room bytes of a pattern file: fio 3.33
// reads what fits in its 512 bytes and drops the rest (so /dev/zero is a
// pattern of zeros).
func readPatternFile(name string, room int) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(max(room, 0))))
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("nothing to read in %s", name)
	}
	return b, nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
