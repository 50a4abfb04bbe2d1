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

// explanation is one acquisition condition and how the job stands with it.
type explanation struct {
	Condition string `json:"condition"`
	Blocks    bool   `json:"blocks"`
	Detail    string `json:"detail"`
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
	list, err := c.eng.Jobs(ctx, bpmnlite.JobQuery{ID: c.args[0]})
	if err != nil {
		return err
	}
	if len(list) == 0 {
		return fmt.Errorf("job %s: %w", c.args[0], bpmnlite.ErrNotFound)
	}
	ex, err := explain(ctx, c.eng, list[0])
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

// explain checks j against the conditions the acquisition statement tests.
func explain(ctx context.Context, eng *bpmnlite.Engine, j *bpmnlite.Job) ([]explanation, error) {
	now := eng.Now()
	var out []explanation
	add := func(cond string, blocks bool, detail string) { out = append(out, explanation{cond, blocks, detail}) }

	if j.DueDate != nil && j.DueDate.After(now) {
		add("due", true, fmt.Sprintf("not due until %s (in %s): a timer or a retry's delay", j.DueDate.Format(time.RFC3339), j.DueDate.Sub(now).Round(time.Second)))
	} else {
		add("due", false, "due now")
	}

	executors, err := eng.JobExecutors(ctx)
	if err != nil {
		return nil, err
	}
	blocks, detail := lockVerdict(j, executors, now)
	add("lock", blocks, detail)

	if j.Retries <= 0 {
		detail := "no retries left: fix the cause, then bpmnlite retry " + j.ID
		if incidents, err := eng.Incidents(ctx, bpmnlite.IncidentQuery{Configuration: j.ID}); err == nil && len(incidents) > 0 {
			detail += "; incident: " + incidents[0].Message
		}
		add("retries", true, detail)
	} else {
		add("retries", false, fmt.Sprintf("%d left", j.Retries))
	}

	var suspended []string
	if j.Suspension != 1 {
		suspended = append(suspended, "the job")
	}
	if j.ProcessInstanceID != "" {
		if xs, err := eng.Executions(ctx, bpmnlite.ExecutionQuery{ID: j.ProcessInstanceID}); err == nil && len(xs) == 1 && xs[0].Suspension != 1 {
			suspended = append(suspended, "process instance "+j.ProcessInstanceID)
		}
	}
	if j.ProcessDefinitionID != "" { // a batch's jobs and the history cleanup have none
		if ds, err := eng.ProcessDefinitions(ctx, bpmnlite.DefinitionQuery{ID: j.ProcessDefinitionID}); err == nil && len(ds) == 1 && ds[0].Suspension != 1 {
			suspended = append(suspended, "process definition "+j.ProcessDefinitionID)
		}
	}
	if j.JobDefinitionID != "" {
		if jds, err := eng.JobDefinitions(ctx, j.ProcessDefinitionID, j.ActivityID); err == nil {
			for _, jd := range jds {
				if jd.ID == j.JobDefinitionID && jd.Suspension != 1 {
					suspended = append(suspended, "job definition "+jd.ID)
				}
			}
		}
	}
	if len(suspended) > 0 {
		add("suspension", true, "suspended: "+strings.Join(suspended, ", ")+": activate it")
	} else {
		add("suspension", false, "active")
	}

	if j.Exclusive && j.ProcessInstanceID != "" {
		others, err := eng.Jobs(ctx, bpmnlite.JobQuery{ProcessInstanceID: j.ProcessInstanceID, Locked: true})
		if err != nil {
			return nil, err
		}
		var busy *bpmnlite.Job
		for _, o := range others {
			if o.ID != j.ID && o.Exclusive {
				busy = o
				break
			}
		}
		if busy != nil {
			add("exclusive", true, fmt.Sprintf("exclusive job %s at %s of the same instance is in progress (locked by %s until %s): this one waits for it",
				busy.ID, busy.ActivityID, busy.LockOwner, busy.LockExpiration.Format(time.RFC3339)))
		} else {
			add("exclusive", false, "no other exclusive job of the instance in progress")
		}
	} else {
		add("exclusive", false, "not exclusive")
	}

	blocks, detail = servedBy(j, executors)
	add("executors", blocks, detail)
	return out, nil
}

// lockVerdict tells whether j's lock holds at now and, from the executors'
// reports, whether its owner is alive to extend it.
func lockVerdict(j *bpmnlite.Job, executors []*bpmnlite.JobExecutorInfo, now time.Time) (bool, string) {
	if j.LockOwner == "" || j.LockExpiration == nil {
		return false, "not locked"
	}
	until := j.LockExpiration.Format(time.RFC3339)
	if !j.LockExpiration.After(now) {
		return false, fmt.Sprintf("the lock of %s expired at %s: the next acquisition takes it over", j.LockOwner, until)
	}
	for _, x := range executors {
		if x.ID == j.LockOwner {
			return true, fmt.Sprintf("locked by %s until %s: running or queued there; that executor is alive (reported %s ago) and extends the lock while the job runs",
				j.LockOwner, until, now.Sub(x.Heartbeat).Round(time.Second))
		}
	}
	return true, fmt.Sprintf("locked by %s until %s, but %s has not reported in the last 30 s: the lock is not being extended; a running job executor takes its locks over, without charging the job, once it has been silent for that executor's DeadOwnerAfter (15 s by default), or when the lock expires",
		j.LockOwner, until, j.LockOwner)
}

// servedBy tells whether a running executor takes j: one that reported
// lately, that is not deployment-aware without j's deployment, whose
// priority range holds j's, and whose pool and queue are not full.
func servedBy(j *bpmnlite.Job, executors []*bpmnlite.JobExecutorInfo) (bool, string) {
	if len(executors) == 0 {
		return true, "no job executor has reported in the last 30 s: start one (bpmnlite serve, or JobExecutorActivate)"
	}
	var why, busy, serving []string
	for _, x := range executors {
		switch {
		case x.DeploymentAware && j.DeploymentID != "" && !strings.Contains(","+x.Deployments+",", ","+j.DeploymentID+","):
			why = append(why, fmt.Sprintf("%s is deployment-aware and has not registered deployment %s", x.ID, j.DeploymentID))
		case x.PriorityMin != nil && j.Priority < *x.PriorityMin || x.PriorityMax != nil && j.Priority > *x.PriorityMax:
			why = append(why, fmt.Sprintf("%s serves priorities %s, the job has %d", x.ID, priorityRange(x), j.Priority))
		case x.Inflight >= x.PoolSize+x.QueueSize:
			busy = append(busy, fmt.Sprintf("%s (%d jobs acquired, pool %d, queue %d)", x.ID, x.Inflight, x.PoolSize, x.QueueSize))
		default:
			serving = append(serving, fmt.Sprintf("%s (%d of %d busy)", x.ID, min(x.Inflight, x.PoolSize), x.PoolSize))
		}
	}
	switch {
	case len(serving) > 0:
		return false, "served by " + strings.Join(serving, ", ")
	case len(busy) > 0:
		return true, "every executor that serves it is full, queue and pool: " + strings.Join(busy, ", ") + "; it waits its turn"
	}
	return true, "no running executor takes it: " + strings.Join(why, "; ")
}

func priorityRange(x *bpmnlite.JobExecutorInfo) string {
	lo, hi := "-∞", "+∞"
	if x.PriorityMin != nil {
		lo = fmt.Sprint(*x.PriorityMin)
	}
	if x.PriorityMax != nil {
		hi = fmt.Sprint(*x.PriorityMax)
	}
	return lo + ".." + hi
}
