package engine

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq"
)

// Helpers that run one job through Debian's fio 3.33 and through blkq and
// return the I/O each issued, so the tests beside them can compare the
// two: fio's offsets come from its write_iolog, its rate_process=poisson
// gaps from --debug=rate (which prints each drawn gap as 10^6/gap µs),
// blkq's from the queue's event stream (each bio as it is queued, in
// virtual time).

// ioRec is one I/O: its byte offset in the file, its length, and (blkq
// only) when it was queued, in ns.
type ioRec struct {
	off, n int64
	at     blkq.Time
}

// needFio returns the fio binary; under CI=true a missing fio fails the
// test (test.sh installs it), elsewhere it skips.
func needFio(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("fio")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("fio not found (test.sh installs Debian's fio): %v", err)
		}
		t.Skipf("fio not installed: %v", err)
	}
	return p
}

// fioIOs runs job (a section body, without ioengine or files) through fio
// on a file of its own in a temporary directory (engine: "null" or
// "psync") and returns the reads and writes of its iolog, in order, and
// fio's output. A file of layout bytes is made first when layout > 0:
// fio takes percentage offsets of the size the file has before the job
// lays it out (0 for a new file).
func fioIOs(t *testing.T, engine, body string, layout int64, args ...string) ([]ioRec, []byte) {
	t.Helper()
	bin := needFio(t)
	dir := t.TempDir()
	if layout > 0 {
		if err := os.WriteFile(filepath.Join(dir, "j.0.0"), make([]byte, layout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	logPath := filepath.Join(dir, "io.log")
	// fio runs in dir with names relative to it: fio seeds zipf, pareto
	// and normal from a hash of the file's name, which is then the same
	// on every run.
	job := fmt.Sprintf("[j]\nioengine=%s\nwrite_iolog=io.log\n%s\n", engine, body)
	if err := os.WriteFile(filepath.Join(dir, "j.fio"), []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"--output-format=terse", "j.fio"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("fio %s: %v\n%s", job, err, out)
	}
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ios []ioRec
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// fio's iolog v3: "TIME FILE ACTION OFFSET LENGTH".
		fs := strings.Fields(sc.Text())
		if len(fs) != 5 || (fs[2] != "read" && fs[2] != "write" && fs[2] != "trim") {
			continue
		}
		off, err1 := strconv.ParseInt(fs[3], 10, 64)
		n, err2 := strconv.ParseInt(fs[4], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("iolog line %q", sc.Text())
		}
		ios = append(ios, ioRec{off: off, n: n})
	}
	return ios, out
}

// fioPoissonGaps returns the gaps fio's rate_process=poisson drew for
// job (ioengine=null), in µs, from --debug=rate.
func fioPoissonGaps(t *testing.T, body string) []float64 {
	t.Helper()
	_, out := fioIOs(t, "null", body, 0, "--debug=rate")
	var gaps []float64
	for _, line := range bytes.Split(out, []byte("\n")) {
		_, rest, ok := bytes.Cut(line, []byte("poisson rate iops="))
		if !ok {
			continue
		}
		num, _, _ := bytes.Cut(rest, []byte(","))
		iops, err := strconv.ParseFloat(string(num), 64)
		if err != nil || iops <= 0 {
			continue
		}
		gaps = append(gaps, 1e6/iops)
	}
	return gaps
}

// blkqIOs runs job (a section body) through blkq on device, direct, and
// returns the bios its job queued, in order.
func blkqIOs(t *testing.T, device, body string, seed uint64) []ioRec {
	t.Helper()
	var ios []ioRec
	tr := blkq.TracerFunc(func(e *blkq.Event) {
		if e.Action == 'Q' && e.Op != blkq.OpFlush {
			ios = append(ios, ioRec{off: int64(e.Sector) << blkq.SectorShift, n: int64(e.Sectors) << blkq.SectorShift, at: e.Time})
		}
	})
	run(t, "[j]\nioengine=libaio\ndirect=1\n"+body+"\n", Options{Device: device, Seed: seed, Tracers: []blkq.Tracer{tr}})
	return ios
}

// shares returns the fraction of ios whose offset lies in each of the
// byte ranges [cuts[i], cuts[i+1]).
func shares(ios []ioRec, cuts []int64) []float64 {
	out := make([]float64, len(cuts)-1)
	for _, io := range ios {
		for i := range out {
			if io.off >= cuts[i] && io.off < cuts[i+1] {
				out[i]++
			}
		}
	}
	for i := range out {
		out[i] /= float64(len(ios))
	}
	return out
}

// hottest returns the share of ios that hit the k most-hit offsets.
func hottest(ios []ioRec, k int) float64 {
	hits := map[int64]int{}
	for _, io := range ios {
		hits[io.off]++
	}
	counts := slices.Collect(maps.Values(hits))
	slices.SortFunc(counts, func(a, b int) int { return b - a })
	sum := 0
	for _, c := range counts[:min(k, len(counts))] {
		sum += c
	}
	return float64(sum) / float64(len(ios))
}

// moments returns the mean and coefficient of variation of xs.
func moments(xs []float64) (mean, cv float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var v float64
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	v /= float64(len(xs) - 1)
	return mean, math.Sqrt(v) / mean
}

// coverage checks that ios tile [0, size) exactly: no byte twice, none
// missed, no I/O shorter than minBS.
func coverage(ios []ioRec, size, minBS int64) error {
	done := make([]bool, size/512)
	for _, io := range ios {
		if io.n < minBS {
			return fmt.Errorf("I/O of %d bytes at %d is shorter than the block size %d", io.n, io.off, minBS)
		}
		for s := io.off / 512; s < (io.off+io.n)/512; s++ {
			if s >= int64(len(done)) {
				return fmt.Errorf("I/O at %d+%d runs past the region's %d bytes", io.off, io.n, size)
			}
			if done[s] {
				return fmt.Errorf("byte %d done twice (I/O at %d+%d)", s*512, io.off, io.n)
			}
			done[s] = true
		}
	}
	for s, d := range done {
		if !d {
			return fmt.Errorf("byte %d never done", s*512)
		}
	}
	return nil
}
