package fio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestJobFileThatNeverEndsIsRefused: /dev/zero is read up to MaxFileSize
// and refused with an error naming the file and the limit.
func TestJobFileThatNeverEndsIsRefused(t *testing.T) {
	_, err := ParseFile("/dev/zero")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != "/dev/zero" || !strings.Contains(err.Error(), "16777216 bytes") {
		t.Fatalf("ParseFile(/dev/zero) = %v, want a *ParseError naming the file and the 16 MiB limit", err)
	}
}

// TestJobFileFromEndlessFIFOIsRefused: a FIFO whose writer never stops is
// cut at the limit too.
func TestJobFileFromEndlessFIFOIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		line := []byte(strings.Repeat("; comment\n", 1000))
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := w.Write(line); err != nil {
				return
			}
		}
	}()
	_, err := ParseFile(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "longer than 16777216 bytes") {
		t.Fatalf("ParseFile(fifo) = %v, want the limit error", err)
	}
}

// TestJobFileAtTheLimitIsRead: a file of exactly MaxFileSize bytes parses.
func TestJobFileAtTheLimitIsRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.fio")
	head := "[j]\nsize=4k\n"
	src := head + strings.Repeat(";", MaxFileSize-len(head)-1) + "\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if jf, err := ParseFile(path); err != nil || len(jf.Jobs) != 1 {
		t.Fatalf("ParseFile of %d bytes: %v", len(src), err)
	}
}

// TestNumjobsAboveFioLimitIsRefused: numjobs is bounded by fio's job limit.
func TestNumjobsAboveFioLimitIsRefused(t *testing.T) {
	if _, err := Parse("t.fio", []byte("[j]\nnumjobs=4088\n"), nil); err != nil {
		t.Fatalf("numjobs=4088: %v", err)
	}
	_, err := Parse("t.fio", []byte("[j]\nnumjobs=4089\n"), nil)
	if err == nil || !strings.Contains(err.Error(), `t.fio:2: option "numjobs"`) || !strings.Contains(err.Error(), "4088") {
		t.Fatalf("numjobs=4089: %v", err)
	}
}

// TestJobCountAboveFioLimitIsRefused: sections and their clones together
// are bounded, and the error names the section that passed the limit,
// before the rest of the file is built.
func TestJobCountAboveFioLimitIsRefused(t *testing.T) {
	var b strings.Builder
	b.WriteString("[a]\nnumjobs=4000\n")
	for i := range 30000 {
		fmt.Fprintf(&b, "[j%d]\nstonewall\n", i)
	}
	_, err := Parse("t.fio", []byte(b.String()), nil)
	var pe *ParseError
	// [a] has 4000 clones; j88 is job 4089, on line 3+2*88.
	if !errors.As(err, &pe) || pe.Line != 3+2*88 || !strings.Contains(err.Error(), "maximum number of jobs reached") {
		t.Fatalf("err = %v, want the job limit at line %d", err, 3+2*88)
	}
}

// TestMergedJobFilesAboveFioLimitFailValidate: two files under the limit
// each, over it together.
func TestMergedJobFilesAboveFioLimitFailValidate(t *testing.T) {
	a, err := Parse("a.fio", []byte("[a]\nnumjobs=3000\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse("b.fio", []byte("[b]\nnumjobs=3000\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(Merge(a, b)); err == nil || !strings.Contains(err.Error(), "6000 jobs") {
		t.Fatalf("Validate(merged) = %v", err)
	}
}

// TestGlobalOptionsTimesJobsAreBounded: each job lists the [global]
// options above it; a huge [global] under thousands of jobs is refused
// instead of costing their product.
func TestGlobalOptionsTimesJobsAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("[global]\n")
	for range maxOptionEntries / 2 {
		b.WriteString("bs=4k\n")
	}
	for i := range 3 {
		fmt.Fprintf(&b, "[j%d]\n", i)
	}
	_, err := Parse("t.fio", []byte(b.String()), nil)
	if err == nil || !strings.Contains(err.Error(), "too many options") {
		t.Fatalf("err = %v, want the option bound", err)
	}
}

// TestErrorQuotesAtMost200BytesOfALongLine: a 1 MB malformed line, value
// or option name is quoted cut, with its length.
func TestErrorQuotesAtMost200BytesOfALongLine(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	for _, src := range []string{
		"[j]\n" + long + " y\n",
		"[j]\nbs=" + long + "\n",
		"[j]\n" + long + "=1\n",
		"[" + long + "\n",
		"[j]\nsize=(1" + long + ")\n",
		"[j]\nbssplit=" + strings.Repeat("4k/1:", 50) + long + "\n",
		"[j]\nbssplit=0\"" + strings.Repeat("\xd4", 1<<20) + "\n", // 4 bytes of quote a byte
		"[j]\n" + strings.Repeat("é", 1<<19) + "\n",
	} {
		_, err := Parse("t.fio", []byte(src), nil)
		if err == nil {
			t.Fatalf("no error for %.20q...", src)
		}
		if msg := err.Error(); len(msg) > 600 || !strings.Contains(msg, "...") {
			t.Fatalf("error of %d bytes for a 1 MB line: %.300s", len(msg), msg)
		}
	}
}

// TestSizesThatOverflowAreErrorsNamingTheOption: sums and products of
// values that each parse, and values that overflow after their unit, are
// errors naming the option, never wrapped or saturated.
func TestSizesThatOverflowAreErrorsNamingTheOption(t *testing.T) {
	for _, c := range []struct{ src, opt string }{
		{"offset=(2^63)", "offset"},
		{"offset=9223372036854775808", "offset"},
		{"offset=8388608t", "offset"},
		{"offset=(2^62+2^62)", "offset"},
		{"size=8192p", "size"},
		{"thinktime=(2^62)", "thinktime"},
		{"runtime=106752d", "runtime"},
		{"rate=8192p", "rate"},
		{"offset=9223372036854775807\nsize=4k", "offset"},
		{"offset_increment=4611686018427387904\nnumjobs=3\nsize=4k", "offset_increment"},
		{"size=4611686018427387904\nloops=3", "loops"},
	} {
		jf, err := Parse("t.fio", []byte("[j]\n"+c.src+"\n"), nil)
		if err == nil {
			err = Validate(jf)
		}
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("option %q", c.opt)) {
			t.Errorf("%q: err = %v, want an error naming %s", c.src, err, c.opt)
		}
	}
}

// TestLineThatExpandsPastTheLimitIsRefused: ${X} repeated, X long, would
// expand to gigabytes: the line is refused once past MaxFileSize.
func TestLineThatExpandsPastTheLimitIsRefused(t *testing.T) {
	x := strings.Repeat("4", 128<<10)
	src := "[j]\nbs=" + strings.Repeat("${X}", 1<<20) + "\n"
	_, err := Parse("t.fio", []byte(src), func(string) string { return x })
	if err == nil || !strings.Contains(err.Error(), "t.fio:2: the line expands to more than 16777216 bytes") {
		t.Fatalf("err = %v", err)
	}
}
