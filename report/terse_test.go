package report

import (
	"strconv"
	"strings"
	"testing"
)

// TestTerseVersionsLayout: each terse version has fio 3.33's number of
// fields (counted on fio's own lines for one job with one disk: version 3
// has 121 before the disk's 9, version 4 adds trim's 41, version 5 six
// sample fields per direction, version 2 drops fio's version and the
// disk), its version first, and the values in their places.
func TestTerseVersionsLayout(t *testing.T) {
	r := randrwRun(t)
	r.GroupReporting = nil
	r.Jobs = r.Jobs[:1]
	j := r.Jobs[0]
	j.Trim.IOs, j.Trim.Bytes, j.Trim.Runtime = 3, 3*8192, 2001e6
	j.Trim.BW.Add(12)
	j.Trim.IOPS.Add(1.5)
	for _, c := range []struct {
		ver, fields int
		head        []string // the fields before the read direction's
	}{
		{2, 161, []string{"2", "randrw", "0", "0"}},
		{3, 121 + 9, []string{"3", "fio-3.33", "randrw", "0", "0"}},
		{4, 162 + 9, []string{"4", "fio-3.33", "randrw", "0", "0"}},
		{5, 180 + 9, []string{"5", "fio-3.33", "randrw", "0", "0"}},
	} {
		r.TerseVersion = c.ver
		var b strings.Builder
		if err := Write(&b, r, FormatTerse); err != nil {
			t.Fatal(err)
		}
		line := strings.TrimSuffix(b.String(), "\n")
		if strings.Contains(line, "\n") {
			t.Fatalf("v%d: %d lines, want 1", c.ver, strings.Count(b.String(), "\n"))
		}
		f := strings.Split(line, ";")
		if len(f) != c.fields {
			t.Fatalf("v%d: %d fields, want %d:\n%s", c.ver, len(f), c.fields, line)
		}
		if got := strings.Join(f[:len(c.head)], ";"); got != strings.Join(c.head, ";") {
			t.Errorf("v%d: starts %q, want %q", c.ver, got, strings.Join(c.head, ";"))
		}
		per := 41 // fields of one direction
		if c.ver == 5 {
			per = 47
		}
		kib := func(d int) string { return f[len(c.head)+d*per] }
		if kib(0) != itoa(j.Read.Bytes>>10) || kib(1) != itoa(j.Write.Bytes>>10) {
			t.Errorf("v%d: read %s KiB, write %s KiB; want %d, %d", c.ver, kib(0), kib(1), j.Read.Bytes>>10, j.Write.Bytes>>10)
		}
		if c.ver != 3 && kib(2) != "24" {
			t.Errorf("v%d: trim %s KiB, want 24", c.ver, kib(2))
		}
		if c.ver == 5 {
			// read: ...bw min, max, per, mean, dev, then bw samples and
			// the IOPS min, max, mean, dev, samples.
			rd := f[len(c.head) : len(c.head)+per]
			if rd[41] != "3" || rd[46] != "3" || rd[42] != "9519" || rd[43] != "11396" {
				t.Errorf("v5: read's sample fields %v, want bw samples 3, iops 9519..11396 of 3", rd[41:])
			}
		}
		disk := f[len(f)-9]
		if c.ver >= 3 && disk != "vda" {
			t.Errorf("v%d: disk field %q, want vda", c.ver, disk)
		}
		if c.ver == 2 && strings.Contains(line, "vda") {
			t.Errorf("v2 has disk fields: %s", line)
		}
	}
	// The description: the last field, on a line of its own in version 2.
	j.Description = "mixed"
	for ver, tail := range map[int]string{2: "%\n;mixed\n", 4: "%;mixed\n"} {
		r.TerseVersion = ver
		var b strings.Builder
		Write(&b, r, FormatTerse)
		if !strings.HasSuffix(b.String(), tail) {
			t.Errorf("v%d with a description ends %q, want %q", ver, b.String()[b.Len()-20:], tail)
		}
	}
	r.TerseVersion = 6
	if err := Write(new(strings.Builder), r, FormatTerse); err == nil {
		t.Error("terse version 6 written")
	}
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }
