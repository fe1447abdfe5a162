// Package device holds blkq's real devices: Null, which completes every
// request at once, and File, which serves requests from a regular file or a
// Linux block device with preadv/pwritev (optionally O_DIRECT). The simulated
// disk is in package blkq/sim/hdd.
//
// A File holds an advisory lock (flock) on its file until Close, so that
// two programs do not write one file at once; see OpenFile.
//
// File uses Linux system calls (preadv, fdatasync, fallocate, the block
// device ioctls) and builds only on Linux.
package device
