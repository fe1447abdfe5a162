package fio

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The size suffix rules were checked against Debian's fio 3.33-3 binary
// (size=X with bs=1 on the null engine, reading io_bytes). fio's HOWTO says
// "1mi" is the decimal form under kb_base=1024; the binary disagrees: the
// decimal forms are the ones ending in "ib" (1mib, 4KiB), and a bare "i"
// changes nothing (1mi = 1m, 1000ki = 1000k). What follows a number and
// its unit fio ignores, and so do we (fio's io_bytes for size=4kx, 4Q,
// "4 k", 1.5k, 0x10k, 10x, 1e: 4096, 4, 4, 1, 16, 16, 1).
func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		kb   int64
		want int64
	}{
		{"0", 1024, 0},
		{"4096", 1024, 4096},
		{"4096b", 1024, 4096},
		{"4096B", 1024, 4096},
		{"4k", 1024, 4096},
		{"4K", 1024, 4096},
		{"4kb", 1024, 4096},
		{"4kB", 1024, 4096},
		{"4KB", 1024, 4096},
		{"4Kb", 1024, 4096},
		{"1m", 1024, 1 << 20},
		{"1mb", 1024, 1 << 20},
		{"1MB", 1024, 1 << 20},
		{"1024k", 1024, 1 << 20},
		{"1g", 1024, 1 << 30},
		{"1t", 1024, 1 << 40},
		{"1024g", 1024, 1 << 40},
		{"1048576m", 1024, 1 << 40},
		{"1p", 1024, 1 << 50},
		// The "ib" forms are decimal under the default kb_base=1024.
		{"4KiB", 1024, 4000},
		{"4kib", 1024, 4000},
		{"1mib", 1024, 1000000},
		{"1MiB", 1024, 1000000},
		{"1tib", 1024, 1000000000000},
		// A bare "i" is ignored (observed; the HOWTO says otherwise).
		{"1mi", 1024, 1 << 20},
		{"1000ki", 1024, 1024000},
		{"4ki", 1024, 4096},
		// kb_base=1000 swaps the two.
		{"4k", 1000, 4000},
		{"4kb", 1000, 4000},
		{"4ki", 1000, 4000},
		{"4kib", 1000, 4096},
		{"4KiB", 1000, 4096},
		{"1m", 1000, 1000000},
		{"1mib", 1000, 1 << 20},
		{"1024ki", 1000, 1024000},
		{"4096", 1000, 4096},
		// Hexadecimal, with or without a unit.
		{"0x100", 1024, 256},
		{"0X100", 1024, 256},
		{"0x1b", 1024, 27},
		{"0x10k", 1024, 16}, // fio: the unit would start at the 'x'
		// What fio ignores: anything after the number and its unit.
		{"4kx", 1024, 4096},
		{"4kk", 1024, 4096},
		{"4k-", 1024, 4096},
		{"4k-8k", 1024, 4096},
		{"4k:", 1024, 4096},
		{"4KiBx", 1024, 4000},
		{"4Q", 1024, 4},
		{"4q", 1024, 4},
		{"4 k", 1024, 4},
		{"1.5k", 1024, 1},
		{"10x", 1024, 16}, // "0x" anywhere makes it hexadecimal
		{"1e", 1024, 1},
		{"0x", 1024, 0},
		{"+64k", 1024, 64 << 10},
		{"4Z", 1024, 4}, // only a lowercase 'z' is a zone unit
		// Arithmetic.
		{"(1+1)", 1024, 2},
		{"(4k*2)", 1024, 8192},
		{"( 2 * (3 + 4) )", 1024, 14},
		{"(10/3)", 1024, 3},
		{"(10%3)", 1024, 1},
		{"(2^10)", 1024, 1024},
		{"(2^3^2)", 1024, 512},
		{"(-4+6)", 1024, 2},
		{"(1m-1k)", 1024, 1<<20 - 1024},
		{"(1k)", 1000, 1000},
		{" 8k ", 1024, 8192},
	}
	for _, tc := range tests {
		got, err := parseSize(tc.in, tc.kb)
		if err != nil || got != tc.want {
			t.Errorf("parseSize(%q, kb_base=%d) = %d, %v; want %d", tc.in, tc.kb, got, err, tc.want)
		}
	}
}

func TestParseSizeErrors(t *testing.T) {
	for _, in := range []string{
		"", "k", "-4k", "abc", "x4k", ".5k", "4z", "4kz", "20%", "20%x",
		"99999999999999999999", "8192p", "(1+", "(1+)", "((1)", "(1/0)", "(1%0)", "(2^-1)", "(2^64)",
		"(9223372036854775807+1)", "(1)k", "(abc)", "()", "(-9223372036854775807-1)/(-1)",
		"(" + strings.Repeat("(", 100) + "1" + strings.Repeat(")", 101),
	} {
		if n, err := parseSize(in, 1024); err == nil {
			t.Errorf("parseSize(%q) = %d, want error", in, n)
		} else if !strings.Contains(err.Error(), "bad size") {
			t.Errorf("parseSize(%q): %v", in, err)
		}
	}
	if _, err := parseSize("Q4", 1024); err == nil || err.Error() != `bad size "Q4": not a number` {
		t.Errorf("message: %v", err)
	}
}

func TestParseSignedSize(t *testing.T) {
	for in, want := range map[string]int64{"-8k": -8192, "8k": 8192, "-0x10": -16, "(0-4k)": -4096} {
		if got, err := parseSignedSize(in, 1024); err != nil || got != want {
			t.Errorf("parseSignedSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestParseSizeOrPercent(t *testing.T) {
	n, pct, err := parseSizeOrPercent("20%", 1024)
	if err != nil || n != 0 || pct != 20 {
		t.Errorf("20%%: %d %v %v", n, pct, err)
	}
	n, pct, err = parseSizeOrPercent("1g", 1024)
	if err != nil || n != 1<<30 || pct != 0 {
		t.Errorf("1g: %d %v %v", n, pct, err)
	}
	// fio reads a percentage as a whole number: 50.5% is 50 bytes.
	if n, pct, err := parseSizeOrPercent("50.5%", 1024); err != nil || n != 50 || pct != 0 {
		t.Errorf("50.5%%: %d %v %v", n, pct, err)
	}
	if n, pct, err := parseSizeOrPercent("20%x", 1024); err != nil || n != 0 || pct != 20 {
		t.Errorf("20%%x: %d %v %v", n, pct, err)
	}
	for _, in := range []string{"0%", "101%", "-5%", "x%", "%", "NaN%"} {
		if _, _, err := parseSizeOrPercent(in, 1024); err == nil {
			t.Errorf("%q: want error", in)
		}
	}
}

func TestParseInt(t *testing.T) {
	if n, err := parseInt("1k", 1024, 1, math.MaxInt64); err != nil || n != 1024 {
		t.Errorf("1k: %d %v", n, err)
	}
	if _, err := parseInt("0", 1024, 1, 10); err == nil || !strings.Contains(err.Error(), "between 1 and 10") {
		t.Errorf("range: %v", err)
	}
	if _, err := parseInt("-1", 1024, 1, math.MaxInt64); err == nil || !strings.Contains(err.Error(), "at least 1") {
		t.Errorf("min: %v", err)
	}
	for in, want := range map[string]bool{"0": false, "1": true} {
		if b, err := parseBool(in); err != nil || b != want {
			t.Errorf("parseBool(%q) = %v, %v", in, b, err)
		}
	}
	for _, in := range []string{"2", "-1", "true", "yes", "on", ""} {
		if _, err := parseBool(in); err == nil {
			t.Errorf("parseBool(%q): want error", in)
		}
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		def  time.Duration
		want time.Duration
	}{
		{"60", time.Second, time.Minute},
		{"0", time.Second, 0},
		{"10s", time.Second, 10 * time.Second},
		{"1S", time.Second, time.Second},
		{"1sec", time.Second, time.Second},
		{"500ms", time.Second, 500 * time.Millisecond},
		{"1500MSEC", time.Second, 1500 * time.Millisecond},
		{"300000us", time.Second, 300 * time.Millisecond},
		{"20usec", time.Second, 20 * time.Microsecond},
		{"10m", time.Second, 10 * time.Minute},
		{"2h", time.Second, 2 * time.Hour},
		{"1d", time.Second, 24 * time.Hour},
		{"365d", time.Second, 365 * 24 * time.Hour},
		// thinktime: a bare number is microseconds.
		{"2000", time.Microsecond, 2 * time.Millisecond},
		{"2ms", time.Microsecond, 2 * time.Millisecond},
		// Inside ( ) a bare number is microseconds whatever the option.
		{"(1000000)", time.Second, time.Second},
		{"(1s+500ms)", time.Second, 1500 * time.Millisecond},
		{"(2*1m)", time.Second, 2 * time.Minute},
	}
	for _, tc := range tests {
		got, err := parseDuration(tc.in, tc.def)
		if err != nil || got != tc.want {
			t.Errorf("parseDuration(%q, %v) = %v, %v; want %v", tc.in, tc.def, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "s", "1x", "1.5", "-1", "0x10", "10ns", "1 s", "9999999999999999d", "(1-2s)", "(1q)"} {
		if d, err := parseDuration(in, time.Second); err == nil {
			t.Errorf("parseDuration(%q) = %v, want error", in, d)
		}
	}
}

func TestRanges(t *testing.T) {
	tests := []struct {
		in   string
		want Range
	}{
		{"1k-4k", Range{1024, 4096}},
		{"1k:4k", Range{1024, 4096}},
		{"4k-1k", Range{1024, 4096}},
		{"4k", Range{4096, 4096}},
		{" 1k - 4k ", Range{1024, 4096}},
		{"0x400-0x800", Range{1024, 2048}},
		{"(1k+1k)-(2*4k)", Range{2048, 8192}},
	}
	for _, tc := range tests {
		got, err := parseSizeRange(tc.in, 1024)
		if err != nil || got != tc.want {
			t.Errorf("parseSizeRange(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	// fio reads each end as a size, ignoring what follows it.
	if r, err := parseSizeRange("1k-4k-8k", 1024); err != nil || r != (Range{1024, 4096}) {
		t.Errorf("parseSizeRange(1k-4k-8k) = %v, %v; want 1k-4k", r, err)
	}
	for _, in := range []string{"-1k-4k", "1k-", "-", "a-b"} {
		if r, err := parseSizeRange(in, 1024); err == nil {
			t.Errorf("parseSizeRange(%q) = %v, want error", in, r)
		}
	}
	d, err := parseDurationRange("5-1", time.Second)
	if err != nil || d != [2]time.Duration{time.Second, 5 * time.Second} {
		t.Errorf("duration range %v %v", d, err)
	}
}

func TestDirParts(t *testing.T) {
	tests := []struct {
		in    string
		parts [3]string
		set   [3]bool
	}{
		{"a", [3]string{"a", "a", "a"}, [3]bool{true, true, true}},
		{"a,b", [3]string{"a", "b", "b"}, [3]bool{true, true, true}},
		{"a,b,c", [3]string{"a", "b", "c"}, [3]bool{true, true, true}},
		{",b", [3]string{"", "b", "b"}, [3]bool{false, true, true}},
		{"a,", [3]string{"a", "", ""}, [3]bool{true, false, false}},
		{"a,,c", [3]string{"a", "", "c"}, [3]bool{true, false, true}},
		{"(1+1),2", [3]string{"(1+1)", "2", "2"}, [3]bool{true, true, true}},
	}
	for _, tc := range tests {
		p, s, err := dirParts(tc.in)
		if err != nil || p != tc.parts || s != tc.set {
			t.Errorf("dirParts(%q) = %q %v %v", tc.in, p, s, err)
		}
	}
	for _, in := range []string{"a,b,c,d", ",", ",,"} {
		if _, _, err := dirParts(in); err == nil {
			t.Errorf("dirParts(%q): want error", in)
		}
	}
}

func TestParseBSSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []Split
	}{
		// In order of share, smallest first (stably), as fio keeps them.
		{"4k/10:64k/50:32k/40", []Split{{4096, 10}, {32768, 40}, {65536, 50}}},
		{"64k/40:1024k/60", []Split{{65536, 40}, {1 << 20, 60}}},
		{"4k", []Split{{4096, 100}}},
		{"4k/", []Split{{4096, 100}}},
		// Entries without a percentage share the remainder equally.
		{"4k/50:8k:16k", []Split{{8192, 25}, {16384, 25}, {4096, 50}}},
		{"4k:8k:16k", []Split{{4096, 33}, {8192, 33}, {16384, 33}}},
		{"4k/100:8k", []Split{{8192, 0}, {4096, 100}}},
		// Under 100 with nothing missing is kept as written, as fio does.
		{"4k/30:8k/30", []Split{{4096, 30}, {8192, 30}}},
		{"4k/0:8k/100", []Split{{4096, 0}, {8192, 100}}},
		// fio's reading (each checked by the sizes of fio's I/O, rw=read
		// on the null engine): a share is C's atoi, 0 or none shares the
		// rest, over 100 (or negative) is 100, the list ends at an
		// empty entry, and shares over 100 stand.
		{"4k/0:8k/50", []Split{{4096, 50}, {8192, 50}}},
		{"4k/50:8k/x", []Split{{4096, 50}, {8192, 50}}},
		{"4k/50/1", []Split{{4096, 50}}},
		{"4k/101", []Split{{4096, 100}}},
		{"4k/-5:8k/50", []Split{{8192, 50}, {4096, 100}}},
		{"4k/50::8k/50", []Split{{4096, 50}}},
		{"4k/50:8k/60", []Split{{4096, 50}, {8192, 60}}},
		{"4k/60:8k/20", []Split{{8192, 20}, {4096, 60}}},
		// The one entry without a share beside shares over 100 takes
		// every I/O (fio: 16k 100%).
		{"4k/50:8k/60:16k", []Split{{16384, 100}, {4096, 50}, {8192, 60}}},
	}
	for _, tc := range tests {
		got, err := parseBSSplit(tc.in, 1024)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseBSSplit(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{
		"4k/50:8k/60:16k:32k", "0/100", "x/10", "", ":4k",
		strings.Repeat("4k:", 64) + "4k",
	} {
		if sp, err := parseBSSplit(in, 1024); err == nil {
			t.Errorf("parseBSSplit(%q) = %v, want error", in, sp)
		}
	}
}

func TestFilenames(t *testing.T) {
	tests := map[string][]string{
		"a":             {"a"},
		"a:b":           {"a", "b"},
		`a\:b`:          {"a:b"},
		`/dev/a:\:x:`:   {"/dev/a", ":x"},
		"a::b":          {"a", "b"},
		`c\d`:           {`c\d`},
		`trailing\`:     {`trailing\`},
		"/tmp/x y:/t/z": {"/tmp/x y", "/t/z"},
	}
	for in, want := range tests {
		if got := parseFilenames(in); !reflect.DeepEqual(got, want) {
			t.Errorf("parseFilenames(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExpandEnv(t *testing.T) {
	env := mapEnv(map[string]string{"A": "x", "B": "${A}"})
	tests := map[string]string{
		"${A}":       "x",
		"p${A}q${A}": "pxqx",
		"${NONE}z":   "z",
		"${B}":       "${A}", // not rescanned
		"${A":        "${A",
		"$A":         "$A",
		"${}":        "",
		"":           "",
	}
	for in, want := range tests {
		if got := expandEnv(in, env); got != want {
			t.Errorf("expandEnv(%q) = %q, want %q", in, got, want)
		}
	}
	if got := expandEnv("a${A}b", nil); got != "ab" {
		t.Errorf("nil env: %q", got)
	}
	out, ok := replaceKeywords("bs=$pagesize,$ncpus:$mb_memory", testKeywords)
	if !ok || out != "bs=4096,2:2048" {
		t.Errorf("replaceKeywords: %q %v", out, ok)
	}
	if _, ok := replaceKeywords("name=$jobname", testKeywords); ok {
		t.Error("$jobname is not a keyword")
	}
	if kw := HostKeywords(); kw.PageSize <= 0 || kw.NCPUs <= 0 {
		t.Errorf("host keywords %+v", kw)
	}
}

func TestEngineKind(t *testing.T) {
	want := map[string]string{
		"sync": "sync", "psync": "sync", "vsync": "sync", "pvsync": "sync", "pvsync2": "sync",
		"libaio": "async", "io_uring": "async", "posixaio": "async", "null": "null", "nbd": "nbd",
	}
	for name, kind := range want {
		if k, ok := EngineKind(name); !ok || k != kind {
			t.Errorf("EngineKind(%q) = %q, %v", name, k, ok)
		}
	}
	for _, name := range []string{"net", "http", "rdma", "sg", "mmap", "cpuio", "exec", "falloc", "filecreate",
		"io_uring_cmd", "external:/x.so", "LIBAIO", ""} {
		if k, ok := EngineKind(name); ok {
			t.Errorf("EngineKind(%q) = %q, want not emulated", name, k)
		}
	}
}

// TestParseSizeOfAFlag: blkq's own flags take a number and a unit and
// nothing else, where a job file's value is read as fio reads it.
func TestParseSizeOfAFlag(t *testing.T) {
	for in, want := range map[string]int64{"64m": 64 << 20, "4k": 4096, "0x10k": 16 << 10, "1mib": 1000000, "(2*4k)": 8192, " 8k ": 8192} {
		if n, err := ParseSize(in); err != nil || n != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, n, err, want)
		}
	}
	for _, in := range []string{"12x", "1.5g", "4k-", "4 k", "-4k", "", "k", "4z"} {
		if n, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d; want an error", in, n)
		}
	}
}
