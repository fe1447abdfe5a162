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
	if a.Verify != "pattern" || !a.Verification.DoVerify || a.Verification.Backlog != 8 || a.Verification.Interval != 512 || !a.Verification.Fatal {
		t.Errorf("a: %q %+v", a.Verify, a.Verification)
	}
	if b.Verify != "md5" || b.Verification.DoVerify || !b.Verification.Only {
		t.Errorf("b: %q %+v", b.Verify, b.Verification)
	}
	if len(jf.Ignored) != 0 {
		t.Errorf("ignored %v", jf.Ignored)
	}
}
