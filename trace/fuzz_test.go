package trace_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/blkq-dev/blkq/trace"
)

// FuzzReader feeds the Reader arbitrary bytes, seeded with traces the
// Writer wrote. Whatever it reads must re-encode to exactly the bytes it
// consumed, an error must name the record and offset where reading
// stopped, and printing what was read must not fail and prints at most a
// line a record.
func FuzzReader(f *testing.F) {
	scen, _ := writeScenario(f, nil, trace.WriterOptions{})
	f.Add(scen)
	be, _ := writeScenario(f, errors.New("media error"), trace.WriterOptions{ByteOrder: binary.BigEndian})
	f.Add(be)
	var odd []byte
	for _, r := range oddRecords() {
		odd = trace.AppendRecord(odd, &r, binary.LittleEndian)
	}
	f.Add(odd)
	run, _ := traceJob(f, "fio-seq-read.fio", 5*time.Millisecond)
	f.Add(run)
	f.Add(scen[:len(scen)-7])
	f.Add([]byte{})

	f.Fuzz(func(t *testing.T, data []byte) {
		rd := trace.NewReader(bytes.NewReader(data))
		var re []byte
		var recs []trace.Record
		for {
			r, err := rd.Next()
			if err == io.EOF {
				if !bytes.Equal(re, data) {
					t.Fatalf("read %d records that re-encode to %d bytes of %d", len(recs), len(re), len(data))
				}
				break
			}
			if err != nil {
				var fe *trace.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("error %v is not a *FormatError", err)
				}
				if fe.Index != len(recs) || fe.Offset != int64(len(re)) || !bytes.HasPrefix(data, re) {
					t.Fatalf("%v after %d records, %d bytes", err, len(recs), len(re))
				}
				if _, again := rd.Next(); again != err {
					t.Fatalf("error changed: %v then %v", err, again)
				}
				break
			}
			re = trace.AppendRecord(re, &r, rd.ByteOrder())
			recs = append(recs, r)
		}
		if len(recs) > len(data)/trace.RecordSize {
			t.Fatalf("%d records from %d bytes", len(recs), len(data))
		}
		var out bytes.Buffer
		if err := trace.Print(&out, recs); err != nil {
			t.Fatal(err)
		}
		// Bounded output: at most one line a record.
		if lines := bytes.Count(out.Bytes(), []byte("\n")); lines > len(recs) {
			t.Fatalf("%d lines printed for %d records", lines, len(recs))
		}
		if err := trace.PrintSummary(io.Discard, recs, ""); err != nil {
			t.Fatal(err)
		}
	})
}
