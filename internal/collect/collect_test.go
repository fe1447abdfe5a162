package collect

import (
	"errors"
	"io"
	"reflect"
	"testing"
)

// counter returns 1, 2, ... n, then end.
func counter(n int, end error) func() (int, error) {
	i := 0
	return func() (int, error) {
		if i == n {
			return 0, end
		}
		i++
		return i, nil
	}
}

// TestAllStopsAtEOFWithoutError: io.EOF ends the stream cleanly.
func TestAllStopsAtEOFWithoutError(t *testing.T) {
	got, err := All(counter(3, io.EOF))
	if err != nil || !reflect.DeepEqual(got, []int{1, 2, 3}) {
		t.Fatalf("All = %v, %v; want [1 2 3], nil", got, err)
	}
	if got, err := All(counter(0, io.EOF)); err != nil || len(got) != 0 {
		t.Fatalf("empty stream: %v, %v", got, err)
	}
}

// TestAllKeepsItemsBeforeAnError: another error is returned with every
// item read before it.
func TestAllKeepsItemsBeforeAnError(t *testing.T) {
	boom := errors.New("boom")
	got, err := All(counter(2, boom))
	if !errors.Is(err, boom) || !reflect.DeepEqual(got, []int{1, 2}) {
		t.Fatalf("All = %v, %v; want [1 2], boom", got, err)
	}
}
