package fio

import (
	"bytes"
	"strings"
	"testing"
)

// TestBufferOptionsAsFioParsesThem: the buffer options parse into
// Buffers with fio 3.33's defaults, and the options that change others
// do so in file order, as fio's callbacks do (options.c): buffer_pattern
// turns scramble and zero off and refills when the job reads at that
// point (rw= still fio's default read) or compresses; dedupe_percentage
// refills; a later option wins.
func TestBufferOptionsAsFioParsesThem(t *testing.T) {
	d := job(t, "rw=write\n")
	if b := d.Buffers; b.Pattern != nil || b.Zero || b.Refill || !b.Scramble || b.CompressChunk != 512 ||
		b.DedupeMode != "repeat" || b.DedupeWorkingSetPercentage != 5 || b.DedupeGlobal {
		t.Errorf("defaults: %+v", b)
	}
	if f := d.Files; !f.Invalidate || f.Fallocate != "native" || f.FillDevice || f.CreateOnOpen {
		t.Errorf("file defaults: %+v", f)
	}
	for _, c := range []struct {
		body                   string
		refill, scramble, zero bool
		pattern                string
	}{
		{"rw=write\nbuffer_pattern=0xab\n", false, false, false, "\xab"},
		{"buffer_pattern=0xab\nrw=write\n", true, false, false, "\xab"}, // rw was still read
		{"rw=write\nbuffer_compress_percentage=30\nbuffer_pattern=\"x\"\n", true, false, false, "x"},
		{"rw=write\nzero_buffers\nscramble_buffers=1\nbuffer_pattern=0x01\n", false, false, false, "\x01"},
		{"rw=write\nbuffer_pattern=0x01\nzero_buffers=1\nscramble_buffers=1\n", false, true, true, "\x01"},
		{"rw=write\ndedupe_percentage=10\n", true, true, false, ""},
		{"rw=write\ndedupe_percentage=10\nrefill_buffers=0\n", false, true, false, ""},
	} {
		b := job(t, c.body).Buffers
		if b.Refill != c.refill || b.Scramble != c.scramble || b.Zero != c.zero || string(b.Pattern) != c.pattern {
			t.Errorf("%q: refill %v scramble %v zero %v pattern %q; want %v %v %v %q", c.body, b.Refill, b.Scramble, b.Zero, b.Pattern, c.refill, c.scramble, c.zero, c.pattern)
		}
	}
	b := job(t, "buffer_compress_percentage=40\nbuffer_compress_chunk=4k\ndedupe_percentage=20\ndedupe_mode=working_set\ndedupe_working_set_percentage=50\ndedupe_global=1\n").Buffers
	if b.CompressPercentage != 40 || b.CompressChunk != 4096 || b.DedupePercentage != 20 || b.DedupeMode != "working_set" ||
		b.DedupeWorkingSetPercentage != 50 || !b.DedupeGlobal {
		t.Errorf("compress and dedupe: %+v", b)
	}
	f := job(t, "fill_fs=1\ninvalidate=0\nfallocate=1\ncreate_on_open=1\n").Files
	if !f.FillDevice || f.Invalidate || f.Fallocate != "posix" || !f.CreateOnOpen {
		t.Errorf("file options: %+v", f)
	}
	if f := job(t, "fallocate=0\n").Files; f.Fallocate != "none" {
		t.Errorf("fallocate=0: %q, want none", f.Fallocate)
	}
	if jf := parseString(t, "[a]\nbuffer_pattern=0x1\nzero_buffers\nfill_device=1\nfallocate=keep\n", nil); len(jf.Ignored) != 0 {
		t.Errorf("modelled options reported as ignored: %v", jf.Ignored)
	}
}

// TestBufferOptionsBadValues: out-of-range percentages, an unknown
// dedupe_mode or fallocate, a pattern with %o (fio 3.33 allows formats
// in verify_pattern only) and a bare buffer_pattern (on which fio 3.33
// crashes) are errors naming the line.
func TestBufferOptionsBadValues(t *testing.T) {
	for _, bad := range []string{"buffer_compress_percentage=101", "dedupe_percentage=-1", "dedupe_mode=random",
		"dedupe_working_set_percentage=200", "buffer_pattern=%o", "buffer_pattern", "buffer_pattern=\"open",
		"fallocate=2", "fallocate=yes", "invalidate=2", "fill_device=x"} {
		_, err := Parse("b.fio", []byte("[a]\n"+bad+"\n"), nil)
		if err == nil || !strings.Contains(err.Error(), "b.fio:2") {
			t.Errorf("%s: err %v, want one naming b.fio:2", bad, err)
		}
	}
}

// TestDataFixups: Job.Data applies init.c's fix-ups: compression 100 is
// zero_buffers; another percentage refills unless refill_buffers is set;
// scramble_buffers stays off for zero_buffers set in the file, unless it
// is set too, and for a job that compresses or dedupes.
func TestDataFixups(t *testing.T) {
	for _, c := range []struct {
		body                   string
		zero, refill, scramble bool
		compress               int
	}{
		{"rw=write\n", false, false, true, 0},
		{"rw=write\nbuffer_compress_percentage=100\n", true, false, false, 0},
		{"rw=write\nbuffer_compress_percentage=50\n", false, true, false, 50},
		{"rw=write\nrefill_buffers=0\nbuffer_compress_percentage=50\n", false, false, false, 50},
		{"rw=write\nzero_buffers\n", true, false, false, 0},
		{"rw=write\nzero_buffers\nscramble_buffers=1\n", true, false, true, 0},
		{"rw=write\ndedupe_percentage=0\n", false, true, false, 0},
	} {
		d := job(t, c.body).Data()
		if d.Zero != c.zero || d.Refill != c.refill || d.Scramble != c.scramble || d.CompressPercentage != c.compress {
			t.Errorf("%q: %+v; want zero %v refill %v scramble %v compress %d", c.body, d, c.zero, c.refill, c.scramble, c.compress)
		}
	}
	d := job(t, "rw=write\nbuffer_pattern=\"ab\"\n").Data()
	if !bytes.Equal(d.Pattern, []byte("ab")) || d.Random() || d.Mixed() {
		t.Errorf("pattern: %+v", d)
	}
	if !job(t, "rw=write\n").Data().Random() {
		t.Error("default data is not random")
	}
}
