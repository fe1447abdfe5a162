package experiment

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq/engine"
	"github.com/blkq-dev/blkq/report"
)

// TestPlot draws a quick wakeall run and checks that every picture is a
// PNG of a readable size.
func TestPlot(t *testing.T) {
	e, ok := Get("wakeall")
	if !ok {
		t.Fatal("no wakeall experiment")
	}
	outs, _, err := Run(e, Options{Seed: 1, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "plots") // Plot creates it
	files, err := Plot(dir, e, outs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"wakeall-sleeps.png", "wakeall-latency-cdf.png", "wakeall-throughput.png"}
	if len(files) != len(want) {
		t.Fatalf("Plot wrote %q, want %q", files, want)
	}
	for i, f := range files {
		if filepath.Base(f) != want[i] || filepath.Dir(f) != dir {
			t.Errorf("file %d = %s, want %s", i, f, filepath.Join(dir, want[i]))
		}
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() < 10_000 {
			t.Errorf("%s: %d bytes, suspiciously small for a plot", f, fi.Size())
		}
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: not a PNG: %v", f, err)
		}
		if b := img.Bounds(); b.Dx() < 600 || b.Dy() < 400 {
			t.Errorf("%s: %dx%d pixels, want at least 600x400", f, b.Dx(), b.Dy())
		}
	}
}

// TestPlotEdgeCases: configurations without sleeps or completions still
// get their panels, and a file that cannot be written is an error naming
// it.
func TestPlotEdgeCases(t *testing.T) {
	e, _ := Get("wakeall")
	var outs []*Outcome
	for _, c := range e.Configs {
		outs = append(outs, &Outcome{Config: c, Result: &engine.Result{Run: &report.Run{}}})
	}
	files, err := Plot(t.TempDir(), e, outs)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Fatalf("wrote %q", files)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "wakeall-latency-cdf.png")
	if err := os.Mkdir(bad, 0o755); err != nil { // a directory where the file goes
		t.Fatal(err)
	}
	files, err = Plot(dir, e, outs)
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("Plot with %s a directory: err = %v, want one naming it", bad, err)
	}
	if len(files) != 1 {
		t.Errorf("files written before the error = %q, want the sleeps picture", files)
	}
}
