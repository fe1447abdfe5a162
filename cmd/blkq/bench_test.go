package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq/internal/iobench"
)

// TestBenchRunsEveryContender runs blkq bench as a user does, on one
// page-cache case, briefly: every contender reads, each has figures, and
// the JSON holds the ratios the text prints. (The figures themselves are
// the machine's: only their presence and consistency are checked.)
func TestBenchRunsEveryContender(t *testing.T) {
	rep, out, dir := runBench(t, "read-4k-1job-buffered")
	if len(rep.Cases) != 1 || len(rep.Cases[0].Results) != 4 {
		t.Fatalf("report %+v; want one case, four contenders", rep)
	}
	for _, r := range rep.Cases[0].Results {
		if r.IOPS <= 0 || r.CPUNsPerIO <= 0 || len(r.Samples) != 1 {
			t.Errorf("%s: %v IOPS, %v ns CPU per I/O, %d samples", r.Contender, r.IOPS, r.CPUNsPerIO, len(r.Samples))
		}
		if !strings.Contains(string(out), r.Contender) {
			t.Errorf("the text does not name %s:\n%s", r.Contender, out)
		}
	}
	if got, want := rep.Cases[0].Ratios["blkq-none/fio iops"], rep.Cases[0].Results[1].IOPS/rep.Cases[0].Results[0].IOPS; got != want {
		t.Errorf("blkq-none/fio iops %v; want %v", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "blkq-bench.dat")); !os.IsNotExist(err) {
		t.Errorf("the test file is left behind: %v", err)
	}
}

// TestBenchNullCase runs blkq bench's null case briefly: fio's null
// engine and blkq run on the null device (both schedulers) each do I/O,
// there is no raw loop, and the ratios are CPU per I/O over fio's.
func TestBenchNullCase(t *testing.T) {
	rep, _, _ := runBench(t, "randread-4k-null")
	if len(rep.Cases) != 1 || len(rep.Cases[0].Results) != 3 {
		t.Fatalf("report %+v; want one case, three contenders (no raw loop)", rep)
	}
	res := rep.Cases[0].Results
	for i, who := range []string{iobench.Fio, iobench.BlkqNone, iobench.BlkqMQDeadline} {
		if r := res[i]; r.Contender != who || r.IOPS <= 0 || r.CPUNsPerIO <= 0 {
			t.Errorf("contender %d: %s with %v IOPS, %v ns CPU per I/O; want %s with figures", i, r.Contender, r.IOPS, r.CPUNsPerIO, who)
		}
	}
	ratios := rep.Cases[0].Ratios
	if got, want := ratios["blkq-mq-deadline/fio cpu"], res[2].CPUNsPerIO/res[0].CPUNsPerIO; got != want {
		t.Errorf("blkq-mq-deadline/fio cpu %v; want %v", got, want)
	}
	for k := range ratios {
		if strings.Contains(k, "raw") {
			t.Errorf("ratio %q in a case with no raw loop", k)
		}
	}
}

// TestBenchBadFlags: mistakes are usage errors naming the flag.
func TestBenchBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--cases", "nope"}, `no case "nope"`},
		{[]string{"bench", "--size", "12x"}, "--size"},
		{[]string{"bench", "--rounds", "0"}, "--rounds"},
		{[]string{"bench", "extra"}, "extra"},
	} {
		var o, e strings.Builder
		if st := blkqMain(c.args, strings.NewReader(""), &o, &e); st != 2 || !strings.Contains(e.String(), c.want) {
			t.Errorf("%v: status %d, stderr %q; want 2 and %q", c.args, st, e.String(), c.want)
		}
	}
}

// runBench runs blkq bench briefly on one case (one round of 300 ms after
// a 100 ms ramp, a 4 MiB file) in a temporary directory, and returns its
// JSON report, its text and the directory.
func runBench(t *testing.T, cases string) (rep iobench.Report, out []byte, dir string) {
	t.Helper()
	needFio(t)
	bin := buildBlkq(t)
	dir = t.TempDir()
	js := filepath.Join(dir, "bench.json")
	cmd := exec.Command(bin, "bench", "--cases", cases, "--rounds", "1",
		"--ramp", "100ms", "--runtime", "300ms", "--size", "4m", "--dir", dir, "--json", js)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("blkq bench: %v\n%s", err, out)
	}
	b, err := os.ReadFile(js)
	if err == nil {
		err = json.Unmarshal(b, &rep)
	}
	if err != nil {
		t.Fatal(err)
	}
	return rep, out, dir
}
