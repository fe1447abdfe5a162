package iotrace

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
)

// Real inputs written by others, used unmodified (testdata/README.md at the repository root).
const (
	samplesDir = "../../testdata/samples"
	tracesDir  = "../../testdata/traces"
	// ktraceDir holds the kernel's own traces captured by
	// scripts/capture-kernel-traces.sh.
	ktraceDir = "../../testdata/ktrace"
)

func readCorpus(t testing.TB, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("corpus: %v", err)
	}
	return b
}

// readString reads every record of src in format f, checking each.
func readString(t *testing.T, f Format, src string) ([]Record, error) {
	t.Helper()
	r, err := NewReader(strings.NewReader(src), "t.trace", f)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReadAll(r)
	for _, rec := range recs {
		if cerr := checkRecord(rec); cerr != nil {
			t.Errorf("record %+v is malformed: %v", rec, cerr)
		}
	}
	return recs, err
}

// tableCase is one hand-written input: either the records it gives or the
// error it must produce (a substring of Error(), with the line number).
type tableCase struct {
	name    string
	in      string
	want    []Record
	wantErr string
	// truncated marks an error that must match ErrTruncated.
	truncated bool
}

func runTable(t *testing.T, f Format, cases []tableCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := readString(t, f, c.in)
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("error: %v", err)
				}
			} else {
				if err == nil {
					t.Fatalf("no error, want %q; records %+v", c.wantErr, got)
				}
				if !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %q, want it to contain %q", err, c.wantErr)
				}
				var pe *ParseError
				if !errors.As(err, &pe) || pe.Name != "t.trace" || pe.Line < 1 {
					t.Fatalf("error %v (%T) is not a *ParseError naming t.trace and a line", err, err)
				}
				if got := errors.Is(err, ErrTruncated); got != c.truncated {
					t.Fatalf("errors.Is(err, ErrTruncated) = %v, want %v (%v)", got, c.truncated, err)
				}
			}
			if len(got) == 0 && len(c.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("records:\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// Shorthands for expected records.
const (
	rd    = blkq.OpRead
	wr    = blkq.OpWrite
	flush = blkq.OpFlush
	disc  = blkq.OpDiscard
	sync  = blkq.FlagSync
)

func us(n int64) time.Duration { return time.Duration(n) * time.Microsecond }
func ns(n int64) time.Duration { return time.Duration(n) }

// plugAlone is the Plug of a bio alone on its plug.
const plugAlone = PlugIn | PlugFirst | PlugLast

// plugged returns r with Plug p.
func plugged(r Record, p Plug) Record {
	r.Plug = p
	return r
}
