package experiment

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/blkq-dev/blkq/report"
)

// Plot draws an experiment's outcomes (one per configuration, in
// e.Configs order, as [Run] returns them) as PNG pictures in dir, which it
// creates if needed, and returns the paths of the files it wrote:
//
//   - NAME-sleeps.png: every allocation sleep, one panel per configuration;
//   - NAME-latency-cdf.png: the CDF of completion latency (clat), one line
//     per configuration;
//   - NAME-throughput.png: MB/s in each second of the run, one line per
//     configuration.
//
// A configuration keeps its colour in all three pictures.
func Plot(dir string, e *Experiment, outs []*Outcome) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plot into %s: %w", dir, err)
	}
	figs := []struct {
		suffix string
		draw   func(*Experiment, []*Outcome) *figure
	}{
		{"sleeps", sleepsFigure},
		{"latency-cdf", latencyCDFFigure},
		{"throughput", throughputFigure},
	}
	// Many configurations make one set of pictures per group of them.
	var groups []string
	byGroup := map[string][]*Outcome{}
	for _, o := range outs {
		g := ""
		if e.PlotGroup != nil {
			g = e.PlotGroup(o.Config.Name)
		}
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g)
		}
		byGroup[g] = append(byGroup[g], o)
	}
	var written []string
	for _, g := range groups {
		name := fileSafe(e.Name)
		if g != "" {
			name += "-" + fileSafe(g)
		}
		for _, f := range figs {
			path := filepath.Join(dir, name+"-"+f.suffix+".png")
			if err := writeFigure(path, func() *figure { return fitted(f.draw(e, byGroup[g])) }); err != nil {
				return written, fmt.Errorf("plot %s: %w", path, err)
			}
			written = append(written, path)
		}
	}
	return written, nil
}

// A figure is a title block and a legend above one or more plots
// stacked vertically, sharing their data area's left and right edges. The
// legend sits outside the plots so that it never hides data.
//
// A panel is added only with data to show (addPanel): a configuration
// without any is named in a note line under the title instead, so that
// no set of empty axes is drawn. fitted wraps the title lines and the
// panels' titles to the picture's width.
type figure struct {
	title []string // lines: the first is the heading, the rest smaller
	notes []string // configurations with nothing to plot, one line each
	// titleStyles gives each title line its titleStyle index once fitted
	// has wrapped them (nil: line i has style i).
	titleStyles []int
	legend      []legendItem
	panels      []*plot.Plot
	data        []int // points (or samples) drawn in each panel, all > 0
	width       vg.Length
	panelH      vg.Length // height of each panel
}

// addPanel adds p, which draws n data points; a panel without any is
// left out.
func (f *figure) addPanel(p *plot.Plot, n int) {
	if n <= 0 {
		return
	}
	f.panels = append(f.panels, p)
	f.data = append(f.data, n)
}

// Room for the titles: the figure's title lines keep titleMargin on either
// side; a panel's title is centred over the panel's tile, which leaves
// tilePadLeft and tilePadRight (see writeFigure) and titleMargin more.
const (
	titleMargin  = 10
	tilePadLeft  = 8
	tilePadRight = 18
)

// titleStyle is the style of line i of a figure's title (heading, subtitle,
// the rest); notes use the last.
func titleStyle(i int) text.Style {
	size, col := vg.Length(10), color.Color(color.Gray{Y: 0x40})
	switch i {
	case 0:
		size, col = 15, color.Black
	case 1:
		size, col = 11, color.Black
	}
	return text.Style{
		Color:   col,
		Font:    font.From(plot.DefaultFont, size),
		XAlign:  draw.XCenter,
		YAlign:  draw.YTop,
		Handler: plot.DefaultTextHandler,
	}
}

// titleWidth is the width a figure's title lines may take.
func (f *figure) titleWidth() vg.Length { return f.width - 2*titleMargin }

// panelTitleWidth is the width a panel's title may take.
func (f *figure) panelTitleWidth() vg.Length {
	return f.width - tilePadLeft - tilePadRight - 2*titleMargin
}

// fitted wraps f's title lines, notes and panel titles at spaces (or, for
// a word longer than the room, anywhere) so that each fits the picture.
func fitted(f *figure) *figure {
	var title []string
	styles := []int{} // style index of each wrapped line
	for i, line := range f.title {
		for _, l := range wrapText(titleStyle(i), line, f.titleWidth()) {
			title = append(title, l)
			styles = append(styles, min(i, 2))
		}
	}
	// Keep the style of each original line: the heading's continuation
	// lines stay large, and so on.
	f.title, f.titleStyles = title, styles
	var notes []string
	for _, n := range f.notes {
		notes = append(notes, wrapText(titleStyle(2), n, f.titleWidth())...)
	}
	f.notes = notes
	for _, p := range f.panels {
		p.Title.Text = strings.Join(wrapText(p.Title.TextStyle, p.Title.Text, f.panelTitleWidth()), "\n")
	}
	return f
}

// wrapText breaks s into lines no wider than w in style st: at spaces, and
// inside a word only when the word alone is too wide.
func wrapText(st text.Style, s string, w vg.Length) []string {
	if s == "" || st.Width(s) <= w {
		return []string{s}
	}
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		try := word
		if line != "" {
			try = line + " " + word
		}
		if st.Width(try) <= w {
			line = try
			continue
		}
		if line != "" {
			lines = append(lines, line)
			line = ""
		}
		for st.Width(word) > w { // a word wider than the room: cut it
			k := len(word) - 1
			for k > 1 && st.Width(word[:k]) > w {
				k--
			}
			lines = append(lines, word[:k])
			word = word[k:]
		}
		line = word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

type legendItem struct {
	text   string
	thumbs []plot.Thumbnailer
}

func (f *figure) addLegend(text string, thumbs ...plot.Thumbnailer) {
	f.legend = append(f.legend, legendItem{text, thumbs})
}

const plotDPI = 144

// writeFigure draws the figure mk returns into a PNG file at path. gonum/plot
// panics on some degenerate input; that becomes an error rather than
// taking the command down.
func writeFigure(path string, mk func() *figure) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing failed: %v", r)
		}
	}()
	f := mk()
	const gap = 3
	lines := append(append([]string(nil), f.title...), f.notes...)
	titleStyles := make([]text.Style, len(lines))
	var titleH vg.Length = 2 * gap
	for i := range lines {
		k := min(i, 2)
		if i < len(f.titleStyles) {
			k = f.titleStyles[i]
		} else if i >= len(f.title) {
			k = 2 // a note
		}
		titleStyles[i] = titleStyle(k)
		titleH += titleStyles[i].Height(lines[i]) + gap
	}

	// The legend: two columns when the entries are short enough.
	legStyle := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, 10), Handler: plot.DefaultTextHandler}
	const thumbW, legLeft = 24, 60
	var widest, entryH vg.Length
	for _, it := range f.legend {
		widest = max(widest, legStyle.Width(it.text))
		entryH = max(entryH, legStyle.Height(it.text))
	}
	cols := 1
	colW := thumbW + 8 + widest + 24
	if len(f.legend) > 1 && legLeft+2*colW < f.width {
		cols = 2
	}
	rows := (len(f.legend) + cols - 1) / cols
	const legPad = 2
	legendH := vg.Length(rows)*(entryH+legPad) + 2*gap

	height := titleH + legendH + vg.Length(len(f.panels))*f.panelH
	img := vgimg.NewWith(vgimg.UseWH(f.width, height), vgimg.UseDPI(plotDPI))
	dc := draw.New(img)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	y := height - 2*gap
	for i, line := range lines {
		dc.FillText(titleStyles[i], vg.Point{X: f.width / 2, Y: y}, line)
		y -= titleStyles[i].Height(line) + gap
	}
	for c := 0; c < cols; c++ {
		leg := plot.NewLegend()
		leg.TextStyle = legStyle
		leg.Top, leg.Left = true, true
		leg.ThumbnailWidth = thumbW
		leg.Padding = legPad
		for i := c * rows; i < min((c+1)*rows, len(f.legend)); i++ {
			leg.Add(f.legend[i].text, f.legend[i].thumbs...)
		}
		x := legLeft + vg.Length(c)*colW
		leg.Draw(draw.Crop(dc, x, 0, 0, -(titleH + gap)))
	}
	if len(f.panels) > 0 {
		body := draw.Crop(dc, 0, 0, 0, -(titleH + legendH))
		grid := make([][]*plot.Plot, len(f.panels))
		for i, p := range f.panels {
			grid[i] = []*plot.Plot{p}
		}
		tiles := draw.Tiles{Rows: len(f.panels), Cols: 1, PadY: 14, PadLeft: tilePadLeft, PadRight: tilePadRight, PadBottom: 6}
		canvases := plot.Align(grid, tiles, body)
		for i, p := range f.panels {
			p.Draw(canvases[i][0])
		}
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(out); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// sleepsFigure draws every allocation sleep (a task waiting in get_request
// for a free request): one panel per configuration, x the virtual time the
// sleep ended (s), y how long it lasted (ms, log scale).
//
// Why this view rather than y = task: the question the 2002 report asked
// ("dbench[883] wakes after 442ms"; legacy's longest sleep 37 s against
// fair's 8 s, and whether every task slept similar durations) is about
// sleep length, so length gets the axis; a log scale puts a 10 ms sleep and
// a 37 s one on the same picture, and the panels share both axes so the
// configurations compare directly. With 64 tasks, one colour or row per
// task would be unreadable, so instead every sleep of the task that slept
// longest is drawn large and vermillion and its longest sleep is labelled
// "name[pid] wakes after N ms": a starved task stands out as marked dots
// far above the cloud and the dashed median line. The grey curve y = x is
// the longest a sleep ending at x can be (asleep since the run began);
// sleeps on it are of tasks that had not got a request until then.
func sleepsFigure(e *Experiment, outs []*Outcome) *figure {
	f := &figure{
		title: []string{
			e.Name + ": allocation waits (each from a task's first sleep for a request to getting it)",
			e.Title,
			"from " + e.Source + "; one point per wait, at the (virtual) time the task got its request; the tables' \"sleeps\" count every S, a wait may hold several",
		},
		width:  8 * vg.Inch,
		panelH: 2.6 * vg.Inch,
	}
	// Shared ranges; y is log10(ms) on a linear axis (see log10Ticks).
	xmax := 1.0
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, o := range outs {
		xmax = max(xmax, elapsedSeconds(o))
		for _, w := range o.Waits {
			ms := waitMS(w)
			ymin, ymax = min(ymin, ms), max(ymax, ms)
			xmax = max(xmax, float64(w.End)/1e9)
		}
	}
	if math.IsInf(ymin, 1) {
		ymin, ymax = 1, 1000
	}
	ymin, ymax = logRange(ymin, ymax)

	// The bound: a sleep ending at t lasted at most t.
	var bound plotter.XYs
	for k := 0; k <= 200; k++ {
		x := min(ymin/1000*math.Pow(xmax*1000/ymin, float64(k)/200), xmax)
		bound = append(bound, plotter.XY{X: x, Y: math.Log10(x * 1000)})
	}
	bl, err := plotter.NewLine(bound)
	if err != nil {
		panic(err)
	}
	bl.Color = color.Gray{Y: 0x90}
	bl.Width = 1
	bl.Dashes = []vg.Length{2, 2}

	// The legend, in the first configuration's colours.
	f.addLegend("one sleep (colour: the panel's configuration)", glyphThumb(sleepDot(0)))
	f.addLegend("median sleep of the panel", medianLine(0, 0, 0))
	f.addLegend("every sleep of the task with the longest sleep", glyphThumb(starvedDot))
	f.addLegend("longest possible: asleep since t=0", bl)

	for i, o := range outs {
		p := newPlot()
		p.X.Label.Text = "time the sleep ended (s)"
		p.Y.Label.Text = "sleep length (ms, log)"
		p.X.Min, p.X.Max = 0, xmax
		p.X.Tick.Marker = linearTicks{}
		p.Y.Min, p.Y.Max = math.Log10(ymin), math.Log10(ymax)
		p.Y.Tick.Marker = log10Ticks{}
		p.Add(gridLines(), bl)

		names := map[int]string{}
		for _, js := range o.Result.Run.Jobs {
			names[js.PID] = js.Name
		}
		task := func(pid int) string {
			if n := names[pid]; n != "" {
				return fmt.Sprintf("%s[%d]", n, pid)
			}
			return fmt.Sprintf("pid %d", pid)
		}
		if len(o.Waits) == 0 {
			f.notes = append(f.notes, o.Config.Name+": no allocation waits (no panel)")
			continue
		}
		worst := o.Waits[0]
		tasks := map[int]bool{}
		var lens []float64
		for _, w := range o.Waits {
			tasks[w.PID] = true
			lens = append(lens, waitMS(w))
			if w.Wait > worst.Wait {
				worst = w
			}
		}
		sort.Float64s(lens)
		median := lens[len(lens)/2]
		p.Title.Text = fmt.Sprintf("%s: %d waits by %d tasks, median %s ms, longest %s ms (%s)",
			o.Config.Name, len(o.Waits), len(tasks), fmtMS(median), fmtMS(lens[len(lens)-1]), task(worst.PID))

		var others, mine plotter.XYs
		for _, w := range o.Waits {
			pt := plotter.XY{X: float64(w.End) / 1e9, Y: math.Log10(waitMS(w))}
			if w.PID == worst.PID {
				mine = append(mine, pt)
			} else {
				others = append(others, pt)
			}
		}
		if len(others) > 0 {
			s, err := plotter.NewScatter(others)
			if err != nil {
				panic(err)
			}
			s.GlyphStyle = sleepDot(i)
			p.Add(s)
		}
		s, err := plotter.NewScatter(mine)
		if err != nil {
			panic(err)
		}
		s.GlyphStyle = starvedDot
		p.Add(s)

		p.Add(medianLine(i, math.Log10(median), xmax))

		// Label the longest sleep as the 2002 report printed it, on the
		// side of the point that has room.
		lx, ly := float64(worst.End)/1e9, waitMS(worst)
		lab, err := plotter.NewLabels(plotter.XYLabels{
			XYs:    plotter.XYs{{X: lx, Y: math.Log10(ly)}},
			Labels: []string{fmt.Sprintf("%s wakes after %s ms", task(worst.PID), fmtMS(ly))},
		})
		if err != nil {
			panic(err)
		}
		lab.TextStyle[0].Font.Size = 9
		lab.TextStyle[0].Color = starvedColor
		lab.TextStyle[0].YAlign = draw.YBottom
		lab.Offset = vg.Point{X: 5, Y: 3}
		if lx > xmax/2 {
			lab.TextStyle[0].XAlign = draw.XRight
			lab.Offset.X = -5
		}
		p.Add(lab)
		f.addPanel(p, len(o.Waits))
	}
	if len(f.panels) == 0 {
		f.legend = nil // it explains the panels' marks
	}
	return f
}

func sleepDot(config int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: withAlpha(configColor(config), 0xa0), Radius: 2.2, Shape: draw.CircleGlyph{}}
}

// medianLine is a dashed line at height y across [0, xmax].
func medianLine(config int, y, xmax float64) *plotter.Line {
	l := &plotter.Line{XYs: plotter.XYs{{X: 0, Y: y}, {X: xmax, Y: y}}, LineStyle: plotter.DefaultLineStyle}
	l.Color = configColor(config)
	l.Width = 1.2
	l.Dashes = []vg.Length{6, 3}
	return l
}

func waitMS(w Wait) float64 { return max(float64(w.Wait)/1e6, 1e-3) }

// glyphThumb is a legend thumbnail of one glyph.
type glyphThumb draw.GlyphStyle

func (g glyphThumb) Thumbnail(c *draw.Canvas) {
	c.DrawGlyph(draw.GlyphStyle(g), c.Center())
}

// latencyCDFFigure draws, per configuration, the distribution of
// completion latency (clat: issued to the device → completed) over every
// read and write of every job.
func latencyCDFFigure(e *Experiment, outs []*Outcome) *figure {
	f := &figure{
		title:  []string{e.Name + ": completion latency CDF", e.Title, "from " + e.Source},
		width:  8 * vg.Inch,
		panelH: 4.4 * vg.Inch,
	}
	p := newPlot()
	p.Title.Text = "completion latency (clat) of every read and write, all jobs merged"
	p.X.Label.Text = "completion latency (ms, log)"
	p.Y.Label.Text = "I/Os completed within x (%)"
	p.X.Tick.Marker = log10Ticks{}
	p.Y.Min, p.Y.Max = 0, 100
	var yt plot.ConstantTicks
	for v := 0; v <= 100; v += 10 {
		t := plot.Tick{Value: float64(v)}
		if v%20 == 0 {
			t.Label = strconv.Itoa(v)
		}
		yt = append(yt, t)
	}
	p.Y.Tick.Marker = yt
	p.Add(gridLines())

	// Percentiles sampled: every 0.5% to 99%, then finer into the tail.
	var ps []float64
	for k := 0; k <= 198; k++ {
		ps = append(ps, float64(k)/2)
	}
	ps = append(ps, 99.2, 99.4, 99.6, 99.8, 99.9, 99.95, 99.99, 100)
	xmin, xmax := math.Inf(1), math.Inf(-1)
	var ios int64
	for i, o := range outs {
		lat := report.NewLatency()
		for _, js := range o.Result.Run.Jobs {
			lat.Merge(js.Read.Clat)
			lat.Merge(js.Write.Clat)
		}
		if lat.Count() == 0 {
			f.notes = append(f.notes, o.Config.Name+": no reads or writes completed")
			continue
		}
		ios += lat.Count()
		var pts plotter.XYs
		for _, q := range ps {
			x := max(float64(lat.Percentile(q))/1e6, 1e-3)
			pts = append(pts, plotter.XY{X: math.Log10(x), Y: q})
			xmin, xmax = min(xmin, x), max(xmax, x)
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			panic(err)
		}
		l.Color = configColor(i)
		l.Width = 2
		l.Dashes = configDashes(i)
		p.Add(l)
		f.addLegend(fmt.Sprintf("%s: %d I/Os; median %s ms, p99 %s ms, max %s ms", o.Config.Name, lat.Count(),
			fmtMS(float64(lat.Percentile(50))/1e6), fmtMS(float64(lat.Percentile(99))/1e6), fmtMS(float64(lat.Max())/1e6)), l)
	}
	if math.IsInf(xmin, 1) {
		xmin, xmax = 0.01, 100
	}
	xmin, xmax = logRange(xmin, xmax)
	p.X.Min, p.X.Max = math.Log10(xmin), math.Log10(xmax)
	f.addPanel(p, int(min(ios, math.MaxInt32)))
	return f
}

// throughputFigure draws each configuration's MB/s (10^6 bytes completed
// per second of virtual time), one point per second of the run.
func throughputFigure(e *Experiment, outs []*Outcome) *figure {
	f := &figure{
		title:  []string{e.Name + ": throughput over time", e.Title, "from " + e.Source},
		width:  8 * vg.Inch,
		panelH: 4 * vg.Inch,
	}
	p := newPlot()
	p.Title.Text = "bytes the disk completed in each second of the run (virtual time; with buffered jobs, write-back, not the jobs' writes)"
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = "throughput (MB/s, 10^6 B/s)"
	p.X.Tick.Marker = linearTicks{}
	p.Y.Tick.Marker = linearTicks{}
	p.Add(gridLines())
	ymax, xmax := 0.0, 1.0
	points := 0
	for i, o := range outs {
		el := elapsedSeconds(o)
		if el > 0 {
			xmax = max(xmax, el)
		} else {
			xmax = max(xmax, float64(len(o.Throughput)))
		}
		var pts plotter.XYs
		var total int64
		for s, b := range o.Throughput {
			total += b
			// The last second is usually cut short by the end of the
			// run: rate it over the part that was run, and leave it out
			// when that part is too short to say much.
			span := 1.0
			if el > 0 && el < float64(s+1) {
				span = el - float64(s)
			}
			if span < 0.25 {
				continue
			}
			mbps := float64(b) / 1e6 / span
			pts = append(pts, plotter.XY{X: float64(s) + span/2, Y: mbps})
			ymax = max(ymax, mbps)
		}
		if len(pts) == 0 {
			f.notes = append(f.notes, o.Config.Name+": nothing completed at the disk")
			continue
		}
		points += len(pts)
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			panic(err)
		}
		l.Color = configColor(i)
		l.Width = 2
		l.Dashes = configDashes(i)
		s.GlyphStyle = draw.GlyphStyle{Color: configColor(i), Radius: 2.5, Shape: draw.CircleGlyph{}}
		p.Add(l, s)
		mean := 0.0
		if el > 0 {
			mean = float64(total) / 1e6 / el
		}
		f.addLegend(fmt.Sprintf("%s: %.2f MB/s at the disk over the run", o.Config.Name, mean), l, s)
	}
	p.X.Min, p.X.Max = 0, xmax
	p.Y.Min, p.Y.Max = 0, max(ymax, 1)*1.05
	f.addPanel(p, points)
	return f
}

func newPlot() *plot.Plot {
	p := plot.New()
	p.Title.TextStyle.Font.Size = 11
	p.Legend.TextStyle.Font.Size = 9
	p.X.Label.TextStyle.Font.Size = 10
	p.Y.Label.TextStyle.Font.Size = 10
	return p
}

func gridLines() *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 0xe0}
	g.Horizontal.Color = color.Gray{Y: 0xe0}
	return g
}

func elapsedSeconds(o *Outcome) float64 {
	if o.Result == nil {
		return 0
	}
	return o.Result.Elapsed.Seconds()
}

// Colours per configuration (Okabe–Ito, safe for colour-blind readers).
// Vermillion, outlined, is kept for the task with the longest sleep in the
// sleeps picture, and orange, too close to it, comes last.
var (
	palette = []color.Color{
		color.RGBA{0x00, 0x72, 0xB2, 0xff}, // blue
		color.RGBA{0x00, 0x9E, 0x73, 0xff}, // bluish green
		color.RGBA{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
		color.RGBA{0x56, 0xB4, 0xE9, 0xff}, // sky blue
		color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
		color.RGBA{0xE6, 0x9F, 0x00, 0xff}, // orange
	}
	starvedColor = color.RGBA{0xD5, 0x5E, 0x00, 0xff} // vermillion
	starvedDot   = draw.GlyphStyle{Color: starvedColor, Radius: 3.6, Shape: outlinedCircle{}}
)

// outlinedCircle is a filled circle with a black rim, visible on a cloud
// of dots of any colour.
type outlinedCircle struct{}

func (outlinedCircle) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	draw.CircleGlyph{}.DrawGlyph(c, sty, pt)
	rim := sty
	rim.Color = color.Black
	draw.RingGlyph{}.DrawGlyph(c, rim, pt)
}

func configColor(i int) color.Color { return palette[i%len(palette)] }

// configDashes tells lines apart in grey print too.
func configDashes(i int) []vg.Length {
	return [][]vg.Length{nil, {6, 3}, {2, 2}, {8, 3, 2, 3}}[i%4]
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), a}
}

// logRange widens [lo, hi] a little for a log axis, to at least a factor
// of 4 so that the axis gets labelled ticks.
func logRange(lo, hi float64) (float64, float64) {
	lo, hi = max(lo, 1e-6), max(hi, 1e-6)
	if hi/lo < 4 {
		c := math.Sqrt(lo * hi)
		lo, hi = c/2, c*2
	}
	return lo / 1.3, hi * 1.3
}

// log10Ticks marks a linear axis whose values are log10 of the quantity
// shown (how the log axes here are drawn: gonum/plot's LogScale misplaces
// the axis label's room, centring it on the arithmetic midpoint). Labels
// go at powers of ten, or at 1-2-5 or every multiple when the range spans
// too few of them to read.
type log10Ticks struct{}

func (log10Ticks) Ticks(lo, hi float64) []plot.Tick {
	if hi <= lo || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	e0, e1 := int(math.Floor(lo)), int(math.Ceil(hi))
	var ticks []plot.Tick
	for _, labelled := range []string{"1", "125", "123456789"} {
		ticks = ticks[:0]
		n := 0
		for e := e0; e <= e1; e++ {
			for m := 1; m <= 9; m++ {
				// Via the decimal string, so 3e-1 is 0.3, not 0.30000000000000004.
				v, _ := strconv.ParseFloat(fmt.Sprintf("%de%d", m, e), 64)
				lv := math.Log10(v)
				if lv < lo-1e-9 || lv > hi+1e-9 {
					continue
				}
				t := plot.Tick{Value: lv}
				if strings.ContainsRune(labelled, rune('0'+m)) {
					t.Label = strconv.FormatFloat(v, 'f', -1, 64)
					n++
				}
				ticks = append(ticks, t)
			}
		}
		if n >= 3 {
			break
		}
	}
	return ticks
}

// linearTicks marks a linear axis at 1-2-5 steps, about eight labels.
type linearTicks struct{}

func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if hi <= lo || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	raw := (hi - lo) / 8
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	var ticks []plot.Tick
	minor := step / 5
	if m := step / mag; m == 2 {
		minor = step / 4
	}
	for k := math.Ceil(lo / minor); k*minor <= hi+minor*1e-9; k++ {
		v := k * minor
		t := plot.Tick{Value: v}
		if r := math.Mod(math.Abs(v)+step*1e-9, step); r < step*1e-6 {
			// Rounded to the step's decimals, then without trailing zeros.
			r, _ := strconv.ParseFloat(strconv.FormatFloat(math.Round(v/step)*step, 'f', decimals, 64), 64)
			t.Label = strconv.FormatFloat(r, 'f', -1, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// fmtMS formats milliseconds with about three significant digits.
func fmtMS(ms float64) string {
	switch {
	case ms >= 100:
		return strconv.FormatFloat(ms, 'f', 0, 64)
	case ms >= 10:
		return strconv.FormatFloat(ms, 'f', 1, 64)
	case ms >= 1:
		return strconv.FormatFloat(ms, 'f', 2, 64)
	}
	return strconv.FormatFloat(ms, 'g', 3, 64)
}

// fileSafe keeps a name usable in a file name: letters, digits, '.', '_'
// and '-'; anything else becomes '-'.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '-'
	}, s)
}
