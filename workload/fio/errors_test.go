package fio

import (
	"errors"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		line   int
		option string
		msg    string // substring of Error()
	}{
		{"bad size", "[j]\nrw=read\nbs=Q4\n", 3, "bs", `test.fio:3: option "bs": bad size "Q4": not a number`},
		{"bad size in global", "[global]\nsize=g\n[j]\n", 2, "size", "not a number"},
		{"unknown option", "[j]\nbs=4k\nfoobar=1\n", 3, "foobar", `test.fio:3: option "foobar": unknown option`},
		{"typo suggests", "[j]\nrunetime=10\n", 2, "runetime", `did you mean "runtime"?`},
		{"wrong case", "[j]\nBS=4k\n", 2, "BS", `did you mean "bs"?`},
		{"bad rw", "[j]\nrw=randomread\n", 2, "rw", `bad rw "randomread"`},
		{"rw is case-sensitive", "[j]\nrw=Read\n", 2, "rw", `bad rw`},
		{"bad rw modifier", "[j]\nrw=read:x4\n", 2, "rw", "modifier"},
		{"empty rw modifier", "[j]\nrw=read:\n", 2, "rw", "modifier"},
		{"negative random modifier", "[j]\nrw=randread:-1\n", 2, "rw", "modifier"},
		{"negative numjobs", "[j]\nnumjobs=-1\n", 2, "numjobs", "bad number"},
		{"zero numjobs", "[j]\nnumjobs=0\n", 2, "numjobs", "between 1 and 4088"},
		{"nice below -20", "[j]\nnice=-21\n", 2, "nice", "between -20 and 19"},
		{"nice above 19", "[j]\nnice=20\n", 2, "nice", "between -20 and 19"},
		{"zero iodepth", "[j]\niodepth=0\n", 2, "iodepth", "at least 1"},
		{"rwmixread over 100", "[j]\nrwmixread=101\n", 2, "rwmixread", "between 0 and 100"},
		{"bssplit over 100", "[j]\nbssplit=4k/50:8k/60:16k:32k\n", 2, "bssplit", "more than 100%, with 2 entries left to share the rest"},
		{"bssplit syntax", "[j]\nbssplit=4k/50:x/50\n", 2, "bssplit", "not a number"},
		{"zero bs", "[j]\nbs=0\n", 2, "bs", "at least 1"},
		{"bs cut to a byte", "[j]\nbs=1.5k\n", 2, "bs", `bad size "1.5k": fio reads it as 1 byte (a number ends at its '.'), and blkq's I/Os are whole 512-byte sectors`},
		{"bsrange cut to a byte", "[j]\nbsrange=1.5k-4k\n", 2, "bsrange", "fio reads it as 1 byte"},
		{"too many directions", "[j]\nbs=1k,2k,4k,8k\n", 2, "bs", "at most three"},
		{"bad bool", "[j]\ndirect=true\n", 2, "direct", `bad boolean "true"`},
		{"bool out of range", "[j]\nrandrepeat=2\n", 2, "randrepeat", "bad boolean"},
		{"bare needs value", "[j]\ndirect\n", 2, "direct", "needs a value"},
		{"bare ignored option needs value", "[j]\nprio\n", 2, "prio", "needs a value"},
		{"empty value", "[j]\nbs=\n", 2, "bs", "empty value"},
		{"bad time", "[j]\nruntime=10x\n", 2, "runtime", `bad time "10x"`},
		{"negative time", "[j]\nramp_time=-1\n", 2, "ramp_time", "negative"},
		{"bad percent", "[j]\nsize=120%\n", 2, "size", "at most 100"},
		{"percent not allowed", "[j]\nzonesize=10%\n", 2, "zonesize", "percentage"},
		{"zone units", "[j]\nsize=4z\n", 2, "size", "zonemode=zbd"},
		{"bad verify", "[j]\nverify=foo\n", 2, "verify", "want one of"},
		{"bad zonemode", "[j]\nzonemode=foo\n", 2, "zonemode", "want one of"},
		{"bad exit_what", "[j]\nexit_what=foo\n", 2, "exit_what", "want one of"},
		{"bad kb_base", "[j]\nkb_base=512\n", 2, "kb_base", "1024 or 1000"},
		{"bad expression", "[j]\nsize=(1+\n", 2, "size", "bad size"},
		{"division by zero", "[j]\nsize=(1/0)\n", 2, "size", "division by zero"},
		{"overflow", "[j]\nsize=99999999999999999999\n", 2, "size", "too large"},
		{"empty filename", "[j]\nfilename=::\n", 2, "filename", "no file names"},
		{"engine with blanks", "[j]\nioengine=lib aio\n", 2, "ioengine", "blanks"},
		{"empty name", "[j]\nname=\n", 2, "name", "empty value"},
		{"option before section", "bs=4k\n[j]\n", 1, "bs", `test.fio:1: option "bs": appears before any [section]`},
		{"flag before section", "thread\n[j]\n", 1, "thread", "before any [section]"},
		{"garbage before section", "; ok\ngarbage here\n[j]\n", 2, "", `"garbage here" appears before any [section]`},
		{"garbage line", "[j]\nhello world\n", 2, "", `malformed line "hello world"`},
		{"garbage chars", "[j]\n$$$=1\n", 2, "", "malformed line"},
		{"unterminated header", "[j]\nbs=4k\n[job\n", 3, "", "unterminated section header"},
		{"text after header", "[j] x\n", 1, "", "text after section header"},
		{"empty header", "[ ]\n", 1, "", "empty section name"},
		{"include of a missing file", "[j]\ninclude no-such-file.fio\n", 2, "", `include "no-such-file.fio": open no-such-file.fio: no such file or directory`},
		{"bare include", "[j]\ninclude\n", 2, "", "include needs a file name"},
		{"include before section", "include x.fio\n[j]\n", 1, "", "before any [section]"},
		{"env makes it bad", "[j]\nbs=${BAD}\n", 2, "bs", `bad size "Q4"`},
		{"crlf line numbers", "[j]\r\n\r\nbs=x\r\n", 3, "bs", "bad size"},
		{"first error wins", "[j]\nbs=Q4\nfoo=1\n", 2, "bs", "bad size"},
		{"error in second job", "[a]\n[b]\nrw=x\n", 3, "rw", "bad rw"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig("test.fio", []byte(tc.src), Config{Env: mapEnv(map[string]string{"BAD": "Q4"}), Keywords: &testKeywords})
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v (%T), want *ParseError", err, err)
			}
			if pe.File != "test.fio" || pe.Line != tc.line || pe.Option != tc.option {
				t.Errorf("got file %q line %d option %q, want line %d option %q (%v)", pe.File, pe.Line, pe.Option, tc.line, tc.option, err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not contain %q", err, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), "test.fio:") {
				t.Errorf("error %q does not start with file:line", err)
			}
		})
	}
}

func TestParseErrorValue(t *testing.T) {
	_, err := ParseConfig("dir/f.fio", []byte("[j]\n  bs = Q4 ; c\n"), Config{Keywords: &testKeywords})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Value != "Q4" || pe.Option != "bs" || pe.Line != 2 || pe.File != "dir/f.fio" {
		t.Fatalf("%#v", err)
	}
	if got := (&ParseError{File: "f", Msg: "m"}).Error(); got != "f: m" {
		t.Errorf("no line: %q", got)
	}
}

func TestParseFileErrors(t *testing.T) {
	if _, err := ParseFile("/nonexistent/x.fio"); err == nil {
		t.Error("missing file: no error")
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		src  string
		line int
		opt  string
		msg  string
	}{
		{"wait_for forward", "[a]\nwait_for=b\n[b]\n", 2, "wait_for", `no job named "b" before this one`},
		{"wait_for missing", "[a]\n[b]\nwait_for=zz\n", 3, "wait_for", `no job named "zz"`},
		{"wait_for self", "[a]\nwait_for=a\n", 2, "wait_for", `no job named "a"`},
		{"size below bs", "[global]\nbs=8k\n[a]\nsize=4k\n", 4, "size", "smaller than the minimum block size"},
		// fio 3.33's fixup_options refuses these (init.c).
		{"rate and rate_iops", "[a]\nrate_iops=100\nrate=1m\n", 2, "rate_iops", "rate and rate_iops are mutually exclusive"},
		{"rate and rate_iops of other directions", "[a]\nrate=1m\nrate_iops=,100\n", 3, "rate_iops", "mutually exclusive"},
		{"rate_min and rate_iops_min", "[a]\nrate_min=1m\nrate_iops_min=10\n", 3, "rate_iops_min", "mutually exclusive"},
		{"rate_min above rate", "[a]\nrate=1m\nrate_min=2m\n", 3, "rate_min", "minimum rate exceeds rate, ddir 0"},
		{"rate_min above rate in writes", "[a]\nrate=1m,1m\nrate_min=,2m\n", 3, "rate_min", "write: rate_min 2097152 B/s exceeds rate 1048576 B/s (fio: minimum rate exceeds rate, ddir 1)"},
		{"rate_iops_min above rate_iops", "[a]\nrate_iops=10\nrate_iops_min=20\n", 3, "rate_iops_min", "minimum rate exceeds rate"},
		{"strided without zonesize", "[a]\nzonemode=strided\n", 2, "zonemode", "needs zonesize="},
		{"zonesize without zonemode", "[a]\nzonesize=1m\n", 2, "zonesize", "zonemode=none and --zonesize are not compatible"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			jf := parseString(t, tc.src, nil)
			err := Validate(jf)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v", err)
			}
			if pe.Line != tc.line || pe.Option != tc.opt || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("got %v (line %d option %q)", err, pe.Line, pe.Option)
			}
		})
	}
	for _, src := range []string{
		"[a]\n[b]\nwait_for=a\n",
		"[a]\nrate=1m\nrate_min=1m\n",      // a minimum equal to the rate: fio runs it
		"[a]\nrate=1m\nrate_iops_min=10\n", // a rate with an IOPS minimum: fio checks only like with like
		"[a]\nzonemode=strided\nzonesize=1m\nzoneskip=8m\n",
	} {
		if err := Validate(parseString(t, src, nil)); err != nil {
			t.Errorf("valid %q: %v", src, err)
		}
	}
	// Hand-built jobs get the checks Parse would have made.
	j := newJob("x", 7)
	j.BSSplit[DirWrite] = []Split{{4096, 70}, {0, 40}}
	j.BS[DirTrim] = Range{0, 0}
	j.NumJobs, j.IODepth, j.RWMixRead = 0, 0, 101
	err := Validate(&JobFile{Path: "h.fio", Jobs: []*Job{j}})
	for _, want := range []string{"write block size 0", "trim block size range 0-0",
		"numjobs 0", "iodepth 0", "read share 101%", "h.fio:7:"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v; want %q", err, want)
		}
	}
	if err := Validate(&JobFile{Path: "e.fio"}); err == nil || err.Error() != "e.fio: no jobs defined" {
		t.Errorf("empty: %v", err)
	}
	if err := Validate(nil); err == nil {
		t.Error("nil: no error")
	}
}
