package engine

// zonemode=strided, as fio 3.33 runs it (io_u.c's strided zone set-up,
// called before each I/O's offset is chosen): a job works on one zone of
// its file at a time, zonesize bytes from the zone's start, and moves on
// by zonesize + zoneskip once it has done zonesize bytes there. A zone
// that would start past the end of the file wraps to the job's offset,
// so the job goes round its zones until it has done its size (or its
// runtime), as fio does: zonesize=1m zoneskip=8m over 64 MiB reads the
// eight zones at 0, 9, ..., 63 MiB eight times over. Random I/O draws
// within the current zone, and the zone's random map starts empty each
// time the job has done another zone's worth of bytes.
//
// zonerange is how far apart zones start and how far a zone reaches
// (default zonesize, as fio's); fio counts the zone's bytes for the whole job, not per
// file, and turns strided mode off for a job with more than one file
// open at once, as blkq does for a job with more than one file (blkq
// opens them all: openfiles is not modelled).

// strided reports whether the job runs zonemode=strided.
func (g *generator) strided() bool {
	return g.job.ZoneMode == "strided" && g.job.ZoneSize > 0 && len(g.files) == 1
}

// zoneRange is the bytes of a zone: zonerange, or zonesize without it
// (fio's default).
func (g *generator) zoneRange() int64 {
	if g.job.ZoneRange > 0 {
		return g.job.ZoneRange
	}
	return g.job.ZoneSize
}

// enterZone moves f to the zone its next I/O of direction d is in, as
// fio does before each I/O: to the next zone once zonesize bytes are
// done in this one, wrapping to the job's offset past the file's end;
// back to the zone's start once past its range; and with a fresh pass
// (positions and random map) each time a zone's worth is done.
func (g *generator) enterZone(f *fileRegion, d int) {
	zs, zr := g.job.ZoneSize, g.zoneRange()
	if g.zoneBytes >= zs {
		g.zoneBytes = 0
		f.zoneOff += zr + g.job.ZoneSkip
		if f.zoneOff >= f.end {
			f.zoneOff = f.start()
		}
		f.lastPos[d] = f.zoneOff
	}
	if f.lastPos[d] >= f.zoneOff+zr {
		f.lastPos[d] = f.zoneOff
	}
	if g.zoneBytes%zr == 0 {
		for k := range f.lastPos {
			f.lastPos[k] = f.zoneOff
		}
		f.rand.reset()
	}
}
