package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite/persistence"
)

// riverRef is River's own benchmark (continuous insert and work, riverbench)
// as a second reference for the PostgreSQL job figures: a Go job queue
// that commits many jobs per statement, on the same server in the same run.
// It is built from bench/river, a module of its own, so the engine's module
// does not depend on River.
type riverRef struct {
	bin, adminURL string
	duration      time.Duration
	// lastCPUPerJob is the machine's CPU time per job of the last run.
	lastCPUPerJob time.Duration
}

var riverTotalRe = regexp.MustCompile(`total jobs worked \[\s*(\d+)\s*\].*overall job/sec \[\s*([0-9.]+)\s*\]`)

// prepareRiver builds bench/river once and gives it a fresh database; nil
// when o.riverDir is empty (the reference is off).
func prepareRiver(ctx context.Context, o options) (*riverRef, error) {
	if o.riverDir == "" {
		return nil, nil
	}
	if _, err := os.Stat(filepath.Join(o.riverDir, "go.mod")); err != nil {
		return nil, fmt.Errorf("-river %s: not River's benchmark module (run bpmnbench from the repository root, or -river '' to leave River out): %w", o.riverDir, err)
	}
	dir, err := os.MkdirTemp("", "bpmnbench-river")
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "river")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir = o.riverDir
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building %s: %v: %s", o.riverDir, err, out)
	}
	return &riverRef{bin: bin, adminURL: o.pgURL, duration: o.duration}, nil
}

// riverDatabase is River's database, made afresh for each run and dropped
// after it: the 75,000 and more jobs a run inserts and deletes would keep
// autovacuum busy through the engine's next figure.
const riverDatabase = "bpmnlite_bench_river"

// run measures River's jobs per second. The machine's CPU is read from the
// moment riverbench starts working (its "[0s]" line) to its summary, so
// its setup (75,000 jobs inserted, VACUUM FULL) is not charged to the jobs.
func (r *riverRef) run(ctx context.Context) (float64, error) {
	url, err := freshDatabase(ctx, r.adminURL, riverDatabase)
	if err != nil {
		return 0, err
	}
	defer persistence.DropDatabase(context.WithoutCancel(ctx), r.adminURL, riverDatabase)
	cmd := exec.CommandContext(ctx, r.bin, "-db", url, "-duration", r.duration.String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	var cpuStart, cpu time.Duration
	var rate float64
	var jobs int64
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		line := lines.Text()
		switch m := riverTotalRe.FindStringSubmatch(line); {
		case m != nil:
			cpu = machineCPU() - cpuStart
			jobs, _ = strconv.ParseInt(m[1], 10, 64)
			rate, _ = strconv.ParseFloat(m[2], 64)
		case strings.HasSuffix(line, "[0s]"):
			cpuStart = machineCPU()
		}
	}
	if err := cmd.Wait(); err != nil {
		return 0, fmt.Errorf("River's benchmark: %v: %s", err, stderr.String())
	}
	if rate == 0 {
		return 0, fmt.Errorf("River's benchmark printed no overall job/sec: %s", stderr.String())
	}
	if jobs > 0 && cpuStart > 0 {
		r.lastCPUPerJob = cpu / time.Duration(jobs)
	}
	return rate, nil
}

// cpuNote gives the machine's CPU time per job of River's last run.
func (r *riverRef) cpuNote() string {
	if r == nil || r.lastCPUPerJob <= 0 {
		return ""
	}
	return fmt.Sprintf("River %.3f ms CPU per job", float64(r.lastCPUPerJob.Microseconds())/1000)
}
