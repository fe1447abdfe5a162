package engine

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq/workload/fio"
)

func parseAs(t *testing.T, name, src string) *fio.JobFile {
	t.Helper()
	jf, err := fio.Parse(name, []byte(src), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return jf
}

// TestWarningsNameTheJobFile: a warning or note about a job names the job
// file and the line of the job's section, also when several files make
// one run.
func TestWarningsNameTheJobFile(t *testing.T) {
	a := parseAs(t, "a.fio", "[first]\nrw=read\nsize=1m\ndirect=1\n")
	b := parseAs(t, "b.fio", "; comment\n\n[second]\nrw=write\nsize=1m\nioengine=libaio\niodepth=4\n")
	res, err := Run(fio.Merge(a, b), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The libaio line is a note (blkq does as Linux does), not a warning.
	if len(res.Warnings) != 0 || len(res.Notes) != 1 || !strings.HasPrefix(res.Notes[0], `b.fio:3: job "second": buffered I/O (direct=0) through libaio`) {
		t.Errorf("warnings %q, notes %q; want no warning, one note starting b.fio:3: job \"second\"", res.Warnings, res.Notes)
	}

	path := filepath.Join(t.TempDir(), "data")
	res, err = Run(fio.Merge(a, b), Options{Device: "file:" + path})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, w := range res.Warnings {
		if strings.HasPrefix(w, `b.fio:3: job "second": direct=0 differs`) {
			found = true
		}
	}
	if !found {
		t.Errorf("file run warnings %q, want one starting b.fio:3: job \"second\": direct=0 differs", res.Warnings)
	}
}

// TestUnalignedOffsetIsWarnedAbout: an offset (or offset_increment) that
// is not whole sectors is rounded down to one by the run; the run says
// so, naming the job, instead of starting elsewhere without a word. An
// aligned one gives no warning.
func TestUnalignedOffsetIsWarnedAbout(t *testing.T) {
	for src, want := range map[string]bool{
		"[w]\nrw=write\nsize=64k\noffset=1000\n":                      true,
		"[w]\nrw=write\nsize=64k\noffset_increment=100\nnumjobs=2\n":  true,
		"[w]\nrw=write\nsize=64k\noffset=1024\noffset_increment=4k\n": false,
	} {
		res, err := Run(parseAs(t, "u.fio", src), Options{Device: "null"})
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, w := range res.Warnings {
			got = got || strings.HasPrefix(w, `u.fio:1: job "w": offset=`) && strings.Contains(w, "not whole 512-byte sectors")
		}
		if got != want {
			t.Errorf("%q: warned %v, want %v (warnings %q)", src, got, want, res.Warnings)
		}
	}
}
