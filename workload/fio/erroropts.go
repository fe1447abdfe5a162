package fio

import (
	"strconv"
	"strings"
)

// fio's error options (HOWTO "Error handling"): continue_on_error,
// ignore_error and error_dump, as fio 3.33's options.c and td_error.c
// read and apply them. An error belongs to one of three types: a verify
// failure (EILSEQ, whatever the direction), a read's, or any other I/O's
// (writes, trims and syncs count as writes). A job goes on after an
// error of a type continue_on_error names only when the errno is in that
// type's list: ignore_error's, or by default EIO and EILSEQ (fio's
// "non-fatal" errors); ENOSPC, for one, still stops it unless listed.

// Error types: the bits of ErrorOptions.ContinueOn and the indices of
// ErrorOptions.Ignore, in fio's order (its error_type_bit).
const (
	ErrTypeRead   = 0 // a read's error
	ErrTypeWrite  = 1 // a write's, trim's or sync's error
	ErrTypeVerify = 2 // a verify failure (EILSEQ)
)

// ErrorOptions are a job's error handling options.
type ErrorOptions struct {
	// ContinueOn is continue_on_error as fio's mask: bit ErrTypeRead,
	// ErrTypeWrite, ErrTypeVerify set for each type the job goes on
	// after (none, fio's default: 0; io: read|write; all: 0xffff).
	// ignore_error sets the bit of each type it lists errors for.
	ContinueOn uint32
	// Ignore are ignore_error's errnos per type; nil: fio's non-fatal
	// ones, EIO and EILSEQ.
	Ignore [3][]int
	// Dump is error_dump (fio 3.33's effective default 0, although its
	// HOWTO says 1): print fio's io_u error line also for the errors the
	// job goes on after.
	Dump bool
}

// continueOnValues are continue_on_error's values and their masks.
var continueOnValues = []struct {
	name string
	mask uint32
}{
	{"none", 0}, {"read", 1 << ErrTypeRead}, {"write", 1 << ErrTypeWrite},
	{"io", 1<<ErrTypeRead | 1<<ErrTypeWrite}, {"verify", 1 << ErrTypeVerify},
	{"all", 0xffff}, {"0", 0}, {"1", 0xffff},
}

// errnoNames are the names ignore_error takes, errno 1 to 34 in order:
// fio 3.33 knows no others (EILSEQ must be given as 84).
var errnoNames = []string{
	"EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG", "ENOEXEC", "EBADF",
	"ECHILD", "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY", "EEXIST",
	"EXDEV", "ENODEV", "ENOTDIR", "EISDIR", "EINVAL", "ENFILE", "EMFILE", "ENOTTY",
	"ETXTBSY", "EFBIG", "ENOSPC", "ESPIPE", "EROFS", "EMLINK", "EPIPE", "EDOM", "ERANGE",
}

// errorModelled are the error options and their setters.
var errorModelled = []optSpec{
	{name: "continue_on_error", set: func(j *Job, c *optCtx) error {
		for _, v := range continueOnValues {
			if c.value == v.name {
				j.Errors.ContinueOn = v.mask
				return nil
			}
		}
		return badValue("bad value", c.value, "want one of none, read, write, io, verify, all, 0, 1")
	}},
	{name: "ignore_error", bare: bareYes, set: setIgnoreError},
	{name: "error_dump", set: func(j *Job, c *optCtx) error { return setBool(&j.Errors.Dump, c) }},
}

// setIgnoreError parses ignore_error=READ,WRITE,VERIFY: per type a
// ':'-separated list of errnos, by number or by name. An empty list
// leaves its type as it was; bare, the option does nothing (as in fio).
func setIgnoreError(j *Job, c *optCtx) error {
	if c.bare {
		return nil
	}
	groups := strings.Split(strings.TrimSpace(c.value), ",")
	if len(groups) > 3 {
		return badValue("bad ignore_error", c.value, "%d error lists; fio takes read,write,verify", len(groups))
	}
	for t, g := range groups {
		var list []int
		for _, name := range strings.Split(g, ":") {
			if name == "" {
				break // fio stops at an empty entry
			}
			n := errnoByName(name)
			if n == 0 {
				return badValue("bad ignore_error", c.value, "unknown error %q: use its number", name)
			}
			list = append(list, n)
		}
		if len(list) > 0 {
			j.Errors.ContinueOn |= 1 << t
			j.Errors.Ignore[t] = list
		}
	}
	return nil
}

// errnoByName returns the errno ignore_error's entry s names, as fio
// reads it: a name from errnoNames when it starts with 'E', else a number
// (its absolute value; fio's atoi reads a leading number and stops); 0
// for none.
func errnoByName(s string) int {
	if s[0] == 'E' {
		for i, n := range errnoNames {
			if n == s {
				return i + 1
			}
		}
		return 0
	}
	end := 0
	if s[0] == '-' || s[0] == '+' {
		end = 1
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(s[:end])
	if err != nil || n > 1<<20 {
		return 0
	}
	return max(n, -n)
}

func init() {
	for i := range errorModelled {
		optionTable[errorModelled[i].name] = &errorModelled[i]
	}
}
