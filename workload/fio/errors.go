package fio

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// ParseError reports a job file that fio would refuse, or that blkq cannot
// represent faithfully: an unknown option, a malformed value for a modelled
// option, or a line that is neither a section, an option nor a comment.
type ParseError struct {
	// File is the path given to Parse (or ParseFile).
	File string
	// Line is the 1-based line number of the offending line; 0 when the
	// problem belongs to the file as a whole (only from Validate).
	Line int
	// Option is the option name as written in the file, or "" when the line
	// is not an option.
	Option string
	// Value is the option's value after ${VAR} and keyword expansion.
	Value string
	// Msg says what is wrong, e.g. `bad size "4Q": unknown unit "Q"`.
	Msg string
}

// Error reads like a compiler message: `file:line: option "bs": bad size ...`.
func (e *ParseError) Error() string {
	where := e.File
	if e.Line > 0 {
		where += ":" + strconv.Itoa(e.Line)
	}
	if e.Option != "" {
		return fmt.Sprintf("%s: option %s: %s", where, quote(e.Option), e.Msg)
	}
	return where + ": " + e.Msg
}

// valueError is what the value parsers return; the option loop wraps it in a
// ParseError carrying file, line and option.
type valueError struct {
	kind string // "bad size", "bad time", ...
	val  string
	why  string
}

func (e *valueError) Error() string {
	if e.why == "" {
		return e.kind + " " + quote(e.val)
	}
	return e.kind + " " + quote(e.val) + ": " + e.why
}

func badValue(kind, val, why string, args ...any) error {
	if len(args) > 0 {
		for i, a := range args {
			// A part of the value, quoted with %q: at most 4 bytes of
			// quote per byte of input.
			if s, ok := a.(string); ok && len(s) > maxQuote/4 {
				args[i] = s[:maxQuote/4] + "..."
			}
		}
		why = fmt.Sprintf(why, args...)
	}
	return &valueError{kind: kind, val: val, why: why}
}

// maxQuote bounds how much of the input an error message quotes, in bytes
// of the quote: a job file may hold a line of megabytes, and an error that
// repeats it helps no one. A longer quote is cut, and says how long the
// input was.
const maxQuote = 200

// quote is strconv.Quote of s, cut at a UTF-8 boundary so that the quote
// is at most maxQuote bytes (escapes make a byte of input up to 4).
func quote(s string) string {
	q := strconv.Quote(s)
	if len(q) <= maxQuote {
		return q
	}
	cut := min(len(s), maxQuote)
	for {
		for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut--
		}
		q = strconv.Quote(s[:cut])
		if len(q) <= maxQuote || cut == 0 {
			break
		}
		cut -= (len(q) - maxQuote + 3) / 4
		cut = max(cut, 0)
	}
	return fmt.Sprintf("%s... (%d bytes)", q, len(s))
}
