package engine

// A job's state, and every change of it.
//
// A job's life is a phase:
//
//	waiting ──begin──▶ running ──stop──▶ stopping ──drained──▶ finished
//	   └──────────────cancel (exitall, an interruption)──────▶ cancelled
//
// A running job reaches its end without stopping when its size is done
// (limitReached): it then finishes as a stopping one does, once its I/O
// has drained. Beside the phase, a job may be paused (a timer will pump
// it: thinktime, a rate limit's sleep, which waits for the job's I/O in
// flight first; or it writes back a batch for the page cache) and may owe
// an fsync (fsync=N, end_fsync). Its engine's queue and the reap it waits
// in are the job's aioState (batch.go); its tasks' sleeps for a request
// are the submitters' own (job.go), as a replay has one task per trace
// pid. Only the methods below change these fields.

type phase uint8

const (
	phaseWaiting   phase = iota // not started: its dependencies, its startdelay
	phaseRunning                // issuing
	phaseStopping               // issues nothing more: runtime over, an error, exitall, interruption, its source's end
	phaseFinished               // ran and ended
	phaseCancelled              // ended without running
)

type pause uint8

const (
	pauseNone    pause = iota
	pauseTimer         // thinktime or a rate limit: a timer pumps the job
	pauseQuiesce       // a rate limit's sleep, once the job's I/O in flight is reaped
)

type syncPhase uint8

const (
	syncNone     syncPhase = iota
	syncDue                // fsync=N or fdatasync=N came due: issued once the writes before it end
	syncInFlight           // an fsync (or end_fsync) is in flight
)

// jobState is a job's state; the zero value is a job waiting to start.
type jobState struct {
	phase     phase
	pause     pause
	sync      syncPhase
	endSynced bool // end_fsync was issued
}

func (s *jobState) started() bool  { return s.phase != phaseWaiting && s.phase != phaseCancelled }
func (s *jobState) ended() bool    { return s.phase >= phaseFinished }
func (s *jobState) stopping() bool { return s.phase == phaseStopping }

// ran reports whether the job started before it ended (a cancelled job
// did not).
func (s *jobState) ran() bool { return s.phase == phaseFinished }

func (s *jobState) begin() { s.phase = phaseRunning }

// stop ends a running job's issuing.
func (s *jobState) stop() {
	if s.phase == phaseRunning {
		s.phase = phaseStopping
	}
}

func (s *jobState) finish() { s.phase = phaseFinished }
func (s *jobState) cancel() { s.phase = phaseCancelled }

func (s *jobState) paused() bool { return s.pause != pauseNone }
func (s *jobState) pauseFor(p pause) {
	s.pause = p
}
func (s *jobState) resume() { s.pause = pauseNone }

func (s *jobState) syncDue() bool { return s.sync == syncDue }
func (s *jobState) wantSync()     { s.sync = syncDue }

// issueSync records an fsync issued; end marks it the job's end_fsync.
func (s *jobState) issueSync(end bool) {
	s.sync = syncInFlight
	s.endSynced = s.endSynced || end
}
func (s *jobState) syncEnded() { s.sync = syncNone }

// endSyncsQueued records that the job's end fsyncs (end_fsync,
// fsync_on_close) are queued, if any are due: they are queued once.
func (s *jobState) endSyncsQueued() { s.endSynced = true }
func (s *jobState) syncBusy() bool  { return s.sync == syncInFlight }
