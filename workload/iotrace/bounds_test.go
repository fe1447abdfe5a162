package iotrace

import (
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

// garbage is an endless reader of random printable bytes, with a newline
// every lineLen bytes (never, when lineLen is 0); it counts what is read.
type garbage struct {
	rng     *rand.Rand
	lineLen int
	col     int
	read    int64
}

func (g *garbage) Read(p []byte) (int, error) {
	for i := range p {
		if g.lineLen > 0 && g.col == g.lineLen {
			p[i], g.col = '\n', 0
			continue
		}
		p[i] = byte(' ' + g.rng.IntN(95))
		g.col++
	}
	g.read += int64(len(p))
	return len(p), nil
}

// TestEndlessGarbageFailsAtTheFirstRecord: every reader, given endless
// garbage (in lines or in one line), fails on line 1 having read no more
// than the longest line it accepts plus its buffer, never the whole input.
func TestEndlessGarbageFailsAtTheFirstRecord(t *testing.T) {
	for _, f := range Formats {
		for _, lineLen := range []int{0, 80} {
			g := &garbage{rng: rand.New(rand.NewPCG(1, uint64(lineLen))), lineLen: lineLen}
			r, err := NewReader(g, "junk", f)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := r.Next()
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != 1 {
				t.Fatalf("%s, lines of %d: record %+v, error %v: want a ParseError on line 1", f, lineLen, rec, err)
			}
			if limit := int64(maxLine + 128<<10); g.read > limit {
				t.Fatalf("%s, lines of %d: read %d bytes before failing, want at most %d", f, lineLen, g.read, limit)
			}
			if _, err2 := r.Next(); err2 == io.EOF || err2 == nil {
				t.Fatalf("%s: the error is not sticky: %v", f, err2)
			}
		}
	}
}

// TestDetectOfGarbageFailsOnItsHead: Detect looks at 64 KiB at most.
func TestDetectOfGarbageFailsOnItsHead(t *testing.T) {
	g := &garbage{rng: rand.New(rand.NewPCG(2, 2)), lineLen: 80}
	head := make([]byte, maxDetect)
	if _, err := io.ReadFull(g, head); err != nil {
		t.Fatal(err)
	}
	big := append(head, make([]byte, 4*maxDetect)...) // NULs past the head are not looked at
	if f, err := Detect(big); err == nil || f != "" {
		t.Fatalf("Detect(garbage) = %q, %v", f, err)
	}
}
