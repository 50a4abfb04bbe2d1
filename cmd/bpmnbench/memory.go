package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
)

// memoryHeadroom is what the heap in use may hold beyond the definition
// cache's bound after the deployments: the engine, the database driver,
// and the spans the cache's churn leaves partly free (about 40 MiB).
const memoryHeadroom = 96 << 20

// maxRSS bounds the process's resident memory after the deployments: the
// heap, and the garbage of a parse (about 16 times the model) that the
// runtime has not returned yet.
const maxRSS = 512 << 20

// memorySuite deploys a model of o.modelBytes o.deployments times, each a
// new version of one process, on SQLite with the default definition cache,
// (or o.cacheBytes; negative: unbounded, as before), and reports the heap
// and RSS after; it fails when the heap in use passes the cache's bound
// plus memoryHeadroom, or the RSS maxRSS. Parsed definitions were kept
// forever before: the heap grew by about 1.4 times the model per version.
func memorySuite(ctx context.Context, o options, w io.Writer) error {
	dir, err := os.MkdirTemp("", "bpmnbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{
		Database: bpmnlite.DatabaseConfig{URL: filepath.Join(dir, "memory.db")},
		History:  bpmnlite.HistoryConfig{Level: bpmnlite.HistoryNone},
		Limits:   bpmnlite.LimitsConfig{DefinitionCacheBytes: o.cacheBytes},
		Logger:   slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return err
	}
	defer eng.Close()
	model := enginetest.LargeModel("big", o.modelBytes)
	load := loadAverage()
	start := time.Now()
	var first string
	for i := range o.deployments {
		dep, err := eng.Deploy(ctx, bpmnlite.DeployRequest{Name: "big", Resources: []bpmnlite.Resource{{Name: "big.bpmn",
			Bytes: []byte(strings.Replace(model, `camunda:versionTag="1"`, `camunda:versionTag="v`+strconv.Itoa(i)+`"`, 1))}}})
		if err != nil {
			return fmt.Errorf("deployment %d: %w", i+1, err)
		}
		if i == 0 {
			first = dep.Definitions[0].ID
		}
	}
	took := time.Since(start)
	// The first version is long evicted: starting it parses it again.
	if _, err := eng.Start(ctx, bpmnlite.StartRequest{DefinitionID: first}); err != nil {
		return fmt.Errorf("starting the first version: %w", err)
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s := eng.Stats()
	cache := o.cacheBytes
	if cache == 0 {
		cache = bpmnlite.DefaultDefinitionCacheBytes
	}
	bound := uint64(cache + memoryHeadroom)
	cacheNote, boundNote := fmt.Sprintf("definition cache %d MiB", cache>>20), fmt.Sprintf("bound %d MiB: the cache + %d MiB", bound>>20, memoryHeadroom>>20)
	if cache < 0 {
		cacheNote, boundNote = "definition cache unbounded", "no bound"
	}
	fmt.Fprintf(w, "Memory after %d deployments of a %d-byte model (SQLite, %s; load %.2f at the start, %.2f at the end; %s):\n",
		o.deployments, len(model), cacheNote, load, loadAverage(), took.Round(time.Second))
	fmt.Fprintf(w, "  heap in use %d MiB (%s), heap objects %d MiB\n", m.HeapInuse>>20, boundNote, m.HeapAlloc>>20)
	rss := procStatusBytes("VmRSS")
	fmt.Fprintf(w, "  RSS %d MiB (bound %d MiB), peak RSS %d MiB; definitions cached %d, %d MiB estimated\n",
		rss>>20, maxRSS>>20, procStatusBytes("VmHWM")>>20, s.DefinitionsCached, s.DefinitionCacheBytes>>20)
	if cache >= 0 && m.HeapInuse > bound {
		return fmt.Errorf("heap in use %d MiB after %d deployments, over the bound of %d MiB", m.HeapInuse>>20, o.deployments, bound>>20)
	}
	if cache >= 0 && rss > maxRSS {
		return fmt.Errorf("RSS %d MiB after %d deployments, over the bound of %d MiB", rss>>20, o.deployments, maxRSS>>20)
	}
	return nil
}

// procStatusBytes returns a size field of /proc/self/status ("VmRSS:
// 123456 kB") in bytes, or 0 where there is none.
func procStatusBytes(field string) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
