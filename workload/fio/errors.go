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
			if s, ok := a.(string); ok && len(s) > maxQuote {
				args[i] = s[:maxQuote] + "..."
			}
		}
		why = fmt.Sprintf(why, args...)
	}
	return &valueError{kind: kind, val: val, why: why}
}

// maxQuote is how many bytes of the input an error message quotes: a job
// file may hold a line of megabytes, and an error that repeats it helps no
// one. A longer string is cut, and the quote says how long it was.
const maxQuote = 200

// quote is strconv.Quote of s, cut to maxQuote bytes (at a UTF-8 boundary).
func quote(s string) string {
	if len(s) <= maxQuote {
		return strconv.Quote(s)
	}
	cut := maxQuote
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(s[:cut]), len(s))
}
