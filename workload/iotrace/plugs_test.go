package iotrace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plugGroups reads the ftrace text src and returns its records' plugs as
// the sizes of the plugs in order, for one pid: "4 1 1" is a plug of four
// bios, then two alone. A record with Plug 0 is "0".
func plugGroups(t *testing.T, src string, pid int) string {
	t.Helper()
	recs, err := readString(t, FormatFtrace, src)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []string
	n := 0
	for _, r := range recs {
		if r.PID != pid {
			continue
		}
		switch {
		case r.Plug == 0:
			sizes = append(sizes, "0")
			continue
		case r.Plug&PlugIn == 0:
			t.Fatalf("record %+v: plug bits without PlugIn", r)
		case r.Plug&PlugFirst != 0 && n != 0:
			t.Fatalf("record %+v opens a plug while one of %d bios is open", r, n)
		case r.Plug&PlugFirst == 0 && n == 0:
			t.Fatalf("record %+v continues no plug", r)
		}
		n++
		if r.Plug&PlugLast != 0 {
			sizes = append(sizes, fmt.Sprint(n))
			n = 0
		}
	}
	if n != 0 {
		t.Fatalf("a plug of %d bios never ends", n)
	}
	return strings.Join(sizes, " ")
}

// classic builds blk_classic lines "7,0 0 TIME PID ACTION ..." with times
// 1 µs apart.
func classic(lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		pid, rest, _ := strings.Cut(l, " ")
		fmt.Fprintf(&b, "  7,0    0   10.%09d %s  %s\n", 1000*(i+1), pid, rest)
	}
	return b.String()
}

// TestPlugsFromEvents pins the rules of plugs.go on small traces: a plug
// ends at a U followed by the task's next Q; a U followed by a P (the
// plug's limits reached) or a UT (the task slept) does not end it; an I
// before any P means the task submitted unplugged; plugs are per task; a
// trace without P or U says nothing of plugs.
func TestPlugsFromEvents(t *testing.T) {
	for _, c := range []struct {
		name string
		src  string
		pid  int
		want string
	}{
		{"one io_submit, then one bio", classic(
			"5 Q R 0 + 8 [fio]", "5 G R 0 + 8 [fio]", "5 P N [fio]",
			"5 Q R 8 + 8 [fio]", "5 M R 8 + 8 [fio]",
			"5 Q R 16 + 8 [fio]", "5 M R 16 + 8 [fio]",
			"5 U N [fio] 1", "5 I R 0 + 24 [fio]", "5 D R 0 + 24 [fio]",
			"5 Q R 24 + 8 [fio]", "5 G R 24 + 8 [fio]", "5 P N [fio]", "5 U N [fio] 1"),
			5, "3 1"},
		{"limit flush and sleep keep the plug", classic(
			"5 Q W 0 + 256 [fio]", "5 G W 0 + 256 [fio]", "5 P N [fio]",
			"5 Q W 512 + 8 [fio]", "5 G W 512 + 8 [fio]", "5 U N [fio] 1", "5 I W 0 + 256 [fio]", "5 P N [fio]",
			"5 Q W 900 + 8 [fio]", "5 UT N [fio] 1", "5 G W 900 + 8 [fio]",
			"5 U N [fio] 2", "5 Q W 2000 + 8 [fio]", "5 G W 2000 + 8 [fio]"),
			5, "3 1"},
		{"unplugged submissions", classic(
			"5 Q W 0 + 8 [a]", "5 G W 0 + 8 [a]", "5 I W 0 + 8 [a]", "5 D W 0 + 8 [a]",
			"5 Q W 8 + 8 [a]", "5 G W 8 + 8 [a]", "5 I W 8 + 8 [a]",
			"6 Q R 0 + 8 [b]", "6 G R 0 + 8 [b]", "6 P N [b]", "6 U N [b] 1"),
			5, "1 1"},
		{"per task", classic(
			"5 Q R 0 + 8 [a]", "6 Q R 100 + 8 [b]", "5 G R 0 + 8 [a]", "5 P N [a]", "6 G R 100 + 8 [b]", "6 P N [b]",
			"6 Q R 108 + 8 [b]", "6 M R 108 + 8 [b]", "5 U N [a] 1", "5 Q R 8 + 8 [a]", "6 U N [b] 1"),
			6, "2"},
		{"no plug events", classic("5 Q R 0 + 8 [a]", "5 G R 0 + 8 [a]", "5 Q R 8 + 8 [a]", "5 M R 8 + 8 [a]"),
			5, "0 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := plugGroups(t, c.src, c.pid); got != c.want {
				t.Errorf("plugs %q, want %q", got, c.want)
			}
		})
	}
}

// TestPlugsLookaheadIsBounded: a task whose plug never ends is cut after
// maxPlugLookahead records, so that the reader holds no more than that,
// and a trace whose first maxPlugLookahead records show no P or U is read
// without plugs.
func TestPlugsLookaheadIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("  7,0 0 1.000000000 5 Q R 0 + 8 [a]\n  7,0 0 1.000000001 5 G R 0 + 8 [a]\n  7,0 0 1.000000002 5 P N [a]\n")
	for i := range maxPlugLookahead + 10 {
		fmt.Fprintf(&b, "  7,0 0 2.%09d 6 Q R %d + 8 [b]\n", i, 8*i+1000)
	}
	recs, err := readString(t, FormatFtrace, b.String())
	if err != nil {
		t.Fatal(err)
	}
	if recs[0].Plug != plugAlone {
		t.Fatalf("the first task's record: plug %v, want alone (its plug cut at the bound)", recs[0].Plug)
	}
	b.Reset()
	for i := range maxPlugLookahead + 10 {
		fmt.Fprintf(&b, "  7,0 0 2.%09d 6 Q R %d + 8 [b]\n", i, 8*i)
	}
	b.WriteString("  7,0 0 3.000000000 6 P N [b]\n")
	recs, err = readString(t, FormatFtrace, b.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Plug != 0 {
			t.Fatalf("record %+v: plug bits in a trace whose P came too late to follow", r)
		}
	}
}

// TestPlugsOfKernelTraces reads the plugs of the kernel's own traces: an
// io_submit of four 1 MiB reads is one plug, later single ones one each
// (the 128 KiB pieces flushing the plug as they go do not end it); each
// of fio's batches of 16 is one plug; a task that slept for a request
// (UT) kept its plug.
func TestPlugsOfKernelTraces(t *testing.T) {
	for _, c := range []struct {
		trace, prefix string
	}{
		{"read-1m-qd4-batch4-nomerges0-nr256-max128k", "4 1 1 1 1"},
		{"read-4k-qd32-batch16-cmin16-nomerges0-nr256", "16 16 16 16"},
		{"read-4k-qd32-batch1-nomerges0-nr256", "1 1 1 1 1 1"},
		{"randwrite-4k-qd32-batch32-nomerges0-nr4", "32 "},
	} {
		src, err := os.ReadFile(filepath.Join(ktraceDir, c.trace+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := readString(t, FormatFtrace, string(src))
		if err != nil {
			t.Fatal(err)
		}
		got := plugGroups(t, string(src), recs[0].PID)
		if !strings.HasPrefix(got, c.prefix) {
			t.Errorf("%s: plugs %.60q..., want them to start %q", c.trace, got, c.prefix)
		}
	}
}

// TestPlugSleptAfterItsRequestOnly: a UT after a bio has its request (a
// discard waiting for its completion) marks the bio PlugSlept; a UT
// before its G (the task slept for that request) does not.
func TestPlugSleptAfterItsRequestOnly(t *testing.T) {
	recs, err := readString(t, FormatFtrace, classic(
		"5 Q DS 0 + 128 [fio]", "5 G DS 0 + 128 [fio]", "5 P N [fio]", "5 UT N [fio] 1", "5 I DS 0 + 128 [fio]",
		"5 Q W 900 + 8 [fio]", "5 UT N [fio] 4", "5 G W 900 + 8 [fio]", "5 P N [fio]", "5 U N [fio] 1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Plug&PlugSlept == 0 || recs[1].Plug&PlugSlept != 0 {
		t.Fatalf("plugs %v and %v: want the discard PlugSlept, the write not", recs[0].Plug, recs[1].Plug)
	}
}
