package trace

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadSetReadsAFileOrThePerCPUFiles: an existing file is read alone;
// a NAME reads NAME.blktrace.0, .1, ... until one is missing; the device
// is the name before ".blktrace."; no file at all is an error naming both.
func TestReadSetReadsAFileOrThePerCPUFiles(t *testing.T) {
	dir := t.TempDir()
	rec := func(sector uint64) []byte {
		r := Record{Sector: sector, Bytes: 4096, Action: uint32(TCRead|TCQueue)<<TCShift | TAQueue}
		return AppendRecord(nil, &r, binary.LittleEndian)
	}
	for cpu, s := range []uint64{8, 16} {
		if err := os.WriteFile(filepath.Join(dir, "sda.blktrace."+string(rune('0'+cpu))), rec(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	recs, dev, err := ReadSet(filepath.Join(dir, "sda"))
	if err != nil || dev != "sda" || len(recs) != 2 || recs[0].Sector != 8 || recs[1].Sector != 16 {
		t.Fatalf("ReadSet(sda) = %d records, %q, %v; want CPU 0's then CPU 1's, device sda", len(recs), dev, err)
	}
	recs, dev, err = ReadSet(filepath.Join(dir, "sda.blktrace.1"))
	if err != nil || dev != "sda" || len(recs) != 1 || recs[0].Sector != 16 {
		t.Fatalf("ReadSet(sda.blktrace.1) = %d records, %q, %v; want that file alone", len(recs), dev, err)
	}
	if _, _, err := ReadSet(filepath.Join(dir, "sdb")); err == nil || !strings.Contains(err.Error(), "no such file, and no ") {
		t.Fatalf("a missing set: %v", err)
	}
}
