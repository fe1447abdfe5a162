// Package collect collects the items of a reader that returns one item per
// call and io.EOF at the end: the blktrace reader (package trace), the
// text trace readers and the event reader (package workload/iotrace).
package collect

import "io"

// All calls next until it returns io.EOF or another error. It returns
// every item read before that, and the error (nil at io.EOF), so that a
// trace cut short still gives its records before the cut.
func All[T any](next func() (T, error)) ([]T, error) {
	var items []T
	for {
		item, err := next()
		if err == io.EOF {
			return items, nil
		}
		if err != nil {
			return items, err
		}
		items = append(items, item)
	}
}
