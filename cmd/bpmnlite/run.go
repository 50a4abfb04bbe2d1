package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/bpmnlite/bpmnlite"
	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/internal/enginetest"
	"github.com/bpmnlite/bpmnlite/runtime"
)

const runHelp = `usage: bpmnlite run [flags] FILE...

Deploys the files, starts the first file's process (or -key) and drives it
to its end: due jobs run, user tasks are completed, and when nothing else is
left the clock moves to the next timer (a virtual clock: a P7D timer takes
no time). Prints what happens, the path taken with times, jobs, incidents
and the variables. Flags may come before or after the files.

flags:
  -db URL          SQLite file, :memory: (default) or postgres:// URL
  -key KEY         process to start (default: the first file's)
  -var name=value  a variable; the value is JSON when it parses as JSON
                   (-var 'customer={"status":"VIP"}'), else a string;
                   name.field=value sets a field of an object variable
  -stub NAME       run delegate NAME as a no-op (repeatable)
  -stub-all        run every delegate the processes name as a no-op
  -steps N         stop after N steps (default 1000)

examples:
  bpmnlite run examples/processes/escalation.bpmn
  bpmnlite run order.bpmn -var quantity=2 -var customer.status=VIP -stub-all`

type varFlags map[string]any

func (v varFlags) String() string { return "" }

// Set reads name=value: the value as JSON when it is JSON, else a string; a
// dotted name sets a field inside an object variable.
func (v varFlags) Set(s string) error {
	name, raw, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=value, got %q", s)
	}
	var val any = raw
	var parsed any
	if err := json.Unmarshal([]byte(raw), &parsed); err == nil {
		val = parsed
		if f, ok := parsed.(float64); ok && f == float64(int64(f)) {
			val = int64(f)
		}
	}
	path := strings.Split(name, ".")
	m := map[string]any(v)
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = val
	return nil
}

type stubFlags []string

func (s *stubFlags) String() string     { return strings.Join(*s, ",") }
func (s *stubFlags) Set(v string) error { *s = append(*s, v); return nil }

// parseAnywhere parses flags that may come before, between or after the
// positional arguments, which it returns.
// parseFlags parses args with fs; an error says where the flags are listed.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%s: %w (bpmnlite %s -h lists its flags)", fs.Name(), err, fs.Name())
	}
	return nil
}

func parseAnywhere(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func runProcess(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	// Only -db and -schema name a database: run's own default is a
	// private in-memory one, whatever BPMNLITE_DB says.
	db := dbFlags{db: fs.String("db", ":memory:", ""), schema: fs.String("schema", "", "")}
	key := fs.String("key", "", "")
	steps := fs.Int("steps", 1000, "")
	stubAll := fs.Bool("stub-all", false, "")
	vars := varFlags{}
	var stubs stubFlags
	fs.Var(vars, "var", "")
	fs.Var(&stubs, "stub", "")
	files, err := parseAnywhere(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(out, runHelp)
		return nil
	}
	if err != nil {
		return fmt.Errorf("%v\n%s", err, runHelp)
	}
	if len(files) == 0 {
		return errors.New("run: no BPMN file given\n" + runHelp)
	}
	clock := enginetest.ClockAt(time.Now().UTC().Truncate(time.Second))
	cfg := db.config()
	cfg.Clock, cfg.Logger = clock.Now, slog.New(slog.DiscardHandler)
	eng, err := bpmnlite.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer eng.Close()
	registerDemoDelegates(eng, clock, out)
	if *stubAll {
		names, err := delegatesOf(files)
		if err != nil {
			return err
		}
		stubs = append(stubs, names...)
	}
	for _, name := range stubs {
		name := name
		eng.RegisterDelegate(name, bpmnlite.DelegateFunc(func(_ context.Context, ex *bpmnlite.Execution) error {
			fmt.Fprintf(out, "%s  stub %s at %s\n", clock.Now().Format(time.RFC3339), name, ex.ActivityID())
			return nil
		}))
	}
	dep, err := eng.DeployFiles(ctx, "cli", files...)
	if err != nil {
		return err
	}
	if len(dep.Definitions) == 0 {
		return fmt.Errorf("%s: no executable process", files[0])
	}
	start := dep.Definitions[0].Key
	if *key != "" {
		start = *key
	}
	at := func() string { return clock.Now().Format(time.RFC3339) }
	// Printed first: the delegates of the instance's first steps print as
	// the start runs them.
	fmt.Fprintf(out, "%s  starting %s (%s)\n", at(), start, eng.Dialect())
	pi, err := eng.Start(ctx, bpmnlite.StartRequest{Key: start, Variables: vars})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s  started instance %s\n", at(), pi)
	if err := drive(ctx, eng, clock, pi, *steps, out); err != nil {
		return err
	}
	return report(ctx, eng, pi, out)
}

// drive runs due jobs and completes user tasks; with nothing else left it
// moves the clock to the next timer.
func drive(ctx context.Context, eng *bpmnlite.Engine, clock *enginetest.Clock, pi string, steps int, out io.Writer) error {
	at := func() string { return clock.Now().Format(time.RFC3339) }
	for step := 0; step < steps; step++ {
		jobs, err := eng.Jobs(ctx, bpmnlite.JobQuery{RootProcessInstanceID: pi, Executable: true})
		if err != nil {
			return err
		}
		if len(jobs) > 0 {
			j := jobs[0]
			if err := eng.ExecuteJob(ctx, j.ID); err != nil {
				fmt.Fprintf(out, "%s  job %s at %s failed: %v\n", at(), j.HandlerType, j.ActivityID, err)
			} else {
				fmt.Fprintf(out, "%s  ran job %s at %s\n", at(), j.HandlerType, j.ActivityID)
			}
			continue
		}
		tasks, err := eng.Tasks(ctx, bpmnlite.TaskQuery{ProcessInstanceID: pi})
		if err != nil {
			return err
		}
		if len(tasks) > 0 {
			t := tasks[0]
			fmt.Fprintf(out, "%s  completing user task %q (%s)\n", at(), t.Name, t.TaskDefinitionKey)
			if err := eng.CompleteTask(ctx, t.ID, nil); err != nil {
				return err
			}
			continue
		}
		waiting, err := eng.Jobs(ctx, bpmnlite.JobQuery{RootProcessInstanceID: pi, WithRetriesLeft: true})
		if err != nil {
			return err
		}
		var next *bpmnlite.Job
		for _, j := range waiting {
			if j.DueDate != nil && j.DueDate.After(clock.Now()) && (next == nil || j.DueDate.Before(*next.DueDate)) {
				next = j
			}
		}
		if next == nil {
			return nil // ended, or waiting for something only the outside can give
		}
		fmt.Fprintf(out, "%s  nothing else to do: the clock moves by %s to the %s job at %s\n",
			at(), next.DueDate.Sub(clock.Now()).Round(time.Second), next.Type, next.ActivityID)
		clock.Set(*next.DueDate)
	}
	fmt.Fprintf(out, "stopped after %d steps (-steps)\n", steps)
	return nil
}

// report prints the path taken with times, jobs, incidents and variables.
func report(ctx context.Context, eng *bpmnlite.Engine, pi string, out io.Writer) error {
	hist, err := eng.ActivityHistory(ctx, pi)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "path taken:")
	for _, h := range hist {
		state := "running"
		if h.EndTime != nil {
			state = "done " + h.EndTime.Format(time.RFC3339)
			if h.Canceled {
				state = "canceled " + h.EndTime.Format(time.RFC3339)
			}
		}
		fmt.Fprintf(out, "  %-22s %-18s %s → %s\n", h.ActivityID, h.ActivityType, h.StartTime.Format(time.RFC3339), state)
	}
	jobs, err := eng.Jobs(ctx, bpmnlite.JobQuery{RootProcessInstanceID: pi})
	if err != nil {
		return err
	}
	for _, j := range jobs {
		fmt.Fprintf(out, "job %s at %s: priority %d, retries %d", j.Type, j.ActivityID, j.Priority, j.Retries)
		if j.ExceptionMessage != "" {
			fmt.Fprintf(out, ", last failure: %s", j.ExceptionMessage)
		}
		fmt.Fprintln(out)
	}
	incidents, err := eng.Incidents(ctx, bpmnlite.IncidentQuery{ProcessInstanceID: pi})
	if err != nil {
		return err
	}
	for _, in := range incidents {
		fmt.Fprintf(out, "incident %s at %s: %s\n", in.Type, in.ActivityID, in.Message)
	}
	insts, err := eng.HistoricProcessInstances(ctx, bpmnlite.HistoricProcessInstanceQuery{ID: pi})
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

// delegatesOf lists the delegate classes the files' processes name.
func delegatesOf(files []string) ([]string, error) {
	seen := map[string]bool{}
	for _, f := range files {
		if !runtime.IsProcessModel(f) {
			continue // decisions, forms: no delegates
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		defs, err := bpmn.Parse(data, bpmn.ParseOptions{File: f, CheckExpression: runtime.CheckExpressionDefaults})
		if err != nil {
			return nil, err
		}
		for _, p := range defs.Processes {
			for _, a := range p.AllActivities() {
				if a.Class != "" {
					seen[a.Class] = true
				}
				for _, l := range a.Listeners {
					if l.Class != "" {
						seen[l.Class] = true
					}
				}
			}
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// registerDemoDelegates gives the example processes' delegates a demo body
// that prints what it does.
func registerDemoDelegates(eng *bpmnlite.Engine, clock *enginetest.Clock, out io.Writer) {
	say := func(name string, set map[string]any) bpmnlite.Delegate {
		return bpmnlite.DelegateFunc(func(ctx context.Context, ex *bpmnlite.Execution) error {
			fmt.Fprintf(out, "%s  demo delegate %s at %s sets %v\n", clock.Now().Format(time.RFC3339), name, ex.ActivityID(), set)
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
