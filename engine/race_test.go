//go:build race

package engine

// raceEnabled is set under the race detector, whose shadow memory and
// slowness make heap figures meaningless.
const raceEnabled = true
