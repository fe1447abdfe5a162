package fio

import (
	"slices"
	"strings"
	"testing"
)

// TestErrorOptions: continue_on_error's values are fio's masks, and
// ignore_error's lists (per type read,write,verify, ':' within one, by
// name or number) set their types' bits, as fio 3.33's options.c reads
// them; error_dump is a bool (default 0).
func TestErrorOptions(t *testing.T) {
	for _, c := range []struct {
		body   string
		mask   uint32
		ignore [3][]int
	}{
		{"", 0, [3][]int{}},
		{"continue_on_error=all", 0xffff, [3][]int{}},
		{"continue_on_error=1", 0xffff, [3][]int{}},
		{"continue_on_error=io", 3, [3][]int{}},
		{"continue_on_error=verify", 4, [3][]int{}},
		{"ignore_error=EIO:ENOSPC", 1, [3][]int{{5, 28}}},
		{"ignore_error=,-28:ERANGE", 2, [3][]int{nil, {28, 34}}},
		{"ignore_error=,,84", 4, [3][]int{nil, nil, {84}}},
		{"ignore_error=EAGAIN,ENOSPC:122", 3, [3][]int{{11}, {28, 122}}},
		{"ignore_error=EIO\ncontinue_on_error=none", 0, [3][]int{{5}}},
		{"ignore_error", 0, [3][]int{}},
		{"ignore_error=,,", 0, [3][]int{}},
	} {
		j := job(t, c.body)
		if j.Errors.ContinueOn != c.mask || !slices.EqualFunc(j.Errors.Ignore[:], c.ignore[:], slices.Equal) {
			t.Errorf("%q: mask %#x, lists %v; want %#x, %v", c.body, j.Errors.ContinueOn, j.Errors.Ignore, c.mask, c.ignore)
		}
	}
	if j := job(t, "error_dump=1"); !j.Errors.Dump {
		t.Error("error_dump=1 not set")
	}
	for _, c := range []struct{ body, want string }{
		{"ignore_error=EILSEQ", `unknown error "EILSEQ"`}, // fio knows 34 names, EILSEQ not among them
		{"ignore_error=foo", `unknown error "foo"`},
		{"ignore_error=EIO,EIO,EIO,EIO", "4 error lists"},
		{"continue_on_error=2", "want one of none, read"},
	} {
		_, err := ParseConfig("t.fio", []byte("[j]\n"+c.body+"\n"), Config{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "t.fio:2") {
			t.Errorf("%q: %v, want an error naming t.fio:2 and %q", c.body, err, c.want)
		}
	}
}
