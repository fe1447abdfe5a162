package fio

import "time"

// ParseSize reads a size as fio does under the default kb_base=1024
// ("64m", "4k", "1g", "0x1000"), in bytes. Command-line flags use it so
// that they read sizes the way job files do.
func ParseSize(s string) (int64, error) { return parseSize(s, 1024) }

// ParseTime reads a time as fio's command line does for
// --status-interval ("1", "500ms", "2m"; a bare number is seconds).
func ParseTime(s string) (time.Duration, error) { return parseDuration(s, time.Second) }
