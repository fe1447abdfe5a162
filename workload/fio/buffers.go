package fio

import (
	"errors"
	"math"
)

// What a job's write buffers hold: fio 3.33's buffer options (HOWTO "I/O
// buffers"; options.c and init.c read for behaviour). Some options change
// others as they are parsed, so the order in the file matters, as in fio:
// buffer_pattern turns scramble_buffers and zero_buffers off and sets
// refill_buffers to whether the job reads or compresses at that point,
// and dedupe_percentage sets refill_buffers. The fix-ups fio makes once
// the job is parsed are in Job.Data.

// Buffers are a job's buffer options as parsed.
type Buffers struct {
	// Pattern is buffer_pattern's bytes (nil: unset), in verify_pattern's
	// syntax without %o.
	Pattern []byte
	// Zero is zero_buffers: buffers hold zeros.
	Zero bool
	// Refill is refill_buffers: each write's buffer is filled anew (fio
	// default 0: each buffer is filled once, when the job starts).
	Refill bool
	// Scramble is scramble_buffers (fio default 1): a buffer not refilled
	// gets its offset and the time written into each 512-byte block.
	Scramble bool
	// CompressPercentage is buffer_compress_percentage (0..100): the part
	// of each chunk that is zeros (or Pattern) rather than random.
	CompressPercentage int
	// CompressChunk is buffer_compress_chunk in bytes (fio default 512):
	// the unit CompressPercentage applies to.
	CompressChunk int64
	// DedupePercentage is dedupe_percentage (0..100): the share of
	// buffers that repeat an earlier one.
	DedupePercentage int
	// DedupeMode is dedupe_mode: "repeat" (fio default) or "working_set".
	DedupeMode string
	// DedupeWorkingSetPercentage is dedupe_working_set_percentage (fio
	// default 5): the working set's size as a share of the job's size.
	DedupeWorkingSetPercentage int
	// DedupeGlobal is dedupe_global (fio default 0): the working set
	// spans every job's buffers.
	DedupeGlobal bool
}

// errNoFormats: fio 3.33 parses buffer_pattern without formats.
var errNoFormats = errors.New("%o is not allowed here (fio 3.33 takes formats in verify_pattern only)")

func defaultBuffers() Buffers {
	return Buffers{Scramble: true, CompressChunk: 512, DedupeMode: "repeat", DedupeWorkingSetPercentage: 5}
}

// bufferOptions are the modelled buffer options (registered by
// buildOptionTable with the rest).
var bufferOptions = []optSpec{
	{name: "buffer_pattern", set: func(j *Job, c *optCtx) error {
		if c.bare {
			return badValue("bad buffer_pattern", c.value, "needs a pattern (fio 3.33 crashes on a bare buffer_pattern)")
		}
		p, offs, err := ParsePattern(c.value)
		if err == nil && len(offs) > 0 {
			err = errNoFormats
		}
		if err != nil {
			return badValue("bad buffer_pattern", c.value, "%v", err)
		}
		b := &j.Buffers
		b.Pattern = p
		// fio: a job that reads, or compresses, refills its write
		// buffers so that reads into them do not spoil the pattern.
		b.Refill = b.CompressPercentage > 0 || j.RW.Reads()
		b.Scramble, b.Zero = false, false
		return nil
	}},
	{name: "zero_buffers", bare: bareYes, set: func(j *Job, c *optCtx) error { return setBool(&j.Buffers.Zero, c) }},
	{name: "refill_buffers", bare: bareYes, set: func(j *Job, c *optCtx) error { return setBool(&j.Buffers.Refill, c) }},
	{name: "scramble_buffers", set: func(j *Job, c *optCtx) error { return setBool(&j.Buffers.Scramble, c) }},
	{name: "buffer_compress_percentage", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.Buffers.CompressPercentage, c, 0, 100)
	}},
	{name: "buffer_compress_chunk", scalar: true, set: func(j *Job, c *optCtx) error {
		n, err := parseInt(c.value, c.kb, 0, math.MaxInt32)
		j.Buffers.CompressChunk = n
		return err
	}},
	{name: "dedupe_percentage", scalar: true, set: func(j *Job, c *optCtx) error {
		j.Buffers.Refill = true // fio: dedupe refills every buffer
		return setInt(&j.Buffers.DedupePercentage, c, 0, 100)
	}},
	{name: "dedupe_mode", set: func(j *Job, c *optCtx) error {
		return setChoice(&j.Buffers.DedupeMode, c, "repeat", "working_set")
	}},
	{name: "dedupe_working_set_percentage", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.Buffers.DedupeWorkingSetPercentage, c, 0, 100)
	}},
	{name: "dedupe_global", set: func(j *Job, c *optCtx) error { return setBool(&j.Buffers.DedupeGlobal, c) }},
}

// DataFill is what a job's writes hold once fio's fix-ups are made: the
// buffer options as fio 3.33 applies them (fill_io_buffer's choice, in
// its order: compression or dedupe, then a pattern, then zeros, then
// random bytes).
type DataFill struct {
	// Pattern is buffer_pattern (nil: none): it fills the buffer, or the
	// compressible part of each chunk.
	Pattern []byte
	// Zero: the buffer holds zeros (zero_buffers, or
	// buffer_compress_percentage=100).
	Zero bool
	// CompressPercentage (1..99) and DedupePercentage (1..100) make the
	// buffer of chunks of Chunk bytes (buffer_compress_chunk, at most the
	// smallest write), each CompressPercentage% zeros or Pattern after its
	// random bytes; DedupePercentage% of buffers repeat another's chunks.
	CompressPercentage, DedupePercentage int
	// Chunk is the chunk size in bytes; 0 is the smallest write.
	Chunk int64
	// WorkingSet: dedupe_mode=working_set (dedupe buffers repeat one of
	// the first WorkingSetPercent% of the job's unique buffers, of every
	// job's with Global), else a dedupe buffer repeats the last unique one.
	WorkingSet        bool
	WorkingSetPercent int
	Global            bool
	// Refill: each write's buffer is filled anew; otherwise each of the
	// job's buffers is filled once and written again and again.
	Refill bool
	// Scramble: a buffer not refilled gets its offset and the time at
	// the start of each 512-byte block (scramble_buffers), unless the
	// job compresses, dedupes or verifies (the caller checks verify).
	Scramble bool
}

// Mixed reports whether the buffer is made of chunks (compression or
// dedupe).
func (d DataFill) Mixed() bool { return d.CompressPercentage > 0 || d.DedupePercentage > 0 }

// Random reports whether the buffer holds plain random bytes.
func (d DataFill) Random() bool { return !d.Mixed() && d.Pattern == nil && !d.Zero }

// Data returns what the job's writes hold, after fio's fix-ups (init.c):
// buffer_compress_percentage=100 is zero_buffers; another percentage
// refills the buffers unless refill_buffers is set; scramble_buffers
// does nothing to zero_buffers set in the file unless it is set too, nor
// to a job that compresses or dedupes (either option given, even as 0).
func (j *Job) Data() DataFill {
	b := j.Buffers
	set := func(name string) bool { _, ok := j.lines[name]; return ok }
	d := DataFill{Pattern: b.Pattern, Zero: b.Zero, CompressPercentage: b.CompressPercentage,
		DedupePercentage: b.DedupePercentage, Chunk: b.CompressChunk, WorkingSet: b.DedupeMode == "working_set",
		WorkingSetPercent: b.DedupeWorkingSetPercentage, Global: b.DedupeGlobal, Refill: b.Refill}
	switch p := b.CompressPercentage; {
	case p == 100:
		d.Zero, d.CompressPercentage = true, 0
	case p > 0 && !set("refill_buffers"):
		d.Refill = true
	}
	d.Scramble = b.Scramble && (set("scramble_buffers") || !(b.Zero && set("zero_buffers")))
	if set("buffer_compress_percentage") || set("dedupe_percentage") {
		d.Scramble = false
	}
	return d
}
