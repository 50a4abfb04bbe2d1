//go:build !unix

package bpmntest

// lockReport: without file locks, test binaries of several packages that
// finish at the same moment may each leave out the other's last test in
// index.html; the fragments stay complete, and the next test's write
// includes them.
func lockReport(string) (func(), error) { return func() {}, nil }
