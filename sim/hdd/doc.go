// Package hdd simulates a 7200 rpm disk of about 2002 (an IDE disk with one
// request at a time) in the virtual time of a sim.Loop.
//
// The model is deliberately simple and entirely deterministic:
//
//   - One surface, one head, no zoning: every track holds the same number of
//     sectors, SectorsPerTrack = MediaRate × revolution time / 512, rounded
//     down to whole sectors, and the disk has Capacity / SectorsPerTrack
//     cylinders (rounded up; the last one may be partly used). Sector s is
//     on cylinder s / SectorsPerTrack.
//   - Seek time over d cylinders is a + b·√d + c·d, fitted through the
//     track-to-track, average and full-stroke times at distances 1, a third
//     of the stroke (the mean distance between two random cylinders) and the
//     full stroke.
//   - The platter turns at a constant rate from angle 0 at time 0, so where
//     it stands at any instant is known exactly. Sector s starts at angle
//     ((s mod SectorsPerTrack) + TrackSkew × cylinder) / SectorsPerTrack
//     of a revolution: the first sector of each track is rotated TrackSkew
//     sectors beyond the previous track's, the skew real disks use so that
//     reading on across a track boundary costs only the track-to-track seek
//     and not a whole revolution.
//   - Serving a request is: seek to the cylinder of its first sector, wait
//     for that sector's start to come under the head, then transfer while
//     the sectors pass. A transfer that runs off the end of a track moves
//     the head to the next one in the time the skew gap takes to pass (at
//     least a track-to-track seek), so a long transfer costs exactly what
//     the layout implies and the head finishes at the angle where the next
//     sequential sector begins.
//   - Every command costs the controller a fixed overhead first, and one
//     that goes to the media a further one before its seek (cache.go).
//   - A read-ahead buffer of a few segments, one per sequential stream:
//     after a read from the media the drive reads on into its segment
//     while nothing else needs the head, and a later read that starts in
//     any segment is served over the interface without a seek or a
//     rotational wait (cache.go). A read that misses them all replaces the
//     least recently used segment.
//   - No write cache: writes complete when they reach the media, so a
//     flush costs only its command overhead. A discard (trim) has no
//     media cost either.
//
// All rotational arithmetic is in integers (exact fractions of a
// revolution); only the seek curve and the interface transfer time use
// floating point, rounded to whole nanoseconds.
package hdd
