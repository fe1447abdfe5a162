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
// get their pictures (with notes, no empty panels), and a file that cannot
// be written is an error naming it.
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

// plotFigures returns the three figures of outs, fitted as Plot draws them.
func plotFigures(e *Experiment, outs []*Outcome) map[string]*figure {
	return map[string]*figure{
		"sleeps":      fitted(sleepsFigure(e, outs)),
		"latency-cdf": fitted(latencyCDFFigure(e, outs)),
		"throughput":  fitted(throughputFigure(e, outs)),
	}
}

// TestPlotTitlesFitThePicture: every line of a figure's title, its notes
// and every panel's title fit the picture's width in the style they are
// drawn in, and wrapping them lost no word. A configuration name too long
// for one line is cut where it must be.
func TestPlotTitlesFitThePicture(t *testing.T) {
	e, _ := Get("wakeall")
	outs, _, err := Run(e, Options{Seed: 1, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	long := *outs[0]
	long.Config.Name = strings.Repeat("averyveryverylongconfigurationname", 4)
	outs = append(outs, &long)
	for name, f := range plotFigures(e, outs) {
		styles := f.titleStyles
		if len(styles) != len(f.title) {
			t.Fatalf("%s: %d title styles for %d lines", name, len(styles), len(f.title))
		}
		for i, l := range f.title {
			if w := titleStyle(styles[i]).Width(l); w > f.titleWidth() {
				t.Errorf("%s: title line %q is %.0f wide, the room %.0f", name, l, w, f.titleWidth())
			}
		}
		for _, l := range f.notes {
			if w := titleStyle(2).Width(l); w > f.titleWidth() {
				t.Errorf("%s: note %q is %.0f wide, the room %.0f", name, l, w, f.titleWidth())
			}
		}
		for _, p := range f.panels {
			for _, l := range strings.Split(p.Title.Text, "\n") {
				if w := p.Title.TextStyle.Width(l); w > f.panelTitleWidth() {
					t.Errorf("%s: panel title line %q is %.0f wide, the room %.0f", name, l, w, f.panelTitleWidth())
				}
			}
		}
	}
	// Nothing lost: the fitted sleeps title has the words of the unfitted.
	raw, fit := sleepsFigure(e, outs), plotFigures(e, outs)["sleeps"]
	if got, want := strings.Join(strings.Fields(strings.Join(fit.title, " ")), " "), strings.Join(strings.Fields(strings.Join(raw.title, " ")), " "); got != want {
		t.Errorf("wrapping changed the title:\n got %q\nwant %q", got, want)
	}
	if len(fit.title) <= len(raw.title) {
		t.Errorf("the sleeps title (%d lines) was not wrapped; the test shows nothing", len(fit.title))
	}
}

// TestPlotDrawsNoEmptyPanel: a configuration with no allocation waits or
// no completions gets a note under the title, not a panel of empty axes;
// every panel drawn has data; with no data at all there is no panel.
func TestPlotDrawsNoEmptyPanel(t *testing.T) {
	e, _ := Get("wakeall")
	outs, _, err := Run(e, Options{Seed: 1, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	empty := &Outcome{Config: Config{Name: "idle"}, Result: &engine.Result{Run: &report.Run{}}}
	mixed := append(append([]*Outcome(nil), outs...), empty)
	for name, f := range plotFigures(e, mixed) {
		if len(f.panels) == 0 || len(f.data) != len(f.panels) {
			t.Fatalf("%s: %d panels, %d data counts", name, len(f.panels), len(f.data))
		}
		for i, n := range f.data {
			if n <= 0 {
				t.Errorf("%s: panel %d drawn with no data", name, i)
			}
		}
		noted := false
		for _, n := range f.notes {
			noted = noted || strings.HasPrefix(n, "idle: ")
		}
		if !noted {
			t.Errorf("%s: no note for the configuration without data: %q", name, f.notes)
		}
	}
	if f := plotFigures(e, mixed)["sleeps"]; len(f.panels) != len(outs) {
		t.Errorf("sleeps: %d panels, want one per configuration with waits (%d)", len(f.panels), len(outs))
	}
	for name, f := range plotFigures(e, []*Outcome{empty}) {
		if len(f.panels) != 0 {
			t.Errorf("%s: %d panels for a run with no data", name, len(f.panels))
		}
	}
}
