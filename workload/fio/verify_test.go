package fio

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestParsePattern(t *testing.T) {
	cases := []struct {
		in   string
		want []byte
		offs []int
	}{
		{"0xaaa", []byte{0x0a, 0xaa}, nil},
		{"0xdeadface", []byte{0xde, 0xad, 0xfa, 0xce}, nil},
		{"0xff0x14", []byte{0xff, 0x14}, nil},
		{`"abcd"`, []byte("abcd"), nil},
		{"66", []byte{66}, nil},
		{"0", []byte{0}, nil},
		{"-1", []byte{0xff, 0xff, 0xff, 0xff}, nil},
		{`0xff%o"ab"-12`, append(append([]byte{0xff}, make([]byte, 8)...), 'a', 'b', 0xf4, 0xff, 0xff, 0xff), []int{1}},
	}
	for _, c := range cases {
		got, offs, err := ParsePattern(c.in)
		if err != nil || !bytes.Equal(got, c.want) || len(offs) != len(c.offs) || len(offs) > 0 && offs[0] != c.offs[0] {
			t.Errorf("%s: %x %v %v, want %x %v", c.in, got, offs, err, c.want, c.offs)
		}
	}
	for _, bad := range []string{`"open`, "0x", "zz", ""} {
		if _, _, err := ParsePattern(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	f := filepath.Join(t.TempDir(), "p")
	os.WriteFile(f, []byte{1, 2, 3}, 0o644)
	if got, _, err := ParsePattern("'" + f + "'"); err != nil || !bytes.Equal(got, []byte{1, 2, 3}) {
		t.Errorf("file pattern: %x %v", got, err)
	}
}

func TestVerifyOptions(t *testing.T) {
	jf, err := Parse("v.fio", []byte("[a]\nrw=write\nverify_pattern=0x55\nverify_backlog=8\nverify_interval=512\nverify_fatal=1\n[b]\ndo_verify=0\nverify=md5\nverify_only\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := jf.Jobs[0], jf.Jobs[1]
	if a.Verify != "pattern_hdr" || !a.Verification.DoVerify || a.Verification.Backlog != 8 || a.Verification.Interval != 512 || !a.Verification.Fatal {
		t.Errorf("a: %q %+v", a.Verify, a.Verification)
	}
	if b.Verify != "md5" || b.Verification.DoVerify || !b.Verification.Only {
		t.Errorf("b: %q %+v", b.Verify, b.Verification)
	}
	if len(jf.Ignored) != 0 {
		t.Errorf("ignored %v", jf.Ignored)
	}
}

// TestParsePatternAsFio: the values fio's t/jobs give, parsed as fio 3.33
// parses them (lib/pattern.c): t0028's "abcd"-120xdeadface is the string,
// -12 as four bytes (the decimal ends where 0x begins) and 0xdeadface;
// t0027's 16 KiB pattern file gives its first 512 bytes, all fio 3.33
// reads of it.
func TestParsePatternAsFio(t *testing.T) {
	got, _, err := ParsePattern(`"abcd"-120xdeadface`)
	if want := []byte{'a', 'b', 'c', 'd', 0xf4, 0xff, 0xff, 0xff, 0xde, 0xad, 0xfa, 0xce}; err != nil || !bytes.Equal(got, want) {
		t.Errorf(`"abcd"-120xdeadface: % x %v, want % x`, got, err, want)
	}
	f := filepath.Join(t.TempDir(), "p")
	big := make([]byte, 16<<10)
	for i := range big {
		big[i] = byte(i * 7)
	}
	os.WriteFile(f, big, 0o644)
	if got, _, err := ParsePattern("0x01'" + f + "'"); err != nil || len(got) != 512 || got[0] != 1 || !bytes.Equal(got[1:], big[:511]) {
		t.Errorf("16 KiB pattern file after a byte: %d bytes %v, want the byte and the file's first 511", len(got), err)
	}
	if _, _, err := ParsePattern("'" + f + "'0x01"); err == nil {
		t.Error("a byte after a full 512-byte pattern parsed")
	}
	if got, _, err := ParsePattern("'/dev/zero'"); err != nil || !bytes.Equal(got, make([]byte, 512)) {
		t.Errorf("/dev/zero: %d bytes %v, want 512 zeros", len(got), err)
	}
	empty := filepath.Join(t.TempDir(), "e")
	os.WriteFile(empty, nil, 0o644)
	if _, _, err := ParsePattern("'" + empty + "'"); err == nil {
		t.Error("an empty pattern file parsed")
	}
}
