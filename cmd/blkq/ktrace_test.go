package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
	"github.com/blkq-dev/blkq/workload/iotrace"
)

// The kernel's own traces (testdata/ktrace, scripts/capture-kernel-traces.sh,
// docs/kernel-traces.md): Linux 6.18's blk tracer on a loop device, one
// fio job each, with the queue's settings beside each trace in NAME.json.

// ktraceDevice is what the traces are replayed on: sim:trace, which
// serves each request in the time the kernel's loop device took for it
// (its D to C), so that blkq's requests wait as long as the kernel's did.
const ktraceDevice = "sim:trace"

// ktraceAgreement is the agreement each trace's M, F, X and D events, and
// all of them, must reach (issue 12).
const ktraceAgreement = 99.0

// ktraceGaps are the traces that cannot reach ktraceAgreement, each with
// the cause: what of Linux 6.18's decisions blkq cannot know or does not
// model. The test
// fails if one of them does reach it (the entry is stale) or if any other
// trace falls short.
var ktraceGaps = map[string]string{
	// None. read-2m-qd2-batch2-nomerges0-nr256 was one until the replay
	// took the kernel's splits at its buffer's 128th physical segment
	// from the trace's X events (engine/replaysplit.go): no trace
	// records a buffer's pages, and blkq counts a bio's memory as
	// contiguous, so on its own it split none of those bios.
}

// ktraceMeta is the part of a trace's NAME.json the test reads.
type ktraceMeta struct {
	Name     string            `json:"name"`
	Kernel   string            `json:"kernel"`
	Settings map[string]string `json:"settings"`
	Queue    map[string]string `json:"queue"`
	// Events counts the trace's lines by action, counted by the capture
	// script with awk: the file's own count, independent of blkq's reader.
	Events map[string]int `json:"events"`
}

// readKtraceMeta reads the trace metadata file path (NAME.json).
func readKtraceMeta(t *testing.T, path string) ktraceMeta {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var meta ktraceMeta
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return meta
}

// TestKernelTraces reads every stored kernel trace: each must parse to
// its end as ftrace, with as many events of each action (Q and D above
// all) as the capture counted in the file. Each is then replayed with its
// queue's settings (scheduler, nomerges, nr_requests as blk-mq's tag
// set, max_sectors_kb, the mq-deadline tunables; the limits it does not
// set must be blkq's defaults) on sim:trace under --kernel-merges, which must compare every Q
// and every D of the trace. blkq's M, F, X and D events must agree with
// the kernel's for at least 99 % of them, per action and in all, in every
// trace but those of ktraceGaps, and in all those traces together; each
// of them must dispatch requests of the kernel's mean size and size
// histogram. The table is logged (go test ./cmd/blkq -run TestKernelTraces
// -v) and is docs/kernel-traces.md's.
func TestKernelTraces(t *testing.T) {
	metas, err := filepath.Glob("../../testdata/ktrace/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(metas) < 20 {
		t.Fatalf("%d kernel traces in testdata/ktrace, want the 20 or more the capture script makes", len(metas))
	}
	var table strings.Builder
	fmt.Fprintf(&table, "replayed on %s with each trace's queue settings\n", ktraceDevice)
	fmt.Fprintf(&table, "%-58s %5s %9s %13s %11s %11s %13s %6s %11s %5s\n", "trace", "Q", "D k/b", "M k/b/both", "F k/b/both", "X k/b/both", "D agree", "all%", "KiB k/b", "sizes")
	total, modelled := ktraceCount{}, ktraceCount{} // every trace; those not in ktraceGaps
	seen := map[string]bool{}
	for _, m := range metas {
		meta := readKtraceMeta(t, m)
		path := strings.TrimSuffix(m, ".json") + ".txt"
		if meta.Name != strings.TrimSuffix(filepath.Base(m), ".json") {
			t.Errorf("%s names trace %q", m, meta.Name)
		}
		seen[meta.Name] = true
		format, err := iotrace.FileFormat(path, "")
		if err != nil || format != iotrace.FormatFtrace {
			t.Errorf("%s: detected as %q (%v), want ftrace", path, format, err)
			continue
		}
		evs, err := iotrace.ReadEventsFile(path, "")
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		counts := map[string]int{}
		for _, ev := range evs {
			a := string(ev.Action)
			if ev.Action == 'T' {
				a = "UT"
			}
			counts[a]++
		}
		if counts["Q"] == 0 || counts["Q"] != meta.Events["Q"] || counts["D"] != meta.Events["D"] || !maps.Equal(counts, meta.Events) {
			t.Errorf("%s: read %v events, the file holds %v", path, counts, meta.Events)
			continue
		}
		c, err := replayKernelTrace(path, meta)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if c.bios != counts["Q"] || c.ev['D'].kernel != counts["D"] || c.ev['M'].kernel != counts["M"] || c.ev['X'].kernel != counts["X"] {
			t.Errorf("%s: the comparison covered %d bios, %d D, %d M and %d X of the kernel; the trace has %d Q, %d D, %d M and %d X",
				path, c.bios, c.ev['D'].kernel, c.ev['M'].kernel, c.ev['X'].kernel, counts["Q"], counts["D"], counts["M"], counts["X"])
		}
		name := meta.Name
		if meta.Queue["scheduler"] != "mq-deadline" {
			name += "*"
		}
		cell := func(a byte) string { e := c.ev[a]; return fmt.Sprintf("%d/%d/%d", e.kernel, e.replay, e.both) }
		sizes := "same"
		if !c.sameSizes {
			sizes = "DIFF"
		}
		fmt.Fprintf(&table, "%-58s %5d %9s %13s %11s %11s %13s %6.1f %11s %5s\n", name, c.bios,
			fmt.Sprintf("%d/%d", c.ev['D'].kernel, c.ev['D'].replay), cell('M'), cell('F'), cell('X'),
			fmt.Sprintf("%s %.1f", cell('D'), c.ev['D'].percent), c.all.percent,
			fmt.Sprintf("%.1f/%.1f", c.kernelKiB, c.blkqKiB), sizes)
		reason, gap := ktraceGaps[meta.Name]
		for _, a := range []byte(iotrace.ComparedActions) {
			total.add(a, c.ev[a])
			if !gap {
				modelled.add(a, c.ev[a])
			}
		}
		short := c.all.percent < ktraceAgreement
		for _, a := range []byte(iotrace.ComparedActions) {
			short = short || c.ev[a].percent < ktraceAgreement
		}
		short = short || !c.sameSizes || fmt.Sprintf("%.1f", c.kernelKiB) != fmt.Sprintf("%.1f", c.blkqKiB)
		switch {
		case short && !gap:
			t.Errorf("%s: blkq agrees with the kernel on M %.1f%%, F %.1f%%, X %.1f%%, D %.1f%%, all %.1f%% (want %.0f%% each); requests %.1f KiB on average, the kernel's %.1f KiB; sizes %s",
				meta.Name, c.ev['M'].percent, c.ev['F'].percent, c.ev['X'].percent, c.ev['D'].percent, c.all.percent, ktraceAgreement, c.blkqKiB, c.kernelKiB, sizes)
		case !short && gap:
			t.Errorf("%s is listed in ktraceGaps (%s) but now agrees: take it off the list", meta.Name, reason)
		}
	}
	for name := range ktraceGaps {
		if !seen[name] {
			t.Errorf("ktraceGaps lists %s, which is not in testdata/ktrace", name)
		}
	}
	for _, c := range []struct {
		name string
		n    ktraceCount
	}{{"all traces", total}, {"all but ktraceGaps'", modelled}} {
		fmt.Fprintf(&table, "%-58s %5s %9s %13s %11s %11s %13s %6.1f\n", c.name, "", "", c.n.cell('M'), c.n.cell('F'), c.n.cell('X'),
			fmt.Sprintf("%s %.1f", c.n.cell('D'), c.n.percent('D')), c.n.percentAll())
	}
	// Overall, over the traces blkq models; the gaps' share of the
	// whole is in the table's first total line.
	for _, a := range []byte(iotrace.ComparedActions) {
		if p := modelled.percent(a); p < ktraceAgreement {
			t.Errorf("all traces but ktraceGaps': %c events agree %.1f%%, want %.0f%%", a, p, ktraceAgreement)
		}
	}
	if p := modelled.percentAll(); p < ktraceAgreement {
		t.Errorf("all traces but ktraceGaps': the events agree %.1f%%, want %.0f%%", p, ktraceAgreement)
	}
	table.WriteString("* traced under bfq, replayed under mq-deadline (blkq has no bfq)\n" +
		"M, F, X, D: the kernel's events (k), blkq's (b) and those both have; agree and all%: both / (k + b - both), for D and for all four\n" +
		"KiB: mean size of the requests dispatched; sizes: their histograms in power-of-two KiB buckets, the same or DIFF\n")
	t.Logf("kernel traces vs blkq:\n%s", table.String())
}

// ktraceCount sums the comparisons of every trace, by action.
type ktraceCount map[byte]eventCount

func (t ktraceCount) add(a byte, e eventCount) {
	s := t[a]
	s.kernel += e.kernel
	s.replay += e.replay
	s.both += e.both
	t[a] = s
}

func (t ktraceCount) cell(a byte) string {
	return fmt.Sprintf("%d/%d/%d", t[a].kernel, t[a].replay, t[a].both)
}

func (t ktraceCount) percent(a byte) float64 {
	e := t[a]
	return iotrace.EventAgreement{Kernel: e.kernel, Replay: e.replay, Both: e.both}.Percent()
}

func (t ktraceCount) percentAll() float64 {
	var all iotrace.EventAgreement
	for _, e := range t {
		all.Kernel += e.kernel
		all.Replay += e.replay
		all.Both += e.both
	}
	return all.Percent()
}

// eventCount is one action's line of the comparison.
type eventCount struct {
	kernel, replay, both int
	percent              float64
}

// kernelComparison is what blkq replay --kernel-merges printed.
type kernelComparison struct {
	bios, kernel, ours, both, neither int
	agree                             float64
	ev                                map[byte]eventCount
	all                               eventCount
	kernelD, blkqD                    int
	kernelKiB, blkqKiB                float64
	sameSizes                         bool
}

// replayKernelTrace replays the trace at path with the queue settings of
// its capture and returns the --kernel-merges comparison. The queue limits
// no flag sets must be blkq's defaults.
func replayKernelTrace(path string, meta ktraceMeta) (kernelComparison, error) {
	q := meta.Queue
	sched := q["scheduler"]
	if sched != "mq-deadline" {
		sched = "mq-deadline" // bfq: blkq has none; its trace is here for its message lines
	}
	defaults, err := ktraceDefaults()
	if err != nil {
		return kernelComparison{}, err
	}
	for a, want := range defaults {
		if v := q[a]; v != want {
			return kernelComparison{}, fmt.Errorf("the capture's queue has %s %s, blkq's %s: replay it with that", a, v, want)
		}
	}
	args := []string{"--kernel-merges", "--device", ktraceDevice, "--scheduler", sched, "--alloc", "blk-mq",
		"--nomerges", q["nomerges"], "--nr-requests", q["nr_requests"], "--set", "max_sectors_kb=" + q["max_sectors_kb"]}
	if q["scheduler"] == "mq-deadline" {
		for _, a := range []string{"read_expire", "write_expire", "writes_starved", "fifo_batch", "front_merges", "async_depth", "prio_aging_expire"} {
			args = append(args, "--set", "iosched/"+a+"="+q["iosched/"+a])
		}
	}
	return runKernelComparison(append(args, path))
}

// runKernelComparison runs blkq replay with args (--kernel-merges among
// them) and returns the comparison it printed.
func runKernelComparison(args []string) (kernelComparison, error) {
	var o, e strings.Builder
	if err := cmdReplay(args, &o, &e); err != nil {
		return kernelComparison{}, fmt.Errorf("blkq replay %s: %v\n%s", strings.Join(args, " "), err, e.String())
	}
	c := kernelComparison{ev: map[byte]eventCount{}}
	out := e.String()
	i := strings.Index(out, "merges vs the kernel's own")
	j := strings.Index(out, "events vs the kernel's own")
	k := strings.Index(out, "requests vs the kernel's own")
	if i < 0 || j < 0 || k < 0 {
		return c, fmt.Errorf("no --kernel-merges lines in %q", out)
	}
	if _, err := fmt.Sscanf(out[i:], "merges vs the kernel's own: %d bios; the kernel merged %d, blkq merged %d; both merged %d, neither %d: agreement %f%%;",
		&c.bios, &c.kernel, &c.ours, &c.both, &c.neither, &c.agree); err != nil {
		return c, fmt.Errorf("merges line: %v: %q", err, out[i:])
	}
	line := out[j:]
	line = line[:strings.IndexByte(line, '\n')]
	for _, a := range []byte(iotrace.ComparedActions) {
		at := strings.Index(line, " "+string(a)+" ")
		if at < 0 {
			return c, fmt.Errorf("events line without %c: %q", a, line)
		}
		var n eventCount
		if _, err := fmt.Sscanf(line[at:], " "+string(a)+" %d/%d/%d %f%%", &n.kernel, &n.replay, &n.both, &n.percent); err != nil {
			return c, fmt.Errorf("events line: %c: %v: %q", a, err, line)
		}
		c.ev[a] = n
	}
	at := strings.Index(line, " all ")
	if _, err := fmt.Sscanf(line[at:], " all %d/%d/%d %f%%", &c.all.kernel, &c.all.replay, &c.all.both, &c.all.percent); at < 0 || err != nil {
		return c, fmt.Errorf("events line: all: %v: %q", err, line)
	}
	if _, err := fmt.Sscanf(out[k:], "requests vs the kernel's own: the kernel dispatched %d (mean %f KiB), blkq %d (mean %f KiB)",
		&c.kernelD, &c.kernelKiB, &c.blkqD, &c.blkqKiB); err != nil {
		return c, fmt.Errorf("requests line: %v: %q", err, out[k:])
	}
	rest := out[k:]
	rest = rest[:strings.IndexByte(rest, '\n')]
	c.sameSizes = strings.HasSuffix(rest, ": the same")
	return c, nil
}

// ktraceDefaults are blkq's defaults of the queue limits the replay does
// not set, as sysfs shows them.
func ktraceDefaults() (map[string]string, error) {
	clk := blkq.NewRealClock()
	dev := device.NewNull(clk, 1<<20, 1)
	defer dev.Close()
	q, err := blkq.New(dev, clk, blkq.Config{})
	if err != nil {
		return nil, err
	}
	out := map[string]string{"logical_block_size": strconv.Itoa(blkq.SectorSize)} // blkq's sectors are its blocks
	for _, a := range []string{"max_segments", "max_segment_size", "discard_max_bytes", "max_discard_segments"} {
		if out[a], err = q.Attr(a); err != nil {
			return nil, err
		}
	}
	return out, nil
}
