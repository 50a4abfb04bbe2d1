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
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bpmnlite/bpmnlite"
)

// The commands that work on an existing database: deploy, start,
// instances, tasks, complete, correlate, incidents, retry, jobs and
// jobs explain. They share -db (default $BPMNLITE_DB, else bpmnlite.db)
// and --json; a missing SQLite file is an error, and the reading commands
// never migrate.

// dbFlags are the database flags every command shares: -db (default
// $BPMNLITE_DB, else def) and -schema (default $BPMNLITE_SCHEMA), the
// PostgreSQL schema of the engine's tables.
type dbFlags struct{ db, schema *string }

func newDBFlags(fs *flag.FlagSet, def string) dbFlags {
	if env := os.Getenv("BPMNLITE_DB"); env != "" {
		def = env
	}
	return dbFlags{
		db:     fs.String("db", def, "SQLite file or postgres:// URL (default $BPMNLITE_DB)"),
		schema: fs.String("schema", os.Getenv("BPMNLITE_SCHEMA"), "PostgreSQL schema of the engine's tables (default $BPMNLITE_SCHEMA, else the search_path)"),
	}
}

// config is the engine configuration the flags name.
func (d dbFlags) config() bpmnlite.Config {
	return bpmnlite.Config{Database: bpmnlite.DatabaseConfig{URL: *d.db, Schema: *d.schema}}
}

// cli is one command's flags and engine.
type cli struct {
	fs *flag.FlagSet
	dbFlags
	asJSON  *bool
	vars    varFlags
	out     io.Writer
	eng     *bpmnlite.Engine
	args    []string
	readAll bool // a reading command: no migration
}

func newCLI(name string, out io.Writer, reading bool) *cli {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c := &cli{fs: fs, dbFlags: newDBFlags(fs, "bpmnlite.db"), out: out, vars: varFlags{}, readAll: reading}
	c.asJSON = fs.Bool("json", false, "")
	return c
}

// open parses args and opens the existing database.
func (c *cli) open(ctx context.Context, args []string) error {
	rest, err := parseAnywhere(c.fs, args)
	if err != nil {
		return err
	}
	c.args = rest
	if !strings.Contains(*c.db, "://") && *c.db != ":memory:" {
		if _, err := os.Stat(*c.db); err != nil {
			return fmt.Errorf("database %s: %w (bpmnlite serve or run creates one)", *c.db, err)
		}
	}
	cfg := c.config()
	cfg.Logger, cfg.Database.OpenExisting = slog.New(slog.DiscardHandler), c.readAll
	c.eng, err = bpmnlite.Open(ctx, cfg)
	return err
}

// print writes v as JSON with --json, else the table rows.
// printList prints v as JSON, or list as a table of header's columns, a
// row per element.
func printList[T any](c *cli, v any, list []T, header string, row func(T) []string) error {
	rows := make([][]string, len(list))
	for i, x := range list {
		rows[i] = row(x)
	}
	return c.print(v, header, rows)
}

func (c *cli) print(v any, header string, rows [][]string) error {
	if *c.asJSON {
		enc := json.NewEncoder(c.out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	if len(rows) == 0 {
		fmt.Fprintln(c.out, "none")
		return nil
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

func (c *cli) close() {
	if c.eng != nil {
		c.eng.Close()
	}
}

func deployCmd(ctx context.Context, args []string, out io.Writer) error {
	c := newCLI("deploy", out, false)
	name := c.fs.String("name", "cli", "")
	if err := c.open(ctx, args); err != nil {
		return err
	}
	defer c.close()
	if len(c.args) == 0 {
		return errors.New("deploy: no BPMN file given")
	}
	d, err := c.eng.DeployFiles(ctx, *name, c.args...)
	if err != nil {
		return err
	}
	return printList(c, d, d.Definitions, "KEY\tVERSION\tID\tUNCHANGED", func(pd *bpmnlite.ProcessDefinition) []string {
		return []string{pd.Key, fmt.Sprint(pd.Version), pd.ID, fmt.Sprint(d.Unchanged)}
	})
}

func startCmd(ctx context.Context, args []string, out io.Writer) error {
	c := newCLI("start", out, false)
	bk := c.fs.String("business-key", "", "")
	c.fs.Var(c.vars, "var", "")
	if err := c.open(ctx, args); err != nil {
		return err
	}
	defer c.close()
	if len(c.args) != 1 {
		return errors.New("start: give one process key")
	}
	id, err := c.eng.Start(ctx, bpmnlite.StartRequest{Key: c.args[0], BusinessKey: *bk, Variables: c.vars})
	if err != nil {
		return err
	}
	return c.print(map[string]string{"id": id}, "INSTANCE", [][]string{{id}})
}

func instancesCmd(ctx context.Context, args []string, out io.Writer) error {
	c := newCLI("instances", out, true)
	key := c.fs.String("key", "", "")
	state := c.fs.String("state", "", "")
	if err := c.open(ctx, args); err != nil {
		return err
	}
	defer c.close()
	list, err := c.eng.HistoricProcessInstances(ctx, bpmnlite.HistoricProcessInstanceQuery{ProcessDefinitionKey: *key, State: strings.ToUpper(*state)})
	if err != nil {
		return err
	}
	return printList(c, list, list, "ID\tKEY\tBUSINESS KEY\tSTATE\tSTARTED", func(p *bpmnlite.HistoricProcessInstance) []string {
		return []string{p.ID, p.ProcessDefinitionKey, p.BusinessKey, p.State, p.StartTime.Format(time.RFC3339)}
	})
}

func tasksCmd(ctx context.Context, args []string, out io.Writer) error {
	c := newCLI("tasks", out, true)
	instance := c.fs.String("instance", "", "")
	assignee := c.fs.String("assignee", "", "")
	group := c.fs.String("group", "", "")
	if err := c.open(ctx, args); err != nil {
		return err
	}
	defer c.close()
	list, err := c.eng.Tasks(ctx, bpmnlite.TaskQuery{ProcessInstanceID: *instance, Assignee: *assignee, CandidateGroup: *group})
	if err != nil {
		return err
	}
	return printList(c, list, list, "ID\tACTIVITY\tNAME\tASSIGNEE\tGROUPS\tINSTANCE", func(t *bpmnlite.Task) []string {
		return []string{t.ID, t.TaskDefinitionKey, t.Name, t.Assignee, t.CandidateGroups, t.ProcessInstanceID}
	})
}

func completeCmd(ctx context.Context, args []string, out io.Writer) error {
	c := newCLI("complete", out, false)
	c.fs.Var(c.vars, "var", "")
	if err := c.open(ctx, args); err != nil {
		return err
	}
	defer c.close()
	if len(c.args) != 1 {
		return errors.New("complete: give one task id")
	}
	if err := c.eng.CompleteTask(ctx, c.args[0], c.vars); err != nil {
		return err
	}
	return c.print(map[string]string{"completed": c.args[0]}, "COMPLETED", [][]string{{c.args[0]}})
}

func correlateCmd(ctx context.Context, args []string, out io.Writer) error {
	c := newCLI("correlate", out, false)
	bk := c.fs.String("business-key", "", "")
	instance := c.fs.String("instance", "", "")
	all := c.fs.Bool("all", false, "")
	c.fs.Var(c.vars, "var", "")
	if err := c.open(ctx, args); err != nil {
		return err
	}
	defer c.close()
	if len(c.args) != 1 {
		return errors.New("correlate: give one message name")
	}
	ids, err := c.eng.Correlate(ctx, bpmnlite.CorrelateRequest{MessageName: c.args[0], BusinessKey: *bk, ProcessInstanceID: *instance, All: *all, Variables: c.vars})
	if err != nil {
		return err
	}
	return printList(c, ids, ids, "INSTANCE", func(id string) []string { return []string{id} })
}

func incidentsCmd(ctx context.Context, args []string, out io.Writer) error {
	c := newCLI("incidents", out, true)
	instance := c.fs.String("instance", "", "")
	if err := c.open(ctx, args); err != nil {
		return err
	}
	defer c.close()
	list, err := c.eng.Incidents(ctx, bpmnlite.IncidentQuery{ProcessInstanceID: *instance})
	if err != nil {
		return err
	}
	return printList(c, list, list, "ID\tTYPE\tACTIVITY\tINSTANCE\tJOB OR TASK\tMESSAGE", func(in *bpmnlite.Incident) []string {
		return []string{in.ID, in.Type, in.ActivityID, in.ProcessInstanceID, in.Configuration, in.Message}
	})
}

// retryCmd gives failed jobs (no retries left) a retry: one by id, or
// every one with --all-failed; their incidents are resolved.
func retryCmd(ctx context.Context, args []string, out io.Writer) error {
	c := newCLI("retry", out, false)
	allFailed := c.fs.Bool("all-failed", false, "")
	retries := c.fs.Int("retries", 1, "")
	if err := c.open(ctx, args); err != nil {
		return err
	}
	defer c.close()
	ids := c.args
	if *allFailed {
		jobs, err := c.eng.Jobs(ctx, bpmnlite.JobQuery{NoRetriesLeft: true})
		if err != nil {
			return err
		}
		for _, j := range jobs {
			ids = append(ids, j.ID)
		}
	}
	if len(ids) == 0 && !*allFailed {
		return errors.New("retry: give a job id or --all-failed")
	}
	var rows [][]string
	for _, id := range ids {
		if err := c.eng.SetJobRetries(ctx, id, *retries); err != nil {
			return err
		}
		rows = append(rows, []string{id, fmt.Sprint(*retries)})
	}
	return c.print(ids, "JOB\tRETRIES", rows)
}

// jobsCmd lists jobs with the reason each is not running now, or, as
// "jobs explain ID", checks one job against every acquisition condition.
func jobsCmd(ctx context.Context, args []string, out io.Writer) error {
	if len(args) > 0 && args[0] == "explain" {
		return explainCmd(ctx, args[1:], out)
	}
	c := newCLI("jobs", out, true)
	instance := c.fs.String("instance", "", "")
	activity := c.fs.String("activity", "", "")
	failed := c.fs.Bool("failed", false, "")
	if err := c.open(ctx, args); err != nil {
		return err
	}
	defer c.close()
	q := bpmnlite.JobQuery{ProcessInstanceID: *instance, ActivityID: *activity, NoRetriesLeft: *failed}
	if len(c.args) > 0 {
		q.ID = c.args[0]
	}
	list, err := c.eng.Jobs(ctx, q)
	if err != nil {
		return err
	}
	now := c.eng.Now()
	return printList(c, list, list, "ID\tKIND\tACTIVITY\tINSTANCE\tPRIORITY\tRETRIES\tSTATE", func(j *bpmnlite.Job) []string {
		return []string{j.ID, j.HandlerType, j.ActivityID, j.ProcessInstanceID, fmt.Sprint(j.Priority), fmt.Sprint(j.Retries), whyNotRunning(j, now)}
	})
}

func whyNotRunning(j *bpmnlite.Job, now time.Time) string {
	switch {
	case j.Retries <= 0:
		return "no retries left (an incident is open): fix the cause, then set retries"
	case j.Suspension != 1:
		return "suspended (the job, its job definition, process instance or definition): activate it"
	case j.DueDate != nil && j.DueDate.After(now):
		return fmt.Sprintf("not due until %s (in %s)", j.DueDate.Format(time.RFC3339), j.DueDate.Sub(now).Round(time.Second))
	case j.LockOwner != "" && j.LockExpiration != nil && j.LockExpiration.After(now):
		return fmt.Sprintf("locked by %s until %s: running, or queued on that node", j.LockOwner, j.LockExpiration.Format(time.RFC3339))
	case j.LockOwner != "":
		return fmt.Sprintf("lock of %s expired at %s without a result: the next acquisition takes it over (counts as a failed attempt)", j.LockOwner, j.LockExpiration.Format(time.RFC3339))
	}
	return "acquirable now: if it stays here, no job executor serves this database (or it is deployment-aware and this deployment is not registered, or its priority is outside the executors' range)"
}

// explainCmd checks a job against each condition of acquisition and names
// the ones that block it, with what to do.
func explainCmd(ctx context.Context, args []string, out io.Writer) error {
	c := newCLI("jobs explain", out, true)
	if err := c.open(ctx, args); err != nil {
		return err
	}
	defer c.close()
	if len(c.args) != 1 {
		return errors.New("jobs explain: give one job id")
	}
	ex, err := c.eng.ExplainJob(ctx, c.args[0])
	if err != nil {
		return err
	}
	var rows [][]string
	blocked := false
	for _, e := range ex {
		verdict := "ok"
		if e.Blocks {
			verdict, blocked = "BLOCKS", true
		}
		rows = append(rows, []string{e.Condition, verdict, e.Detail})
	}
	if !blocked {
		rows = append(rows, []string{"result", "acquirable", "a running job executor takes it at its next acquisition"})
	}
	return c.print(ex, "CONDITION\tVERDICT\tDETAIL", rows)
}
