package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// jsonSampleRun rebuilds testdata/fio-json-randrw-libaio.json: one libaio
// job, iodepth 4, randrw 70/30 for 1 s.
func jsonSampleRun() *Run {
	j := &JobStats{
		Name: "j1", Engine: "libaio", IODepth: 4, RW: "randrw", BS: bs(4096),
		JobOptions: [][2]string{
			{"name", "j1"}, {"filename", "testfile"}, {"size", "16m"}, {"bs", "4k"},
			{"rw", "randrw"}, {"rwmixread", "70"}, {"ioengine", "libaio"},
			{"iodepth", "4"}, {"direct", "1"}, {"runtime", "1"},
		},
		Elapsed: 2, Runtime: 1000e6, UsrCPU: 5.9, SysCPU: 41.9, Ctx: 5940, MinFlt: 13,
		IODepthHist:  [NumDepthBuckets]uint64{1, 2, 21715},
		SubmitHist:   [NumDepthBuckets]uint64{0, 21718},
		CompleteHist: [NumDepthBuckets]uint64{0, 21000},
	}
	fill := func(d *DirStats, ios, bytes uint64, slat, lat [2]int64, clat []bucketVal, bw, iops float64) {
		d.IOs, d.Bytes, d.Runtime = ios, bytes, 1001e6
		d.Slat, d.Clat, d.Lat = &Latency{}, &Latency{}, &Latency{}
		d.Slat.Record(slat[0])
		d.Slat.Record(slat[1])
		d.Slat.RecordN((slat[0]+slat[1])/8, int64(ios-2))
		d.Lat.Record(lat[0])
		d.Lat.Record(lat[1])
		d.Lat.RecordN((lat[0]+lat[1])/8, int64(ios-2))
		for _, c := range clat {
			d.Clat.RecordN(c.v, c.n)
		}
		d.BW.Add(bw)
		d.IOPS.Add(iops)
	}
	// Completion latencies per fio bucket: with the writes' they make the
	// sample's latency_us and latency_ms maps.
	fill(&j.Read, 15242, 62431232, [2]int64{3938, 677023}, [2]int64{32701, 5142981}, []bucketVal{
		{1593, 1}, {3000, 1}, {30000, 42}, {70000, 1240}, {150000, 19252 - 6474},
		{300000, 985}, {600000, 83}, {900000, 72}, {1500000, 32}, {3000000, 4},
		{5000000, 3}, {5136529, 1},
	}, 61336, 15334)
	fill(&j.Write, 6476, 26525696, [2]int64{4288, 813719}, [2]int64{59461, 2841533}, []bucketVal{
		{2115, 1}, {150000, 6474}, {2833919, 1},
	}, 26352, 6588)
	return &Run{
		Version: "fio-3.33", Timestamp: 1796041247, TimestampMs: 1796041247322,
		Time: "Mon Nov 30 12:20:47 2026",
		Jobs: []*JobStats{j},
		Disks: []DiskStats{{Name: "vda", ReadIOs: 13625, WriteIOs: 5783, ReadTicks: 1443,
			WriteTicks: 584, InQueue: 2027, Util: 69.145729}},
	}
}

// bucketVal is n latencies of v ns.
type bucketVal struct {
	v int64
	n int64
}

// stripBlkqGroups removes our top-level "blkq_groups" array (the last key)
// so the rest can be compared with fio's output.
func stripBlkqGroups(t *testing.T, s string) string {
	t.Helper()
	i := strings.Index(s, ",\n  \"blkq_groups\" : [")
	if i < 0 {
		t.Fatalf("no blkq_groups in\n%s", s)
	}
	return s[:i] + "\n}\n"
}

func TestWriteJSONMatchesSample(t *testing.T) {
	sample, err := os.ReadFile("testdata/fio-json-randrw-libaio.json")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteJSON(&out, jsonSampleRun()); err != nil {
		t.Fatal(err)
	}
	got := stripBlkqGroups(t, out.String())
	// Means, standard deviations and percentile values come from
	// synthetic latencies and fio's own histogram; everything else (keys,
	// order, layout, counts, rates, float formatting) must be fio's.
	free := regexp.MustCompile(`^ *"(mean|stddev|\d+\.\d{6})" : \d+(\.\d{6})?,?$`)
	wl := strings.Split(string(sample), "\n")
	gl := strings.Split(got, "\n")
	if len(wl) != len(gl) {
		t.Fatalf("got %d lines, sample %d:\n%s", len(gl), len(wl), got)
	}
	same := 0
	for i := range wl {
		if free.MatchString(wl[i]) {
			if !free.MatchString(gl[i]) || strings.SplitN(gl[i], ":", 2)[0] != strings.SplitN(wl[i], ":", 2)[0] {
				t.Errorf("line %d: got %q, want the shape of %q", i+1, gl[i], wl[i])
			}
			continue
		}
		same++
		if gl[i] != wl[i] {
			t.Errorf("line %d:\n got %q\nwant %q", i+1, gl[i], wl[i])
		}
	}
	t.Logf("%d of %d lines identical to fio's", same, len(wl))
}

// keysOf returns the keys of a JSON object in document order.
func keysOf(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %v %v", tok, err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

type jsonDoc struct {
	Jobs     []map[string]json.RawMessage `json:"jobs"`
	DiskUtil []json.RawMessage            `json:"disk_util"`
}

func TestWriteJSONKeysRoundTrip(t *testing.T) {
	sampleBytes, err := os.ReadFile("testdata/fio-json-randrw-libaio.json")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r := jsonSampleRun()
	r.Jobs[0].Blkq = &BlkqJobStats{Sleeps: 1}
	r.Jobs[0].Description = "d"
	if err := WriteJSON(&out, r); err != nil {
		t.Fatal(err)
	}
	var gotAny map[string]any
	if err := json.Unmarshal(out.Bytes(), &gotAny); err != nil {
		t.Fatalf("our JSON does not parse: %v\n%s", err, out.String())
	}
	var got, sample jsonDoc
	json.Unmarshal(out.Bytes(), &got)
	json.Unmarshal(sampleBytes, &sample)

	sameOrder := func(what string, g, s []string) {
		t.Helper()
		// Our keys may add blkq's; fio's must all be there, in fio's order.
		k := 0
		for _, key := range g {
			if k < len(s) && key == s[k] {
				k++
			}
		}
		if k != len(s) {
			t.Errorf("%s keys\n got %v\nwant %v in that order", what, g, s)
		}
	}
	sameOrder("top-level", keysOf(t, out.Bytes()), keysOf(t, sampleBytes))
	sjob, gjob := sample.Jobs[0], got.Jobs[0]
	sameOrder("job", keysOf(t, rawJob(t, out.Bytes())), keysOf(t, rawJob(t, sampleBytes)))
	for _, k := range []string{"desc", "blkq"} {
		if _, ok := gjob[k]; !ok {
			t.Errorf("job key %q missing", k)
		}
	}
	for _, dir := range []string{"read", "write", "trim", "sync"} {
		sameOrder(dir, keysOf(t, gjob[dir]), keysOf(t, sjob[dir]))
	}
	for _, dir := range []string{"read", "write"} {
		var g, s map[string]json.RawMessage
		json.Unmarshal(gjob[dir], &g)
		json.Unmarshal(sjob[dir], &s)
		for _, lat := range []string{"slat_ns", "clat_ns", "lat_ns"} {
			sameOrder(dir+"."+lat, keysOf(t, g[lat]), keysOf(t, s[lat]))
		}
		var gc, sc map[string]json.RawMessage
		json.Unmarshal(g["clat_ns"], &gc)
		json.Unmarshal(s["clat_ns"], &sc)
		gk, sk := keysOf(t, gc["percentile"]), keysOf(t, sc["percentile"])
		if strings.Join(gk, " ") != strings.Join(sk, " ") {
			t.Errorf("%s percentile keys\n got %v\nwant %v", dir, gk, sk)
		}
	}
	for _, m := range []string{"iodepth_level", "iodepth_submit", "iodepth_complete", "latency_ns", "latency_us", "latency_ms"} {
		gk, sk := keysOf(t, gjob[m]), keysOf(t, sjob[m])
		if strings.Join(gk, " ") != strings.Join(sk, " ") {
			t.Errorf("%s keys\n got %v\nwant %v", m, gk, sk)
		}
	}
	if len(got.DiskUtil) != 1 {
		t.Fatalf("disk_util: %d entries", len(got.DiskUtil))
	}
	if gk, sk := keysOf(t, got.DiskUtil[0]), keysOf(t, sample.DiskUtil[0]); strings.Join(gk, " ") != strings.Join(sk, " ") {
		t.Errorf("disk_util keys\n got %v\nwant %v", gk, sk)
	}
	// Values survive the round trip.
	read := gotAny["jobs"].([]any)[0].(map[string]any)["read"].(map[string]any)
	if read["iops"].(float64) != 15226.773227 || read["io_kbytes"].(float64) != 60968 || read["bw"].(float64) != 60907 {
		t.Errorf("read values: iops %v io_kbytes %v bw %v", read["iops"], read["io_kbytes"], read["bw"])
	}
	blkq := gotAny["jobs"].([]any)[0].(map[string]any)["blkq"].(map[string]any)
	for _, k := range []string{"alloc_sleeps", "alloc_wakeups", "alloc_waits", "alloc_wait_total_ns", "alloc_wait_max_ns",
		"alloc_wait_p99_ns", "readahead_dropped", "back_merges", "front_merges", "requests_issued", "request_bytes", "avg_request_bytes"} {
		if _, ok := blkq[k]; !ok {
			t.Errorf("blkq key %q missing", k)
		}
	}
	groups := gotAny["blkq_groups"].([]any)
	if len(groups) != 1 || groups[0].(map[string]any)["jain_index"].(float64) != 1 {
		t.Errorf("blkq_groups: %v", groups)
	}
}

// rawJob returns the first job object of a fio JSON document, raw.
func rawJob(t *testing.T, doc []byte) json.RawMessage {
	t.Helper()
	var d struct {
		Jobs []json.RawMessage `json:"jobs"`
	}
	if err := json.Unmarshal(doc, &d); err != nil || len(d.Jobs) == 0 {
		t.Fatalf("no jobs: %v", err)
	}
	return d.Jobs[0]
}

func TestWriteJSONDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	ra, rb := randrwRun(t), randrwRun(t)
	ra.Ignored = []string{"x"}
	rb.Ignored = []string{"x"}
	if err := WriteJSON(&a, ra); err != nil {
		t.Fatal(err)
	}
	WriteJSON(&b, rb)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("same input, different JSON")
	}
	// Writing twice from the same Run does not change it either.
	var c bytes.Buffer
	WriteJSON(&c, ra)
	if !bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Errorf("second write differs")
	}
}

func TestWriteJSONGroupReporting(t *testing.T) {
	r := randrwRun(t)
	r.Ignored = []string{`option "cpus_allowed" ignored`}
	var out bytes.Buffer
	WriteJSON(&out, r)
	var doc map[string]any
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	jobs := doc["jobs"].([]any)
	if len(jobs) != 1 {
		t.Fatalf("group_reporting: %d job objects, want 1", len(jobs))
	}
	j := jobs[0].(map[string]any)
	read := j["read"].(map[string]any)
	if j["jobname"] != "randrw" || read["total_ios"].(float64) != 42173 || read["runtime"].(float64) != 2001 || j["job_runtime"].(float64) != 4002 {
		t.Errorf("combined job: %v %v %v %v", j["jobname"], read["total_ios"], read["runtime"], j["job_runtime"])
	}
	if read["bw_samples"].(float64) != 6 || read["bw_min"].(float64) != 76152 || read["bw_max"].(float64) != 91168 {
		t.Errorf("combined bw samples: %v %v %v", read["bw_samples"], read["bw_min"], read["bw_max"])
	}
	g := doc["blkq_groups"].([]any)[0].(map[string]any)
	if g["jobs"].(float64) != 2 || g["group_reporting"] != true || len(g["job_bw_bytes"].([]any)) != 2 {
		t.Errorf("blkq_groups: %v", g)
	}
	if ig := doc["blkq_ignored"].([]any); len(ig) != 1 || ig[0] != `option "cpus_allowed" ignored` {
		t.Errorf("blkq_ignored: %v", ig)
	}
	if !strings.Contains(out.String(), `"option \"cpus_allowed\" ignored"`) {
		t.Errorf("string not escaped")
	}
}

func TestWriteJSONEmptyAndZeroIO(t *testing.T) {
	for name, r := range map[string]*Run{
		"nil":   nil,
		"empty": {},
		"zero IO": {Jobs: []*JobStats{{Name: "idle", Blkq: &BlkqJobStats{}}, {Name: "idle2"}},
			GroupReporting: map[int]bool{0: true}},
		"zero IO, no group reporting": {Jobs: []*JobStats{{Name: "a"}, {Name: "b"}}, Disks: []DiskStats{{Name: "d"}}},
		"IOs without runtime":         {Jobs: []*JobStats{{Name: "a", Read: DirStats{IOs: 5, Bytes: 5 * 4096, BW: Samples{}}}}},
	} {
		var out bytes.Buffer
		if err := WriteJSON(&out, r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s := out.String()
		if strings.Contains(s, "NaN") || strings.Contains(s, "Inf") {
			t.Errorf("%s: NaN/Inf:\n%s", name, s)
		}
		var doc map[string]any
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Errorf("%s: invalid JSON: %v\n%s", name, err, s)
			continue
		}
		if _, ok := doc["jobs"].([]any); !ok {
			t.Errorf("%s: no jobs array", name)
		}
		if name == "empty" && !strings.Contains(s, `"jobs" : [],`) {
			t.Errorf("%s: %s", name, s)
		}
	}
}

func TestJSONStringEscaping(t *testing.T) {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	writeJSONString(w, "a\"b\\c\n\t\x01\x7f é \xff")
	w.Flush()
	var s string
	if err := json.Unmarshal(b.Bytes(), &s); err != nil {
		t.Fatalf("%v: %s", err, b.String())
	}
	if s != "a\"b\\c\n\t\x01\x7f é \uFFFD" {
		t.Errorf("round trip: %q", s)
	}
}

// TestJSONSyncEngineHasNoSlat: as fio 3.33 prints a psync job, slat_ns is
// all zeros for a sync engine (fio does not measure it), whatever the
// runner recorded; an async job keeps its slat.
func TestJSONSyncEngineHasNoSlat(t *testing.T) {
	for _, sync := range []bool{true, false} {
		r := jsonSampleRun()
		r.Jobs[0].Sync = sync
		var buf bytes.Buffer
		if err := WriteJSON(&buf, r); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Jobs []struct {
				Read struct {
					Slat map[string]any `json:"slat_ns"`
				} `json:"read"`
			} `json:"jobs"`
		}
		if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		s := got.Jobs[0].Read.Slat
		zero := s["N"] == 0.0 && s["min"] == 0.0 && s["max"] == 0.0 && s["mean"] == 0.0 && s["stddev"] == 0.0
		if zero != sync {
			t.Errorf("sync=%v: slat_ns = %v", sync, s)
		}
	}
}
