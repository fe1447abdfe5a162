package iotrace

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestOverlongLine(t *testing.T) {
	in := "1 0 8 8 1\n" + strings.Repeat("9", maxLine+10) + "\n"
	recs, err := readString(t, FormatDiskSim, in)
	if len(recs) != 1 || err == nil || !strings.Contains(err.Error(), "t.trace:2: line longer than") {
		t.Fatalf("%d records, error %v", len(recs), err)
	}
}

func TestReadErrorNamesSource(t *testing.T) {
	boom := errors.New("boom")
	src := io.MultiReader(strings.NewReader("1 0 8 8 1\n2 0 8"), iotest.ErrReader(boom))
	r, _ := NewReader(src, "disk.trace", FormatDiskSim)
	recs, err := ReadAll(r)
	if len(recs) != 1 || !errors.Is(err, boom) || !strings.Contains(err.Error(), "disk.trace: read after line 1") {
		t.Fatalf("%d records, error %v", len(recs), err)
	}
}

func TestReadFile(t *testing.T) {
	if _, _, err := ReadFile(tracesDir+"/no-such.trace", ""); err == nil {
		t.Fatal("no error for a missing file")
	}
	recs, f, err := ReadFile(samplesDir+"/fio-iolog-v3.txt", FormatIolog)
	if err != nil || f != FormatIolog || len(recs) != 16 {
		t.Fatalf("%d records, %q, %v", len(recs), f, err)
	}
	_, f, err = ReadFile(samplesDir+"/dbench-2clients-5s.txt", "")
	if f != "" || err == nil || !strings.Contains(err.Error(), "dbench-2clients-5s.txt: trace: cannot tell the format") {
		t.Fatalf("%q, %v", f, err)
	}
}
