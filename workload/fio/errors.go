package fio

import (
	"fmt"
	"strconv"
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
		return fmt.Sprintf("%s: option %q: %s", where, e.Option, e.Msg)
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
		return fmt.Sprintf("%s %q", e.kind, e.val)
	}
	return fmt.Sprintf("%s %q: %s", e.kind, e.val, e.why)
}

func badValue(kind, val, why string, args ...any) error {
	if len(args) > 0 {
		why = fmt.Sprintf(why, args...)
	}
	return &valueError{kind: kind, val: val, why: why}
}
