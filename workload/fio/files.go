package fio

// How a job's files are set up before its I/O: fio 3.33's fill_device,
// invalidate, fallocate and create_on_open (HOWTO "Target file/device";
// filesetup.c read for behaviour).

// FileSetup are a job's file set-up options.
type FileSetup struct {
	// FillDevice is fill_device (alias fill_fs; fio default 0): write
	// until the device is full (ENOSPC, which then ends the job without
	// an error). Without size= the job's file runs to the end of the
	// device.
	FillDevice bool
	// Invalidate is invalidate (fio default 1): drop the file's pages
	// from the page cache when the job opens it.
	Invalidate bool
	// Fallocate is fallocate: how a file fio lays out is allocated:
	// "none", "native" (fio's default on Linux: fallocate(2) with mode 0),
	// "posix" (posix_fallocate), "keep" (FALLOC_FL_KEEP_SIZE) or
	// "truncate" (ftruncate only). "0" and "1" are fio's old spellings of
	// "none" and "posix" and are stored as those.
	Fallocate string
	// CreateOnOpen is create_on_open (fio default 0): create the file when
	// the job opens it instead of laying it out before the job starts (so
	// it is not allocated first).
	CreateOnOpen bool

	// Service is file_service_type= (ioopts.go).
	Service FileService
	// OpenFiles is openfiles=: how many of the job's files are open at
	// once (0, or more than the files: all of them, fio's default). A
	// file closes when its pass ends, and the next opens.
	OpenFiles int
	// Sync is sync=: "" (fio's default, none), "sync" (O_SYNC; also 1)
	// or "dsync" (O_DSYNC): each write is durable when it completes.
	Sync string
	// Atomic is atomic: fio opens the files O_DIRECT (and O_ATOMIC, which
	// Linux ignores), so it sets Direct.
	Atomic bool
	// FsyncOnClose is fsync_on_close: fsync each file as the job closes
	// it, and at the end of each pass as end_fsync does.
	FsyncOnClose bool
	// Unlink is unlink: delete the job's files when it ends;
	// UnlinkEachLoop deletes them after each loop too.
	Unlink, UnlinkEachLoop bool
	// CreateOnly is create_only: the job lays its files out and does no
	// I/O.
	CreateOnly bool
	// PreRead is pre_read: read the job's files once, unaccounted, before
	// its I/O starts (and do not invalidate them: the point is to warm
	// the page cache).
	PreRead bool
}

func defaultFileSetup() FileSetup {
	return FileSetup{Invalidate: true, Fallocate: "native", Service: FileService{Kind: "roundrobin", N: 1, Center: -1}}
}

// fileOptions are the modelled file set-up options (registered by
// buildOptionTable with the rest).
var fileOptions = []struct {
	spec    optSpec
	aliases []string
}{
	{optSpec{name: "fill_device", set: func(j *Job, c *optCtx) error { return setBool(&j.Files.FillDevice, c) }}, []string{"fill_fs"}},
	{optSpec{name: "invalidate", set: func(j *Job, c *optCtx) error { return setBool(&j.Files.Invalidate, c) }}, nil},
	{optSpec{name: "create_on_open", set: func(j *Job, c *optCtx) error { return setBool(&j.Files.CreateOnOpen, c) }}, nil},
	{optSpec{name: "fallocate", set: func(j *Job, c *optCtx) error {
		if err := setChoice(&j.Files.Fallocate, c, "none", "native", "posix", "keep", "truncate", "0", "1"); err != nil {
			return err
		}
		switch j.Files.Fallocate {
		case "0":
			j.Files.Fallocate = "none"
		case "1":
			j.Files.Fallocate = "posix"
		}
		return nil
	}}, nil},
}
