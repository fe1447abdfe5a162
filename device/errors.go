package device

import (
	"errors"
	"fmt"

	"github.com/blkq-dev/blkq"
)

// ErrOutOfRange is wrapped by the error of a request that reaches beyond
// the end of a device.
var ErrOutOfRange = errors.New("beyond the end of the device")

// ErrReadOnly is wrapped by the error of a write or discard on a File
// opened read-only.
var ErrReadOnly = errors.New("device opened read-only")

// ErrInUse is wrapped by OpenFile's error when another open file holds a
// conflicting lock on the file: another blkq run, usually.
var ErrInUse = errors.New("device in use")

// ErrClosed is the error of a request issued after Close.
var ErrClosed = errors.New("device closed")

// An IOError is the error of a request a File could not serve: the file,
// the operation, the byte offset where it failed and why.
type IOError struct {
	Path   string  // the file's path
	Op     blkq.Op // read, write, flush or discard
	Offset int64   // byte offset in the file
	Err    error   // the cause: an errno, ErrOutOfRange, a short transfer
}

// Error returns "path: op at byte offset N: cause".
func (e *IOError) Error() string {
	return fmt.Sprintf("%s: %s at byte offset %d: %v", e.Path, e.Op, e.Offset, e.Err)
}

// Unwrap returns the cause.
func (e *IOError) Unwrap() error { return e.Err }
