package report

// Oracle tests against Debian's fio 3.33: fio runs a job on its null
// engine with --output-format=json+,normal; its histograms (json+ "bins")
// are recorded into blkq's Latency, which must then give back fio's bins,
// fio's percentiles (json "percentile") and fio's percentile blocks in
// the text output, and whose json+ fio's own tools/fio_jsonplus_clat2csv
// must turn into the same CSV as fio's.

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// needTool returns the path of an outside program the test needs; it
// fails under CI=true when it is missing, and skips elsewhere.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (test.sh installs it): %v", name, err)
		}
		t.Skipf("%s is not installed", name)
	}
	return p
}

// needPythonSix is needTool for python3 with the six module, which
// fio_jsonplus_clat2csv imports.
func needPythonSix(t *testing.T) string {
	t.Helper()
	py := needTool(t, "python3")
	if err := exec.Command(py, "-c", "import six").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3 has no six module (test.sh installs python3-six): %v", err)
		}
		t.Skip("python3 has no six module")
	}
	return py
}

// fioLat is one latency object of fio's json+.
type fioLat struct {
	N          int64             `json:"N"`
	Percentile map[string]uint64 `json:"percentile"`
	Bins       map[string]uint64 `json:"bins"`
}

type fioDir struct {
	Slat fioLat `json:"slat_ns"`
	Clat fioLat `json:"clat_ns"`
	Lat  fioLat `json:"lat_ns"`
}

// runFioPlus runs fio with args and --output-format=json+,normal and
// returns the json+ text and the normal text after it.
func runFioPlus(t *testing.T, args ...string) (js, normal string) {
	t.Helper()
	fio := needTool(t, "fio")
	cmd := exec.Command(fio, append(args, "--output-format=json+,normal")...)
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fio %v: %v", args, err)
	}
	s := string(out)
	start, end := strings.Index(s, "\n{\n"), strings.Index(s, "\n}\n")
	if start < 0 || end < start {
		t.Fatalf("no JSON in fio's output:\n%s", s)
	}
	return s[start+1 : end+2], s[end+2:]
}

// fromBins records fio's bins into a Latency.
func fromBins(t *testing.T, bins map[string]uint64) *Latency {
	t.Helper()
	l := &Latency{}
	for k, c := range bins {
		v, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			t.Fatalf("bin %q: %v", k, err)
		}
		l.RecordN(v, int64(c))
	}
	return l
}

// checkAgainstFio compares l (from fio's bins) with fio's bins and
// percentiles.
func checkAgainstFio(t *testing.T, what string, l *Latency, f fioLat, list []float64) {
	t.Helper()
	got := map[string]uint64{}
	for _, b := range l.Bins() {
		got[strconv.FormatUint(b.Value, 10)] = b.Count
	}
	if len(got) != len(f.Bins) {
		t.Errorf("%s: %d bins, fio %d", what, len(got), len(f.Bins))
	}
	for k, c := range f.Bins {
		if got[k] != c {
			t.Errorf("%s: bin %s holds %d, fio %d: a bin value must be its own bin's", what, k, got[k], c)
		}
	}
	sorted := SortedPercentiles(list)
	vals := l.FioPercentiles(sorted)
	if len(f.Percentile) != len(sorted) {
		t.Fatalf("%s: fio printed %d percentiles, the list has %d", what, len(f.Percentile), len(sorted))
	}
	for i, p := range sorted {
		k := strconv.FormatFloat(p, 'f', 6, 64)
		if want, ok := f.Percentile[k]; !ok || vals[i] != want {
			t.Errorf("%s: %s percentile %d, fio %d", what, k, vals[i], want)
		}
	}
}

// percentileBlocks returns the "X percentiles (unit):" blocks of fio's
// text output, each with its "|" lines.
func percentileBlocks(normal string) map[string]string {
	out := map[string]string{}
	lines := strings.Split(normal, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.Contains(lines[i], " percentiles (") {
			continue
		}
		name := strings.Fields(lines[i])[0]
		block := lines[i] + "\n"
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "     |") {
			i++
			block += lines[i] + "\n"
		}
		out[name] = block
	}
	return out
}

// TestPercentilesMatchFio: on fio's own histograms, blkq's percentiles,
// bins and percentile blocks are fio's, with fio's default options and
// with percentile_list (3 decimals), lat_percentiles and
// slat_percentiles.
func TestPercentilesMatchFio(t *testing.T) {
	cases := []struct {
		name string
		args []string
		po   PercentileOptions
	}{
		{"defaults", nil, PercentileOptions{Clat: true}},
		{"all three, own list", []string{"--lat_percentiles=1", "--slat_percentiles=1", "--percentile_list=99.999:10:50:99.9"},
			PercentileOptions{List: []float64{99.999, 10, 50, 99.9}, Precision: 3, Clat: true, Lat: true, Slat: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"--name=x", "--ioengine=null", "--rw=randread", "--size=64m", "--iodepth=4"}, c.args...)
			js, normal := runFioPlus(t, args...)
			var doc struct {
				Jobs []struct {
					Read fioDir `json:"read"`
				} `json:"jobs"`
			}
			if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Jobs) != 1 {
				t.Fatalf("fio's json+: %v", err)
			}
			fd := doc.Jobs[0].Read
			po := c.po.withList()
			blocks := percentileBlocks(normal)
			for _, x := range []struct {
				name string
				on   bool
				f    fioLat
			}{{"slat", po.Slat, fd.Slat}, {"clat", po.Clat, fd.Clat}, {"lat", po.Lat, fd.Lat}} {
				if !x.on {
					if x.f.Percentile != nil || blocks[x.name] != "" {
						t.Errorf("%s: fio printed percentiles blkq would not", x.name)
					}
					continue
				}
				l := fromBins(t, x.f.Bins)
				if l.Count() != x.f.N {
					t.Fatalf("%s: %d samples in the bins, fio N=%d", x.name, l.Count(), x.f.N)
				}
				checkAgainstFio(t, x.name, l, x.f, po.List)
				if got := percentileBlock(x.name, l, po); got != blocks[x.name] {
					t.Errorf("%s block\n got %q\nfio %q", x.name, got, blocks[x.name])
				}
			}
		})
	}
}

// TestJSONPlusThroughFiosTool: fio's fio_jsonplus_clat2csv reads blkq's
// json+ and writes, for a job holding fio's latencies, the same CSV
// (same rows) as from fio's own json+; --validate accepts both.
func TestJSONPlusThroughFiosTool(t *testing.T) {
	py := needPythonSix(t)
	tool, err := filepath.Abs("testdata/fio-tools/fio_jsonplus_clat2csv")
	if err != nil {
		t.Fatal(err)
	}
	js, _ := runFioPlus(t, "--name=x", "--ioengine=null", "--rw=randrw", "--size=16m", "--iodepth=2",
		"--lat_percentiles=1", "--slat_percentiles=1")
	var doc struct {
		Jobs []struct {
			Read  fioDir `json:"read"`
			Write fioDir `json:"write"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	fd := doc.Jobs[0]
	js0 := &JobStats{Name: "x", Percentiles: &PercentileOptions{Clat: true, Lat: true, Slat: true}}
	for _, d := range []struct {
		dst *DirStats
		src fioDir
	}{{&js0.Read, fd.Read}, {&js0.Write, fd.Write}} {
		d.dst.Slat, d.dst.Clat, d.dst.Lat = fromBins(t, d.src.Slat.Bins), fromBins(t, d.src.Clat.Bins), fromBins(t, d.src.Lat.Bins)
		d.dst.IOs = uint64(d.src.Clat.N)
	}
	var blkq bytes.Buffer
	if err := WriteJSONPlus(&blkq, &Run{Jobs: []*JobStats{js0}}); err != nil {
		t.Fatal(err)
	}
	csv := func(name, content string) (string, int) {
		dir := t.TempDir()
		src := filepath.Join(dir, name+".json")
		if err := os.WriteFile(src, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		dest := filepath.Join(dir, name+".csv")
		for _, extra := range [][]string{nil, {"--validate"}} {
			cmd := exec.Command(py, append([]string{tool, src, dest}, extra...)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("fio_jsonplus_clat2csv %v on %s's json+: %v\n%s", extra, name, err, out)
			}
		}
		files, _ := filepath.Glob(filepath.Join(dir, name+"_job*.csv"))
		sort.Strings(files)
		if len(files) != 1 {
			t.Fatalf("%s: %d CSV files, want 1 (one job)", name, len(files))
		}
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		return string(data), strings.Count(string(data), "\n")
	}
	fioCSV, fioRows := csv("fio", js)
	blkqCSV, blkqRows := csv("blkq", blkq.String())
	if fioRows < 3 || blkqRows != fioRows {
		t.Errorf("rows: blkq %d, fio %d", blkqRows, fioRows)
	}
	if blkqCSV != fioCSV {
		t.Errorf("the CSVs differ:\nblkq %.600s\nfio  %.600s", blkqCSV, fioCSV)
	}
}
