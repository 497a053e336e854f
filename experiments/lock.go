package experiments

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockRunDir locks the run directory dir for a run, through an advisory
// lock (flock) on dir/.lock that the kernel releases when the process ends,
// however it ends. A whole run takes it exclusively; a shard of a run
// (RunOptions.Only: Slurm array tasks share a directory by design) takes it
// shared, so that shards run side by side but never beside a whole run of
// the same directory. It does not wait: a directory in use is an error that
// says so. unlock releases the lock.
func lockRunDir(dir string, shared bool) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("run directory %s is in use by another mkpoe run (or shard); wait for it to finish, or use another --out", dir)
		}
		return nil, fmt.Errorf("locking run directory %s: %w", dir, err)
	}
	return func() { f.Close() }, nil
}
