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
  bpmnlite validate file.bpmn ...
  bpmnlite check -db path`

// commandHelp is each command's -h text (run has its own, runHelp).
var commandHelp = map[string]string{
	"serve": `usage: bpmnlite serve [flags] [FILE...]
Deploys the files (unchanged ones make no new version), serves the REST API
under /engine-rest and /metrics, and runs the job executor until SIGINT or
SIGTERM.
flags: -db URL (or BPMNLITE_DB), -schema NAME (or BPMNLITE_SCHEMA), -pool N,
       -http ADDR (default 127.0.0.1:8080; "" for none),
       -auth user:password | "Bearer TOKEN" (or BPMNLITE_AUTH; required off
       loopback; neither user nor password empty, a token of at least 16
       characters), -log-level debug|info|warn|error, -log-format text|json,
       -max-deployment-bytes N (16 MiB; 400 beyond), -deployments-per-minute N
       (60, 10 at once; 429 beyond), -concurrent-deployments N (2; more wait),
       -definition-cache-bytes N (128 MiB of parsed definitions kept),
       -max-variable-bytes N (4 MiB stored per variable; 400 beyond)
example: BPMNLITE_AUTH=demo:secret bpmnlite serve -db orders.db -http :8080 processes/*.bpmn`,
	"jobs": `usage: bpmnlite jobs [-db URL] [JOB-ID]
Lists the jobs of an existing database and says why each one is not
running now. It neither creates nor migrates a database.
example: bpmnlite jobs -db orders.db`,
	"validate": `usage: bpmnlite validate FILE...
Reports every problem and warning of the BPMN files, with line:column.
example: bpmnlite validate processes/*.bpmn`,
	"check": `usage: bpmnlite check -db FILE
Runs SQLite's full integrity check on a database file without writing it.`,
}

// commands are the subcommands by name.
var commands = map[string]func(ctx context.Context, args []string, out io.Writer) error{
	"run":       runProcess,
	"validate":  func(_ context.Context, args []string, out io.Writer) error { return validate(args, out) },
	"serve":     serve,
	"jobs":      jobsCmd,
	"deploy":    deployCmd,
	"start":     startCmd,
	"instances": instancesCmd,
	"tasks":     tasksCmd,
	"complete":  completeCmd,
	"correlate": correlateCmd,
	"incidents": incidentsCmd,
	"retry":     retryCmd,
	"check":     check,
}

func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			return true
		}
	}
	return false
}

func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(out, usage)
		return nil
	}
	if help, ok := commandHelp[args[0]]; ok && wantsHelp(args[1:]) {
		fmt.Fprintln(out, help)
		return nil
	}
	if cmd, ok := commands[args[0]]; ok {
		return cmd(ctx, args[1:], out)
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}

// check runs SQLite's full integrity check on a database file.
func check(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	db := fs.String("db", "bpmnlite.db", "SQLite database file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := bpmnlite.CheckIntegrity(ctx, *db); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: ok\n", *db)
	return nil
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
