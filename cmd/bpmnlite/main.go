// Command bpmnlite deploys and runs BPMN processes on the embedded SQLite
// default (or PostgreSQL) and checks BPMN files.
//
//	bpmnlite run [-db file] [-var k=v ...] file.bpmn   deploy, start, run to the end, print the path taken
//	bpmnlite serve [-db url] [-pool n] [-http addr] [-auth cred] file.bpmn ...   deploy, serve the REST API and run the job executor until interrupted
//	bpmnlite jobs [-db url] [job-id]                   list jobs and say why each is not running
//	bpmnlite validate file.bpmn ...                    report every problem and warning
//	bpmnlite check -db file                            run SQLite's integrity check on a database file
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/runtime"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		// The library's errors may name it already.
		fmt.Fprintln(os.Stderr, "bpmnlite:", strings.TrimPrefix(err.Error(), "bpmnlite: "))
		os.Exit(1)
	}
}

const usage = `usage:
  bpmnlite run [-db path|url] [-var name=value ...] file.bpmn
  bpmnlite serve [-db path|url] [-pool n] [-http 127.0.0.1:8080] [-auth user:password|"Bearer token"]
                 [-log-level debug|info|warn|error] [-log-format text|json] file.bpmn ...
  bpmnlite jobs [-db path|url] [job-id]
  bpmnlite validate file.bpmn ...
  bpmnlite check -db path`

func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "run":
		return runProcess(ctx, args[1:], out)
	case "validate":
		return validate(args[1:], out)
	case "serve":
		return serve(ctx, args[1:], out)
	case "jobs":
		return jobs(ctx, args[1:], out)
	case "check":
		return check(ctx, args[1:], out)
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

type varFlags map[string]any

func (v varFlags) String() string { return "" }

// Set reads name=value; integers, floats and booleans keep their type.
func (v varFlags) Set(s string) error {
	name, val, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=value, got %q", s)
	}
	if i, err := strconv.ParseInt(val, 10, 64); err == nil {
		v[name] = i
	} else if f, err := strconv.ParseFloat(val, 64); err == nil {
		v[name] = f
	} else if b, err := strconv.ParseBool(val); err == nil {
		v[name] = b
	} else {
		v[name] = val
	}
	return nil
}

func runProcess(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	db := fs.String("db", ":memory:", "SQLite file, :memory:, or a postgres:// URL")
	vars := varFlags{}
	fs.Var(vars, "var", "process variable name=value (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New(usage)
	}
	eng, err := bpmnlite.Open(ctx, bpmnlite.Config{Database: *db, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	defer eng.Close()
	registerDemoDelegates(eng, out)

	dep, err := eng.DeployFiles(ctx, "cli", fs.Arg(0))
	if err != nil {
		return err
	}
	if len(dep.Definitions) == 0 {
		return fmt.Errorf("%s: no executable process", fs.Arg(0))
	}
	def := dep.Definitions[0]
	fmt.Fprintf(out, "deployed %s (version %d) on %s\n", def.Key, def.Version, eng.Dialect())
	if _, ok := vars["customer"]; !ok && def.Key == "order" {
		vars["customer"] = map[string]any{"name": "Ada", "status": "VIP"}
		vars["quantity"] = int64(2)
	}
	if _, ok := vars["approver"]; !ok {
		vars["approver"] = "demo"
	}
	pi, err := eng.Start(ctx, bpmnlite.StartRequest{DefinitionID: def.ID, Variables: vars})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "started instance %s\n", pi)
	// Drive the instance: run its jobs and complete its user tasks until it ends.
	for step := 0; step < 100; step++ {
		n, err := eng.ExecuteAvailableJobs(ctx, 1000)
		if err != nil {
			return err
		}
		if n > 0 {
			fmt.Fprintf(out, "ran %d job(s)\n", n)
		}
		tasks, err := eng.Tasks(ctx, bpmnlite.TaskQuery{ProcessInstanceID: pi})
		if err != nil {
			return err
		}
		if len(tasks) == 0 && n == 0 {
			break
		}
		for _, t := range tasks {
			fmt.Fprintf(out, "completing user task %q (%s)\n", t.Name, t.TaskDefinitionKey)
			if err := eng.CompleteTask(ctx, t.ID, nil); err != nil {
				return err
			}
		}
	}
	hist, err := eng.ActivityHistory(ctx, pi)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "path taken:")
	for _, h := range hist {
		state := "running"
		if h.EndTime != nil {
			state = "done"
			if h.Canceled {
				state = "canceled"
			}
		}
		fmt.Fprintf(out, "  %-22s %-18s %s\n", h.ActivityID, h.ActivityType, state)
	}
	insts, err := eng.ProcessInstances(ctx, bpmnlite.ProcessInstanceQuery{ID: pi})
	if err != nil {
		return err
	}
	if len(insts) == 1 {
		fmt.Fprintf(out, "instance %s: %s\n", pi, insts[0].State)
	}
	if vs, err := eng.Variables(ctx, pi); err == nil {
		fmt.Fprintf(out, "variables: %v\n", vs)
	}
	return nil
}

// registerDemoDelegates gives the example processes' delegates a demo body
// that prints what it does.
func registerDemoDelegates(eng *bpmnlite.Engine, out io.Writer) {
	say := func(name string, set map[string]any) bpmnlite.Delegate {
		return bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
			fmt.Fprintf(out, "delegate %s at %s\n", name, ex.ActivityID())
			for k, v := range set {
				if err := ex.SetVariable(k, v); err != nil {
					return err
				}
			}
			return nil
		})
	}
	eng.RegisterDelegate("checkStock", say("checkStock", map[string]any{"stock": int64(10)}))
	eng.RegisterDelegate("archiveInvoice", say("archiveInvoice", map[string]any{"archived": true}))
	eng.RegisterDelegate("bookHotel", say("bookHotel", map[string]any{"hotel": "booked"}))
	eng.RegisterDelegate("bookFlight", say("bookFlight", map[string]any{"flight": "booked"}))
	eng.RegisterDelegate("chargeCard", say("chargeCard", map[string]any{"charged": true}))
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
		defs, err := bpmn.Parse(data, bpmn.ParseOptions{File: f, CheckExpression: runtime.CheckExpression, MaxBytes: runtime.DefaultMaxResourceBytes})
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
