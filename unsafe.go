package blkq

import "unsafe"

// uintptrOf returns the address of p's first byte, to check alignment.
func uintptrOf(p []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(p))) }
