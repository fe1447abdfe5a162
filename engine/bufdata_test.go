package engine

import (
	"bytes"
	"compress/flate"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq/workload/fio"
)

// writeFile runs job on a file device of its own and returns what the
// file holds afterwards.
func writeFile(t *testing.T, job string) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dev")
	run(t, job, Options{Device: "file:" + path})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fioWrites runs job (whose sections name their files with filename=)
// through Debian's fio 3.33 in a directory of its own and returns each
// named file's bytes afterwards.
func fioWrites(t *testing.T, job string, files ...string) map[string][]byte {
	t.Helper()
	bin := needFio(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "j.fio"), []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--output-format=terse", "j.fio")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fio: %v\n%s", err, out)
	}
	got := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		got[f] = b
	}
	return got
}

// repeated returns pat repeated from the start of each block of bs bytes
// over n bytes: what fio's buffer_pattern writes.
func repeated(pat []byte, bs, n int) []byte {
	out := make([]byte, n)
	for b := 0; b < n; b += bs {
		for i := b; i < min(b+bs, n); i += len(pat) {
			copy(out[i:min(b+bs, n)], pat)
		}
	}
	return out
}

// TestBufferPatternAndZeroBuffersBytesAsFio: on a file, buffer_pattern
// (fio's syntax: t0028's "abcd"-120xdeadface, a pattern file of which
// fio 3.33 reads 512 bytes) fills every write from its start, direct and
// through the page cache, and zero_buffers writes zeros: the file holds
// exactly those bytes, and the same bytes fio 3.33 leaves for the job.
func TestBufferPatternAndZeroBuffersBytesAsFio(t *testing.T) {
	dir := t.TempDir()
	patFile := filepath.Join(dir, "pattern")
	big := make([]byte, 16<<10)
	for i := range big {
		big[i] = byte(i*131 + i>>9)
	}
	if err := os.WriteFile(patFile, big, 0o644); err != nil {
		t.Fatal(err)
	}
	abcd := []byte{'a', 'b', 'c', 'd', 0xf4, 0xff, 0xff, 0xff, 0xde, 0xad, 0xfa, 0xce}
	cases := []struct {
		name, opts string
		bs         int
		want       []byte
	}{
		{"t0028-pattern", `buffer_pattern="abcd"-120xdeadface`, 4096, repeated(abcd, 4096, 64<<10)},
		{"five-bytes-3k", "buffer_pattern=0x0102030405\nbs=3k\nsize=63k", 3072, repeated([]byte{1, 2, 3, 4, 5}, 3072, 63<<10)},
		{"file-512-of-16k", "buffer_pattern='" + patFile + "'", 4096, repeated(big[:512], 4096, 64<<10)},
		{"zero", "zero_buffers", 4096, make([]byte, 64<<10)},
		{"zero-scramble-0", "zero_buffers=1\nscramble_buffers=0\nrefill_buffers", 4096, make([]byte, 64<<10)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, direct := range []int{1, 0} {
				job := fmt.Sprintf("[j]\nrw=write\nsize=64k\nbs=4k\ndirect=%d\n%s\n", direct, c.opts)
				got := writeFile(t, job)
				if !bytes.Equal(got[:len(c.want)], c.want) {
					i := 0
					for i < len(c.want) && got[i] == c.want[i] {
						i++
					}
					t.Errorf("direct=%d: the file differs from the pattern at byte %d: % x", direct, i, got[i:min(i+16, len(got))])
				}
			}
			fioJob := fmt.Sprintf("[j]\nfilename=f\nrw=write\nsize=64k\nbs=4k\n%s\n", c.opts)
			if f := fioWrites(t, fioJob, "f")["f"]; !bytes.Equal(f[:len(c.want)], c.want) {
				t.Errorf("fio 3.33 writes something else: % x...", f[:16])
			}
		})
	}
}

// dupFraction is the share of the bs-byte blocks of b that are the same
// as an earlier block of b.
func dupFraction(b []byte, bs int) float64 {
	seen := map[string]bool{}
	dups, n := 0, 0
	for i := 0; i+bs <= len(b); i += bs {
		k := string(b[i : i+bs])
		if seen[k] {
			dups++
		}
		seen[k] = true
		n++
	}
	return float64(dups) / float64(n)
}

// compressedFraction is what flate (level 6) leaves of b, as a share of
// its length.
func compressedFraction(t *testing.T, b []byte) float64 {
	var out bytes.Buffer
	w, err := flate.NewWriter(&out, flate.DefaultCompression)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	w.Close()
	return float64(out.Len()) / float64(len(b))
}

// TestCompressAndDedupePercentagesAsFio: on a file, the share of the
// data that flate can remove is buffer_compress_percentage's, and the
// share of 4 KiB blocks that repeat an earlier one is dedupe_percentage's
// (repeat and working_set modes), within the sampling error of 1024
// blocks (4 standard deviations) or a margin for flate's own overhead;
// fio 3.33's file for the same job measures the same. Without refill
// and scramble (scramble_buffers=0) every write of a psync job repeats
// its one buffer, as fio's does.
func TestCompressAndDedupePercentagesAsFio(t *testing.T) {
	const size = 4 << 20
	blocks := float64(size / 4096)
	cases := []struct {
		name, opts       string
		compressed, dups float64 // expected fractions
	}{
		{"compress-25", "buffer_compress_percentage=25", 0.75, 0},
		{"compress-50", "buffer_compress_percentage=50", 0.50, 0},
		{"compress-75-chunk-4k", "buffer_compress_percentage=75\nbuffer_compress_chunk=4k", 0.25, 0},
		{"compress-50-pattern", "buffer_compress_percentage=50\nbuffer_pattern=0x00", 0.50, 0},
		{"dedupe-30", "dedupe_percentage=30", 1, 0.30},
		{"dedupe-30-ws", "dedupe_percentage=30\ndedupe_mode=working_set\ndedupe_working_set_percentage=10", 1, 0.30},
		{"dedupe-60-compress-50", "dedupe_percentage=60\nbuffer_compress_percentage=50", 0.50, 0.60},
		{"static", "scramble_buffers=0", 0, 1 - 1/blocks},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sd := math.Sqrt(c.dups * (1 - c.dups) / blocks)
			check := func(who string, b []byte) {
				b = b[:size]
				comp, dups := compressedFraction(t, b), dupFraction(b, 4096)
				t.Logf("%s: flate leaves %.4f, %.4f of 4 KiB blocks repeat an earlier one", who, comp, dups)
				// flate's stored blocks cost a little over the random
				// bytes. (It sees repeats only within 32 KiB: the
				// dedupe cases are measured by their blocks alone.)
				if c.dups == 0 && (comp > c.compressed+0.02 || comp < c.compressed-0.01) {
					t.Errorf("%s: flate leaves %.4f of the file; want about %.2f", who, comp, c.compressed)
				}
				if math.Abs(dups-c.dups) > 4*sd+1e-9 {
					t.Errorf("%s: %.4f of the blocks repeat an earlier one; want %.2f ± %.4f", who, dups, c.dups, 4*sd)
				}
			}
			job := fmt.Sprintf("rw=write\nsize=%d\nbs=4k\n%s\n", size, c.opts)
			check("blkq", writeFile(t, "[j]\ndirect=1\n"+job))
			check("blkq buffered", writeFile(t, "[j]\n"+job))
			check("fio 3.33", fioWrites(t, "[j]\nfilename=f\n"+job, "f")["f"])
		})
	}
}

// TestCorpusDedupeGlobalDedupesAcrossJobs: dedupe-global.fio (at 8 MiB a
// job) on a file: each job's dedupe buffers come from a working set made
// of both jobs' first buffers, so a file alone repeats about a third of
// its blocks while the two files together repeat half of theirs (the
// corpus file's own figures: 1:0.52 and 1:0.51 apart, 1:0.99 combined);
// fio 3.33 writes files that measure the same.
func TestCorpusDedupeGlobalDedupesAcrossJobs(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(corpusDir, "dedupe-global.fio"))
	if err != nil {
		t.Fatal(err)
	}
	jf, err := fio.Parse("dedupe-global.fio", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(jf.Ignored) != 0 {
		t.Fatalf("options ignored: %v", jf.Ignored)
	}
	const size = 8 << 20
	path := filepath.Join(t.TempDir(), "dev")
	if _, err := Run(jf, Options{Device: "file:" + path, SizeCap: size}); err != nil {
		t.Fatal(err)
	}
	dev, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// a.0.0 then b.0.0, each in its own extent (8 MiB: no padding).
	check := func(who string, a, b []byte) {
		fa, fb := dupFraction(a, 4096), dupFraction(b, 4096)
		both := dupFraction(append(append([]byte{}, a...), b...), 4096)
		t.Logf("%s: a repeats %.4f of its blocks, b %.4f, the two together %.4f", who, fa, fb, both)
		// 2048 blocks a file: half are dedupe buffers, half of those
		// from the working set's pages of the file's own first 512
		// unique buffers, half from the other's. The first 128 of each
		// are never written (iodepth=256 buffers filled as the job
		// starts took them, half of them unique), so of the 1024 pages
		// 256 are only ever dedupe buffers: a file repeats about 0.3 of
		// its blocks, the two together 0.45 (all dedupe buffers but one
		// for each unwritten page picked, 256·(1-e⁻²) of them).
		for _, f := range []float64{fa, fb} {
			if f < 0.26 || f > 0.34 {
				t.Errorf("%s: a file alone repeats %.4f of its blocks; want about 0.30", who, f)
			}
		}
		if both < 0.42 || both > 0.47 || both < max(fa, fb)+0.1 {
			t.Errorf("%s: the two files repeat %.4f of their blocks; want about 0.45, more than each file alone", who, both)
		}
		// Repeats are too far apart for flate: it sees the compression.
		if cf := compressedFraction(t, a); cf < 0.49 || cf > 0.53 {
			t.Errorf("%s: flate leaves %.4f of a; buffer_compress_percentage=50 wants about 0.50", who, cf)
		}
	}
	check("blkq", dev[:size], dev[size:2*size])
	fioJob := strings.Replace(string(src), "size=100m", "size=8m", 1)
	fioJob = strings.Replace(fioJob, "[a]", "[a]\nfilename=a", 1)
	fioJob = strings.Replace(fioJob, "[b]", "[b]\nfilename=b", 1)
	got := fioWrites(t, fioJob, "a", "b")
	check("fio 3.33", got["a"], got["b"])
}

// TestVerifyWithBufferOptions: verify still works with the buffer
// options, and the blocks are fio 3.33's: verify fills each block with
// random bytes, the last buffer_compress_percentage% of it with
// buffer_pattern (or zeros), and writes its header over the start;
// verify_pattern wins over buffer_pattern; verify=null writes what the
// buffer options give. blkq's verify passes, fio's --verify_only passes
// on blkq's file, and fio's file for the job has the same tails (and,
// without compression, no more than fio's does compresses).
func TestVerifyWithBufferOptions(t *testing.T) {
	fioPath := needFio(t)
	tail := func(b []byte, pat byte) bool { // every 4 KiB block's second half is pat
		for blk := 0; blk+4096 <= len(b); blk += 4096 {
			for _, c := range b[blk+2048 : blk+4096] {
				if c != pat {
					return false
				}
			}
		}
		return true
	}
	for _, c := range []struct {
		name, opts string
		check      func(b []byte) bool
	}{
		{"crc32c-compress-50-pattern", "verify=crc32c\nbuffer_compress_percentage=50\nbuffer_pattern=0x5a", func(b []byte) bool { return tail(b, 0x5a) }},
		{"md5-compress-50", "verify=md5\nbuffer_compress_percentage=50", func(b []byte) bool { return tail(b, 0) }},
		{"md5-buffer-pattern", "verify=md5\nbuffer_pattern=0x5a", func(b []byte) bool { return !tail(b, 0x5a) && compressedFraction(t, b) > 0.98 }},
		{"pattern-over-buffer-pattern", "verify=pattern\nverify_pattern=0x11\nbuffer_pattern=0x5a", func(b []byte) bool { return bytes.Equal(b, bytes.Repeat([]byte{0x11}, len(b))) }},
		{"pattern-hdr-over-buffer-pattern", "verify_pattern=0x11\nbuffer_pattern=0x5a", func(b []byte) bool { return tail(b, 0x11) && b[0] == 0xca && b[1] == 0xac }},
		{"null-zero", "verify=null\nzero_buffers", func(b []byte) bool { return bytes.Equal(b, make([]byte, len(b))) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, path := newDataFile(t, 1<<20)
			src := verifyJob(path, "0", c.opts)
			src = strings.Replace(src, "verify=0\n", "", 1)
			res := runBlkqFile(t, path, src)
			if js := res.Run.Jobs[0]; js.Error != 0 || js.Write.Bytes != 1<<20 || js.Read.Bytes != 1<<20 {
				t.Fatalf("blkq write+verify: err %d (%s) %q, wrote %d, read %d", js.Error, js.ErrorText, res.IOErrors, js.Write.Bytes, js.Read.Bytes)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !c.check(b) {
				t.Errorf("blkq's blocks are not as fio fills them: % x ... % x", b[:8], b[2048:2056])
			}
			if out, ok := fioCombined(t, fioPath, dir, src, "--verify_only"); !ok || strings.Contains(out, "verify:") || strings.Contains(out, "verify failed") {
				t.Fatalf("fio --verify_only of blkq's data failed:\n%s", out)
			}
			if out, ok := fioCombined(t, fioPath, dir, src); !ok {
				t.Fatalf("fio write+verify failed:\n%s", out)
			}
			if b, err := os.ReadFile(path); err != nil || !c.check(b) {
				t.Errorf("fio 3.33's blocks differ: % x ... % x (%v)", b[:8], b[2048:2056], err)
			}
		})
	}
}
