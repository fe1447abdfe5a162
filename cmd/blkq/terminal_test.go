package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProgressLineOnlyOnATerminal: a buffer, a regular file and a pipe
// are no terminal, so a run longer than the progress line's period (2 s)
// writes nothing on such a stderr, as fio's status line.
func TestProgressLineOnlyOnATerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, out := range []io.Writer{new(bytes.Buffer), f, w} {
		if isTerminal(out) {
			t.Errorf("%T is a terminal", out)
		}
	}
	// 3 s on the wall clock (the null device's), past the line's period.
	job := filepath.Join(t.TempDir(), "null.fio")
	if err := os.WriteFile(job, []byte("[a]\nioengine=null\nfilesize=1t\ntime_based\nruntime=3s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	if err := cmdRun([]string{"--output-format=json", job}, &o, &e); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(e.String(), "jobs done") {
		t.Errorf("progress line on a buffer: %q", e.String())
	}
}
