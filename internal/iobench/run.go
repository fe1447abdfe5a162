package iobench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"time"
)

// Config configures Run.
type Config struct {
	// Dir is where the test file goes (default: the working directory);
	// O_DIRECT cases need a file system that allows it (not tmpfs).
	Dir string
	// Size is the test file's size in bytes (default 32 MiB: the
	// page-cache cases compare warm caches, and blkq's holds 64 MiB).
	Size int64
	// Ramp and Runtime are each run's warm-up and measured time
	// (defaults 1 s and 3 s).
	Ramp, Runtime time.Duration
	// Rounds is how many times each contender runs each case (default 3).
	Rounds int
	// Cases to run (default: Cases).
	Cases []Case
	// Fio is the fio binary (default "fio" on PATH); Blkq the blkq binary
	// (default: this executable).
	Fio, Blkq string
	// Progress, if set, gets a line per run.
	Progress io.Writer
}

// Contender names, in the order they run within a round.
const (
	Fio            = "fio"
	BlkqNone       = "blkq-none"
	BlkqMQDeadline = "blkq-mq-deadline"
	Raw            = "raw-pread"
)

var contenders = []string{Fio, BlkqNone, BlkqMQDeadline, Raw}

// Sample is one run's figures, after its ramp.
type Sample struct {
	IOPS       float64 `json:"iops"`
	CPUNsPerIO float64 `json:"cpu_ns_per_io"`
}

// Result is one contender's figures on one case: every round's sample
// and their medians.
type Result struct {
	Contender  string   `json:"contender"`
	Samples    []Sample `json:"samples"`
	IOPS       float64  `json:"iops_median"`
	CPUNsPerIO float64  `json:"cpu_ns_per_io_median"`
}

// CaseReport is a case's results and the ratios issue 13 sets targets
// for: blkq's IOPS over fio's, and blkq's CPU per I/O over the raw loop's.
type CaseReport struct {
	Case    Case               `json:"case"`
	Results []Result           `json:"results"`
	Ratios  map[string]float64 `json:"ratios"`
}

// Report is a whole blkq bench run.
type Report struct {
	Machine string       `json:"machine"`
	File    string       `json:"file"`
	Size    int64        `json:"size"`
	Ramp    string       `json:"ramp"`
	Runtime string       `json:"runtime"`
	Rounds  int          `json:"rounds"`
	Cases   []CaseReport `json:"cases"`
}

func (c *Config) defaults() error {
	if c.Size == 0 {
		c.Size = 32 << 20
	}
	if c.Ramp == 0 {
		c.Ramp = time.Second
	}
	if c.Runtime == 0 {
		c.Runtime = 3 * time.Second
	}
	if c.Rounds == 0 {
		c.Rounds = 3
	}
	if c.Cases == nil {
		c.Cases = Cases
	}
	if c.Fio == "" {
		c.Fio = "fio"
	}
	if c.Blkq == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("bench: blkq's own path: %w", err)
		}
		c.Blkq = exe
	}
	if c.Dir == "" {
		c.Dir = "."
	}
	if c.Size < 1<<20 || c.Size%4096 != 0 {
		return fmt.Errorf("bench: --size %d: want a multiple of 4 KiB, at least 1 MiB", c.Size)
	}
	return nil
}

// Run runs every case with every contender, Rounds times, in turn.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if _, err := exec.LookPath(cfg.Fio); err != nil {
		return nil, fmt.Errorf("bench: fio is needed as the comparator (apt-get install fio): %w", err)
	}
	path, err := filepath.Abs(filepath.Join(cfg.Dir, "blkq-bench.dat"))
	if err != nil {
		return nil, err
	}
	// Null cases read no file (fio's null engine opens none, blkq's null
	// device has none): with only those, none is made.
	if slices.ContainsFunc(cfg.Cases, func(c Case) bool { return !c.null() }) {
		if err := makeFile(path, cfg.Size); err != nil {
			return nil, err
		}
		defer os.Remove(path)
	}
	rep := &Report{Machine: machine(), File: path, Size: cfg.Size, Ramp: cfg.Ramp.String(),
		Runtime: cfg.Runtime.String(), Rounds: cfg.Rounds}
	jobDir, err := os.MkdirTemp(cfg.Dir, "blkq-bench-jobs")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(jobDir)
	for _, c := range cfg.Cases {
		job := filepath.Join(jobDir, c.Name+".fio")
		if err := os.WriteFile(job, []byte(c.jobFile(path, cfg.Size, cfg.Ramp, cfg.Runtime)), 0o644); err != nil {
			return nil, err
		}
		samples := map[string][]Sample{}
		for round := 1; round <= cfg.Rounds; round++ {
			for _, who := range c.contenders() {
				s, err := cfg.runOne(ctx, who, c, job, path)
				if err != nil {
					return nil, fmt.Errorf("bench: case %s, %s: %w", c.Name, who, err)
				}
				samples[who] = append(samples[who], s)
				if cfg.Progress != nil {
					fmt.Fprintf(cfg.Progress, "%s round %d/%d %-17s %10.0f IOPS %8.0f ns CPU/IO\n",
						c.Name, round, cfg.Rounds, who, s.IOPS, s.CPUNsPerIO)
				}
			}
		}
		cr := CaseReport{Case: c, Ratios: map[string]float64{}}
		med := map[string]Result{}
		for _, who := range c.contenders() {
			r := Result{Contender: who, Samples: samples[who]}
			r.IOPS = median(samples[who], func(s Sample) float64 { return s.IOPS })
			r.CPUNsPerIO = median(samples[who], func(s Sample) float64 { return s.CPUNsPerIO })
			cr.Results = append(cr.Results, r)
			med[who] = r
		}
		for _, b := range []string{BlkqNone, BlkqMQDeadline} {
			cr.Ratios[b+"/fio iops"] = med[b].IOPS / med[Fio].IOPS
			if c.null() {
				// Issue 13's target for the null engine: CPU per I/O
				// at most twice fio's.
				cr.Ratios[b+"/fio cpu"] = med[b].CPUNsPerIO / med[Fio].CPUNsPerIO
			} else {
				cr.Ratios[b+"/raw cpu"] = med[b].CPUNsPerIO / med[Raw].CPUNsPerIO
			}
		}
		if !c.null() {
			cr.Ratios["fio/raw cpu"] = med[Fio].CPUNsPerIO / med[Raw].CPUNsPerIO
		}
		rep.Cases = append(rep.Cases, cr)
	}
	return rep, nil
}

// runOne runs contender who on case c once.
func (cfg *Config) runOne(ctx context.Context, who string, c Case, job, path string) (Sample, error) {
	var cmd *exec.Cmd
	switch who {
	case Fio:
		cmd = exec.CommandContext(ctx, cfg.Fio, "--output-format=json", job)
	case BlkqNone, BlkqMQDeadline:
		sched := "none"
		if who == BlkqMQDeadline {
			sched = "mq-deadline"
		}
		device := "file:" + path
		if c.null() {
			device = "null"
		}
		cmd = exec.CommandContext(ctx, cfg.Blkq, "run", "--device", device, "--scheduler", sched, "--output-format=json", job)
	case Raw:
		cmd = exec.CommandContext(ctx, cfg.Blkq, "bench", "--raw-worker",
			"--raw-file", path, "--size", strconv.FormatInt(cfg.Size, 10), "--raw-jobs", strconv.Itoa(c.Jobs),
			"--raw-random="+strconv.FormatBool(c.RW == "randread"), "--raw-direct="+strconv.FormatBool(c.Direct),
			"--ramp", cfg.Ramp.String(), "--runtime", cfg.Runtime.String())
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return Sample{}, fmt.Errorf("%v: %w: %s", cmd.Args, err, firstLine(errOut.String()))
	}
	if who == Raw {
		var r rawResult
		if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.IOs == 0 {
			return Sample{}, fmt.Errorf("raw worker's output %q: %v", firstLine(out.String()), err)
		}
		return Sample{IOPS: float64(r.IOs) / r.Seconds, CPUNsPerIO: float64(r.CPUNs) / float64(r.IOs)}, nil
	}
	return fioSample(out.Bytes())
}

// fioSample reads fio's JSON report (blkq writes the same): the jobs'
// reads after the ramp, and their CPU over the same window (usr_cpu and
// sys_cpu are percentages of the job's runtime).
func fioSample(js []byte) (Sample, error) {
	// fio may print lines before its JSON (a signal, a note): start at
	// the first brace.
	if i := bytes.IndexByte(js, '{'); i > 0 {
		js = js[i:]
	}
	var doc struct {
		Jobs []struct {
			Read struct {
				IOs     float64 `json:"total_ios"`
				Runtime float64 `json:"runtime"` // ms
			} `json:"read"`
			JobRuntime float64 `json:"job_runtime"` // ms
			UsrCPU     float64 `json:"usr_cpu"`
			SysCPU     float64 `json:"sys_cpu"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		return Sample{}, fmt.Errorf("JSON report: %w", err)
	}
	var s Sample
	var ios, cpuNs float64
	for _, j := range doc.Jobs {
		if j.Read.Runtime > 0 {
			s.IOPS += j.Read.IOs / (j.Read.Runtime / 1000)
		}
		ios += j.Read.IOs
		cpuNs += (j.UsrCPU + j.SysCPU) / 100 * j.JobRuntime * 1e6
	}
	if ios == 0 {
		return Sample{}, errors.New("no reads in the JSON report")
	}
	s.CPUNsPerIO = cpuNs / ios
	return s, nil
}

func median(ss []Sample, f func(Sample) float64) float64 {
	if len(ss) == 0 {
		return 0
	}
	v := make([]float64, len(ss))
	for i, s := range ss {
		v[i] = f(s)
	}
	slices.Sort(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

// makeFile writes size bytes of non-zero data to path (a sparse file's
// holes would read without touching the disk), unless it already holds
// that much.
func makeFile(path string, size int64) error {
	if fi, err := os.Stat(path); err == nil && fi.Size() == size {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	buf := bytes.Repeat([]byte("blkq bench data\n"), 1<<16) // 1 MiB
	for off := int64(0); off < size; off += int64(len(buf)) {
		if _, err := f.Write(buf[:min(int64(len(buf)), size-off)]); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func firstLine(s string) string {
	if i := bytes.IndexByte([]byte(s), '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// machine describes the machine: CPUs and the kernel.
func machine() string {
	rel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return fmt.Sprintf("%d CPUs, Linux %s", runtime.NumCPU(), bytes.TrimSpace(rel))
}
