//go:build unix

package bpmntest

import (
	"os"
	"path/filepath"
	"syscall"
)

// lockReport holds an exclusive lock on dir's .lock file until unlock.
func lockReport(dir string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil // closing releases the lock
}
