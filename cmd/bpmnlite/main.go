package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/dmn"
	"github.com/bpmnlite/bpmnlite/runtime"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		// The library's errors may name it already.
		fmt.Fprintln(os.Stderr, "bpmnlite:", strings.TrimPrefix(err.Error(), "bpmnlite: "))
		os.Exit(1)
	}
}

const usage = `usage (bpmnlite COMMAND -h for a command's flags and examples):
  bpmnlite run [-db path|url] [-var name=value ...] [-stub name | -stub-all] file.bpmn ...
  bpmnlite serve [-db path|url] [-pool n] [-http 127.0.0.1:8080] [-auth user:password|"Bearer token"]
                 [-log-level debug|info|warn|error] [-log-format text|json] file.bpmn ...
  bpmnlite deploy|start KEY|instances|tasks|complete TASK|correlate MESSAGE|incidents|retry JOB|--all-failed
                 [-db path|url (default $BPMNLITE_DB)] [-schema name (default $BPMNLITE_SCHEMA)]
                 [-var name=value] [--json]   on an existing database
  bpmnlite jobs [-db path|url] [-instance ID] [-activity ID] [-failed] [job-id] [--json]
  bpmnlite jobs explain JOB-ID    check a job against every acquisition condition
  bpmnlite migrate --from KEY:VERSION --to KEY:VERSION [--dry-run]   running instances to another version
  bpmnlite modify [-cancel A] [-start-before A] [-start-after A] [-var k=v] INSTANCE
  bpmnlite validate file.bpmn ...
  bpmnlite check -db path`

func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 {
			if cmd, ok := commands[args[1]]; ok {
				fmt.Fprintln(out, cmd.help)
				return nil
			}
		}
		fmt.Fprintln(out, usage)
		return nil
	case "-version", "--version":
		args[0] = "version"
	}
	cmd, ok := commands[args[0]]
	if !ok {
		return fmt.Errorf("unknown command %q: bpmnlite -h lists the commands", args[0])
	}
	if helpRequested(args[1:]) {
		fmt.Fprintln(out, cmd.help)
		return nil
	}
	return cmd.run(ctx, args[1:], out)
}

// check runs SQLite's full integrity check on a database file.
func check(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	db := fs.String("db", "bpmnlite.db", "SQLite database file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := bpmnlite.CheckIntegrity(ctx, *db); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: ok\n", *db)
	return nil
}

// validateDecisions reports the problems of DMN file f, or its decisions;
// it returns 1 when the file has problems.
func validateDecisions(f string, data []byte, out io.Writer) int {
	defs, err := dmn.Parse(data, f)
	if err != nil {
		fmt.Fprintln(out, err)
		return 1
	}
	for _, d := range defs.Decisions {
		kind := "literal expression"
		if d.Table != nil {
			kind = fmt.Sprintf("decision table, %s, %d rules", d.Table.HitPolicy, len(d.Table.Rules))
		}
		fmt.Fprintf(out, "%s: decision %q ok (%s)\n", f, d.ID, kind)
	}
	return 0
}

func validate(files []string, out io.Writer) error {
	if len(files) == 0 {
		return errors.New(usage)
	}
	failed := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if runtime.IsDecisionModel(f) {
			failed += validateDecisions(f, data, out)
			continue
		}
		defs, err := bpmn.Parse(data, bpmn.ParseOptions{File: f, CheckExpression: runtime.CheckExpressionDefaults, MaxBytes: config.DefaultMaxResourceBytes})
		if err != nil {
			failed++
			fmt.Fprintln(out, err)
			continue
		}
		for _, w := range defs.Warnings {
			fmt.Fprintln(out, "warning:", w)
		}
		for _, s := range defs.Skipped {
			fmt.Fprintf(out, "%s: process %q skipped: %s\n", f, s.ID, s.Reason)
		}
		for _, p := range defs.Processes {
			for _, a := range p.AllActivities() {
				if a.Class != "" {
					fmt.Fprintf(out, "%s:%d:%d: note: %s '%s' calls delegate %q: the application must register it\n", f, a.Pos.Line, a.Pos.Column, a.Kind, a.ID, a.Class)
				}
			}
			fmt.Fprintf(out, "%s: process %q ok (%d activities)\n", f, p.ID, len(p.AllActivities()))
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d files have problems", failed, len(files))
	}
	return nil
}
