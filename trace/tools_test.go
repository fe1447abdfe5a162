package trace_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blkq-dev/blkq/engine"
	"github.com/blkq-dev/blkq/trace"
)

// Tests against Debian's blktrace tools (blkparse, btt): they read the
// traces blkq writes without a complaint, blkparse prints what Print
// prints, and btt measures what Stats measures.

// blkparse runs "blkparse -i NAME.blktrace.0 [args]" in dir and returns
// its standard output without the "Input file ... added" lines. A non-zero
// exit or anything on standard error fails the test.
func blkparse(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	return blkparseComplaining(t, dir, name, "", args...)
}

// blkparseComplaining is blkparse where the standard error must be
// exactly stderr.
func blkparseComplaining(t *testing.T, dir, name, stderr string, args ...string) string {
	t.Helper()
	bin := needTool(t, "blkparse")
	cmd := exec.Command(bin, append([]string{"-i", name + ".blktrace.0"}, args...)...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil || errb.String() != stderr {
		t.Fatalf("blkparse -i %s.blktrace.0 %v: %v\n%s", name, args, err, errb.String())
	}
	var keep []string
	for _, l := range strings.SplitAfter(out.String(), "\n") {
		if !strings.HasPrefix(l, "Input file ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}

// writeByCPU writes recs as blktrace does, one file per CPU:
// dir/name.blktrace.CPU.
func writeByCPU(t *testing.T, dir, name string, recs []trace.Record, order binary.ByteOrder) {
	t.Helper()
	files := map[uint32][]byte{}
	var maxCPU uint32
	for i := range recs {
		c := recs[i].CPU
		files[c] = trace.AppendRecord(files[c], &recs[i], order)
		maxCPU = max(maxCPU, c)
	}
	for c := uint32(0); c <= maxCPU; c++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s.blktrace.%d", name, c)), files[c], 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// printed returns what Print and PrintSummary write for recs.
func printed(t *testing.T, recs []trace.Record, name string) string {
	t.Helper()
	var b bytes.Buffer
	if err := trace.Print(&b, recs); err != nil {
		t.Fatal(err)
	}
	if err := trace.PrintSummary(&b, recs, name); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// sameText fails the test at the first line where got and want differ.
func sameText(t *testing.T, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("%s: line %d differs (of %d/%d lines):\n blkq:     %q\n blkparse: %q", what, i+1, len(g), len(w), gl, wl)
		}
	}
}

// The corpus jobs whose traces blkparse must read: random and sequential,
// reads and writes (merges, plugs, read-ahead), and a job that syncs.
var toolJobs = []string{"fio-rand-read.fio", "fio-seq-read.fio", "fio-rand-RW.fio", "fio-seq-write.fio", "tiobench-example.fio"}

// TestBlkparseReadsBlkqTraces: blkparse reads every trace blkq writes
// without a complaint, in either byte order, and prints exactly what
// Print and PrintSummary print.
func TestBlkparseReadsBlkqTraces(t *testing.T) {
	needTool(t, "blkparse")
	type tc struct {
		name string
		data []byte
	}
	var cases []tc
	for _, job := range toolJobs {
		data, _ := traceJob(t, job, 300*time.Millisecond)
		cases = append(cases, tc{strings.TrimSuffix(job, ".fio"), data})
	}
	sleepy, _ := traceJobWith(t, "fio-rand-read.fio", engine.Options{RuntimeCap: 300 * time.Millisecond, NrRequests: 4})
	cases = append(cases, tc{"sleepy", sleepy})
	scen, _ := writeScenario(t, nil, trace.WriterOptions{})
	cases = append(cases, tc{"scenario", scen})
	cases = append(cases, tc{"flags", writeFlagsTrace(t)})
	big, _ := writeScenario(t, fmt.Errorf("media error"), trace.WriterOptions{ByteOrder: binary.BigEndian, Dev: trace.MakeDev(259, 7)})
	cases = append(cases, tc{"scenario-be", big})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, c.name+".blktrace.0"), c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			recs, err := trace.ReadAll(bytes.NewReader(c.data))
			if err != nil {
				t.Fatal(err)
			}
			got := printed(t, recs, c.name)
			want := blkparse(t, dir, c.name)
			sameText(t, c.name, got, want)
			if n := strings.Count(want, "\n"); n < 20 {
				t.Fatalf("blkparse printed only %d lines", n)
			}
		})
	}
}

// TestBlkparseOddRecords: Print matches blkparse on records blkq never
// writes (several CPUs, remaps, splits, pass-through, messages, errors).
func TestBlkparseOddRecords(t *testing.T) {
	needTool(t, "blkparse")
	dir := t.TempDir()
	recs := oddRecords()
	writeByCPU(t, dir, "odd", recs, binary.LittleEndian)
	// blkparse 1.2.0 complains of the abort, which it cannot print.
	sameText(t, "odd records", printed(t, recs, "odd"), blkparseComplaining(t, dir, "odd", "Bad fs action 120010\n"))
}

// bttAll parses the "All Devices" table of btt's output.
func bttAll(t *testing.T, out string) map[string][4]float64 {
	t.Helper()
	rows := map[string][4]float64{}
	sc := bufio.NewScanner(strings.NewReader(out))
	in := false
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "====") {
			in = strings.Contains(l, "All Devices")
			continue
		}
		f := strings.Fields(l)
		if !in || len(f) != 5 || f[0] == "ALL" || strings.HasPrefix(f[0], "---") {
			continue
		}
		var v [4]float64
		for i := range 4 {
			x, err := strconv.ParseFloat(f[i+1], 64)
			if err != nil {
				t.Fatalf("btt line %q: %v", l, err)
			}
			v[i] = x
		}
		rows[f[0]] = v
	}
	if len(rows) == 0 {
		t.Fatalf("no All Devices table in btt's output:\n%s", out)
	}
	return rows
}

// TestBttAgreesWithStats: btt, run on blkparse's dump of the trace of a
// corpus job, reports the Q2C, D2C and I2D (and Q2G, G2I) averages that
// Stats computed from the same run's event stream, within 1%, and the
// same counts.
func TestBttAgreesWithStats(t *testing.T) {
	btt := needTool(t, "btt")
	needTool(t, "blkparse")
	for _, c := range []struct {
		name, job string
		opt       engine.Options
	}{
		{"rand-read", "fio-rand-read.fio", engine.Options{RuntimeCap: 2 * time.Second}},
		{"seq-read", "fio-seq-read.fio", engine.Options{RuntimeCap: 2 * time.Second}},
		// Four requests for sixteen in flight: sleeps (S2G).
		{"rand-read-nr4", "fio-rand-read.fio", engine.Options{RuntimeCap: 2 * time.Second, NrRequests: 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, st := traceJobWith(t, c.job, c.opt)
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "run.blktrace.0"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			blkparse(t, dir, "run", "-d", "run.bin")
			cmd := exec.Command(btt, "-i", "run.bin")
			cmd.Dir = dir // btt writes its .dat files here
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil || errb.Len() > 0 {
				t.Fatalf("btt: %v\n%s", err, errb.String())
			}
			rows := bttAll(t, out.String())
			m := st.Metrics()
			for _, c := range []struct {
				name string
				l    trace.Latency
			}{{"Q2Q", m.Q2Q}, {"Q2C", m.Q2C}, {"D2C", m.D2C}, {"I2D", m.I2D}, {"Q2G", m.Q2G}, {"S2G", m.S2G}, {"G2I", m.G2I}, {"Q2M", m.Q2M}, {"M2D", m.M2D}} {
				row, ok := rows[c.name]
				if !ok {
					if c.l.N != 0 {
						t.Errorf("%s: btt has no row, Stats measured %d", c.name, c.l.N)
					}
					continue
				}
				avg := c.l.Avg()
				t.Logf("%s: btt avg %.9f N %d, Stats avg %.9f N %d", c.name, row[1], int64(row[3]), avg, c.l.N)
				if math.Abs(row[1]-avg) > 0.01*math.Abs(avg)+1e-9 {
					t.Errorf("%s: btt average %.9f s, Stats %.9f s: more than 1%% apart", c.name, row[1], avg)
				}
				if int64(row[3]) != c.l.N {
					t.Errorf("%s: btt N %d, Stats N %d", c.name, int64(row[3]), c.l.N)
				}
			}
			for _, must := range []string{"Q2C", "D2C", "I2D"} {
				if _, ok := rows[must]; !ok || rows[must][3] < 100 {
					t.Errorf("btt measured too few %s: %v", must, rows[must])
				}
			}
		})
	}
}
