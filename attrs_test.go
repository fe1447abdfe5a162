package blkq

import (
	"errors"
	"strings"
	"syscall"
	"testing"
)

// TestQueueTunablesHaveLinuxBounds: each queue attribute parses and
// bounds its value as Linux's blk-sysfs does; a refused write is EINVAL
// (EACCES for a read-only one), names the attribute and the value, and
// changes nothing; nothing wraps.
func TestQueueTunablesHaveLinuxBounds(t *testing.T) {
	for _, c := range []struct {
		name, value string
		want        string // read back; "" if refused
		errno       error
	}{
		{"nr_requests", "3", "4", nil},
		{"nr_requests", "0", "4", nil},
		{"nr_requests", "+64", "64", nil},
		{"nr_requests", " 2048\n", "2048", nil},
		{"nr_requests", "2049", "", syscall.EINVAL},
		{"nr_requests", "-1", "", syscall.EINVAL},
		{"nr_requests", "4294967296", "", syscall.EINVAL},
		{"nr_requests", "18446744073709551616", "", syscall.EINVAL},
		{"nr_requests", "64k", "", syscall.EINVAL},
		{"nr_requests", "+", "", syscall.EINVAL},
		{"nomerges", "2", "2", nil},
		{"nomerges", "1", "1", nil},
		{"nomerges", "3", "1", nil},
		{"nomerges", "4294967295", "1", nil},
		{"nomerges", "4294967296", "", syscall.EINVAL},
		{"nomerges", "-1", "", syscall.EINVAL},
		{"max_sectors_kb", "4", "4", nil},
		{"max_sectors_kb", "32767", "32767", nil},
		{"max_sectors_kb", "0", "1280", nil},
		{"max_sectors_kb", "3", "", syscall.EINVAL},
		{"max_sectors_kb", "32768", "", syscall.EINVAL},
		{"max_sectors_kb", "4294967296", "", syscall.EINVAL},
		{"read_ahead_kb", "0", "0", nil},
		{"read_ahead_kb", "5", "4", nil},
		{"read_ahead_kb", "4294967295", "4294967292", nil},
		{"read_ahead_kb", "4294967296", "", syscall.EINVAL},
		{"read_ahead_kb", "-4", "", syscall.EINVAL},
		{"scheduler", "none", "[none]", nil},
		{"scheduler", "bfq", "", syscall.EINVAL},
		{"alloc", "legacy", "legacy", nil},
		{"alloc", "fifo", "", syscall.EINVAL},
		{"batch_requests", "8", "", syscall.EACCES},
		{"max_hw_sectors_kb", "64", "", syscall.EACCES},
	} {
		h := newHarness(t, 1, Config{Scheduler: "none", NrRequests: 16, MaxSectors: 64})
		before, _ := h.q.Attr(c.name)
		err := h.q.SetAttr(c.name, c.value)
		got, _ := h.q.Attr(c.name)
		switch {
		case c.errno != nil && !errors.Is(err, c.errno):
			t.Errorf("%s=%q: error %v, want %v", c.name, c.value, err, c.errno)
		case c.errno != nil && !strings.Contains(err.Error(), c.name+"="+quoteValue(strings.TrimSpace(c.value))):
			t.Errorf("%s=%q: error %q does not name the attribute and value", c.name, c.value, err)
		case c.errno != nil && got != before:
			t.Errorf("%s=%q refused but changed the value from %s to %s", c.name, c.value, before, got)
		case c.errno == nil && err != nil:
			t.Errorf("%s=%q: %v", c.name, c.value, err)
		case c.errno == nil && !strings.Contains(got, c.want):
			t.Errorf("%s=%q: read back %q, want %q", c.name, c.value, got, c.want)
		}
		if err := h.q.CheckInvariants(); err != nil {
			t.Errorf("%s=%q: %v", c.name, c.value, err)
		}
	}
}

// TestRefusedValueIsQuotedAtMost200Bytes: an absurd value is quoted in
// part, so an error message stays readable.
func TestRefusedValueIsQuotedAtMost200Bytes(t *testing.T) {
	h := newHarness(t, 1, Config{})
	err := h.q.SetAttr("nr_requests", strings.Repeat("9", 100000))
	if !errors.Is(err, syscall.EINVAL) || len(err.Error()) > 300 || !strings.Contains(err.Error(), `..."`) && !strings.Contains(err.Error(), `"...`) {
		t.Fatalf("error of %d bytes: %.400v", len(err.Error()), err)
	}
	err = h.q.SetAttr("iosched/fifo_batch", strings.Repeat("x", 5000))
	if err == nil || len(err.Error()) > 300 {
		t.Fatalf("elevator attribute error of %d bytes: %.400v", len(err.Error()), err)
	}
}

// TestConfigOutOfBoundsIsAnError: New refuses the Config values SetAttr
// would refuse, naming the field, and clamps nr_requests below 4 to 4.
func TestConfigOutOfBoundsIsAnError(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		name string
	}{
		{Config{NrRequests: -1}, "nr_requests"},
		{Config{NrRequests: maxNrRequests + 1}, "nr_requests"},
		{Config{MaxSectors: 7}, "max_sectors"},
		{Config{MaxSectors: 2*maxHWSectorsKB + 1}, "max_sectors"},
		{Config{ReadAheadKB: -1}, "read_ahead_kb"},
		{Config{ReadAheadKB: 1 << 33}, "read_ahead_kb"},
		{Config{PlugLimit: -1}, "plug limit"},
		{Config{BatchRequests: -1}, "batch_requests"},
		{Config{NoMerges: 3}, "nomerges"},
	} {
		_, err := New(newTestDevice(&testClock{}, 1, 0), &testClock{}, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%+v: %v, want an error naming %s", c.cfg, err, c.name)
		}
	}
	h := newHarness(t, 1, Config{NrRequests: 2, ReadAheadKB: 130})
	if p := h.q.Pool(); p.NrRequests != minNrRequests {
		t.Errorf("nr_requests 2: pool of %d, want %d", p.NrRequests, minNrRequests)
	}
	if v, _ := h.q.Attr("read_ahead_kb"); v != "128" {
		t.Errorf("read_ahead_kb 130: reads back %s, want 128 (whole pages)", v)
	}
}
