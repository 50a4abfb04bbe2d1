package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// command is one subcommand: what runs it and what -h says of it.
type command struct {
	run  func(ctx context.Context, args []string, out io.Writer) error
	help string
}

// The flags every command on an existing database shares.
const dbHelp = `  -db URL          SQLite file or postgres:// URL (default $BPMNLITE_DB, else bpmnlite.db)
  -schema NAME     PostgreSQL schema of the engine's tables (default $BPMNLITE_SCHEMA)
  --json           print JSON instead of a table`

// commands are the subcommands by name, each with its -h text: usage,
// what it does, flags and an example.
var commands = map[string]command{
	"run":   {runProcess, runHelp},
	"serve": {serve, serveHelp},
	"validate": {func(_ context.Context, args []string, out io.Writer) error { return validate(args, out) }, `usage: bpmnlite validate FILE...
Reports every problem and warning of the BPMN and DMN files, with line:column.
example: bpmnlite validate processes/*.bpmn`},
	"check": {check, `usage: bpmnlite check -db FILE
Runs SQLite's full integrity check on a database file without writing it.
example: bpmnlite check -db orders.db`},
	"jobs": {jobsCmd, `usage: bpmnlite jobs [flags] [JOB-ID]
       bpmnlite jobs explain [flags] JOB-ID
Lists the jobs of an existing database and says why each one is not
running now; explain checks one job against every acquisition condition.
It neither creates nor migrates a database.
flags:
  -instance ID     jobs of one process instance
  -activity ID     jobs at one activity
  -failed          jobs without retries left
` + dbHelp + `
examples:
  bpmnlite jobs -db orders.db -failed
  bpmnlite jobs explain -db orders.db 0190c3f2-...`},
	"deploy": {deployCmd, `usage: bpmnlite deploy [flags] FILE...
Deploys BPMN files into an existing database: a changed process gets a new
version, an unchanged one none. Prints the definitions.
flags:
  -name NAME       the deployment's name (default cli)
` + dbHelp + `
example: bpmnlite deploy -db orders.db processes/order.bpmn`},
	"start": {startCmd, `usage: bpmnlite start [flags] KEY
Starts an instance of the latest version of process KEY and runs it to its
first wait states. Prints the instance id.
flags:
  -business-key K  the instance's business key
  -var name=value  a variable (JSON when it parses as JSON, else a string);
                   repeatable
` + dbHelp + `
example: bpmnlite start -db orders.db -var quantity=2 order`},
	"instances": {instancesCmd, `usage: bpmnlite instances [flags]
Lists process instances, running and ended, from history.
flags:
  -key KEY         instances of one process
  -state STATE     active, completed, externally_terminated or
                   internally_terminated
` + dbHelp + `
example: bpmnlite instances -db orders.db -key order -state active`},
	"tasks": {tasksCmd, `usage: bpmnlite tasks [flags]
Lists open user tasks.
flags:
  -instance ID     tasks of one process instance
  -assignee USER   tasks assigned to USER
  -group GROUP     tasks GROUP is a candidate for
` + dbHelp + `
example: bpmnlite tasks -db orders.db -group accounting`},
	"complete": {completeCmd, `usage: bpmnlite complete [flags] TASK-ID
Completes a user task and runs its instance to the next wait states.
flags:
  -var name=value  a variable set on completion; repeatable
` + dbHelp + `
example: bpmnlite complete -db orders.db -var approved=true 0190c3f2-...`},
	"correlate": {correlateCmd, `usage: bpmnlite correlate [flags] MESSAGE
Delivers a message to the one instance (or, with -all, every instance)
waiting for it, or starts a process by a message start event. Prints the
instances that received it.
flags:
  -business-key K  only instances with this business key
  -instance ID     only this process instance
  -all             deliver to every match, not exactly one
  -var name=value  a variable; repeatable
` + dbHelp + `
example: bpmnlite correlate -db orders.db -business-key order-17 paymentReceived`},
	"incidents": {incidentsCmd, `usage: bpmnlite incidents [flags]
Lists open incidents: failed jobs and external tasks without retries left.
flags:
  -instance ID     incidents of one process instance
` + dbHelp + `
example: bpmnlite incidents -db orders.db`},
	"retry": {retryCmd, `usage: bpmnlite retry [flags] JOB-ID... | --all-failed
Gives failed jobs retries again; their incidents are resolved when they
succeed.
flags:
  -retries N       retries to give (default 1)
  -all-failed      every job without retries left
` + dbHelp + `
example: bpmnlite retry -db orders.db --all-failed`},
	"migrate": {migrateCmd, migrateHelp},
	"modify":  {modifyCmd, modifyHelp},
	"version": {func(_ context.Context, _ []string, out io.Writer) error {
		fmt.Fprintln(out, versionText())
		return nil
	}, `usage: bpmnlite version
Prints the module version and the commit the binary was built from.`},
}

// helpRequested reports whether args ask for help (-h, -help, --help).
func helpRequested(args []string) bool {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			return true
		}
	}
	return false
}

// versionText is the module version and the commit of this binary, from
// its build information: "(devel)" for a build from a checkout, whose
// commit is then shown, with "+changes" when the tree had uncommitted ones.
func versionText() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "bpmnlite (no build information)"
	}
	setting := map[string]string{}
	for _, s := range info.Settings {
		setting[s.Key] = s.Value
	}
	var parts []string
	if rev := setting["vcs.revision"]; rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if setting["vcs.modified"] == "true" {
			rev += "+changes"
		}
		parts = append(parts, "commit "+rev)
	}
	if t := setting["vcs.time"]; t != "" {
		parts = append(parts, t)
	}
	parts = append(parts, info.GoVersion)
	return fmt.Sprintf("bpmnlite %s (%s)", info.Main.Version, strings.Join(parts, ", "))
}
