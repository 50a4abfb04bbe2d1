package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/bpmnlite/bpmnlite"
)

const migrateHelp = `usage: bpmnlite migrate [flags] --from KEY:VERSION --to KEY:VERSION
Migrates the running instances of one process definition version to
another with the plan that maps their equal activities (same id and type,
in scopes mapped to each other). Prints the plan and, for each instance
that cannot be migrated, its activity instances and why; then migrates
every instance in one transaction, or none when one cannot be migrated.
flags:
  --from KEY:VERSION        the source process definition
  --to KEY:VERSION          the target process definition
  --dry-run                 print the plan and the report, migrate nothing
  --update-event-triggers   re-create timers and renamed message and signal
                            subscriptions from the target
` + dbHelp + `
example: bpmnlite migrate -db orders.db --from order:1 --to order:2 --dry-run`

// migrationOutcome is what migrate prints with --json.
type migrationOutcome struct {
	Plan     *bpmnlite.MigrationPlan            `json:"plan"`
	Refused  []bpmnlite.MigratingInstanceReport `json:"refused"`
	Migrated int                                `json:"migrated"`
	DryRun   bool                               `json:"dryRun"`
}

func migrateCmd(ctx context.Context, args []string, out io.Writer) error {
	c := newCLI("migrate", out, false)
	from := c.fs.String("from", "", "")
	to := c.fs.String("to", "", "")
	dryRun := c.fs.Bool("dry-run", false, "")
	update := c.fs.Bool("update-event-triggers", false, "")
	if err := c.open(ctx, args); err != nil {
		return err
	}
	defer c.close()
	if *from == "" || *to == "" || len(c.args) > 0 {
		return errors.New("migrate: give --from KEY:VERSION and --to KEY:VERSION (bpmnlite migrate -h)")
	}
	src, err := definitionAt(ctx, c.eng, *from)
	if err != nil {
		return err
	}
	tgt, err := definitionAt(ctx, c.eng, *to)
	if err != nil {
		return err
	}
	plan, err := c.eng.GenerateMigrationPlan(ctx, src.ID, tgt.ID, *update)
	if err != nil {
		return err
	}
	instances, err := c.eng.Instances(ctx, bpmnlite.InstanceQuery{ProcessDefinitionID: src.ID})
	if err != nil {
		return err
	}
	outcome := migrationOutcome{Plan: plan, DryRun: *dryRun, Refused: []bpmnlite.MigratingInstanceReport{}}
	req := bpmnlite.MigrationRequest{Plan: *plan, ProcessInstanceIDs: instanceIDs(instances)}
	if len(instances) > 0 {
		if outcome.Refused, err = c.eng.CheckMigration(ctx, req); err != nil {
			return err
		}
		if !*dryRun && len(outcome.Refused) == 0 {
			if err := c.eng.Migrate(ctx, req); err != nil {
				return err
			}
			outcome.Migrated = len(instances)
		}
	}
	if err := printMigration(c, outcome, src, tgt, len(instances)); err != nil {
		return err
	}
	if len(outcome.Refused) > 0 && !*dryRun {
		return fmt.Errorf("migrate: %d of %d instances cannot be migrated: none was", len(outcome.Refused), len(instances))
	}
	return nil
}

// definitionAt finds the process definition KEY:VERSION names.
func definitionAt(ctx context.Context, eng *bpmnlite.Engine, ref string) (*bpmnlite.ProcessDefinition, error) {
	key, v, ok := strings.Cut(ref, ":")
	version, err := strconv.Atoi(v)
	if !ok || key == "" || err != nil || version < 1 {
		return nil, fmt.Errorf("migrate: %q is not KEY:VERSION (e.g. order:2)", ref)
	}
	defs, err := eng.ProcessDefinitions(ctx, bpmnlite.DefinitionQuery{Key: key, Version: &version})
	if err != nil {
		return nil, err
	}
	if len(defs) != 1 {
		return nil, fmt.Errorf("migrate: %d process definitions are %s (want one; several tenants?)", len(defs), ref)
	}
	return defs[0], nil
}

func instanceIDs(ps []*bpmnlite.ExecutionRow) []string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	return ids
}

// printMigration prints the plan, the instances refused with their
// reasons, and what was migrated.
func printMigration(c *cli, o migrationOutcome, src, tgt *bpmnlite.ProcessDefinition, n int) error {
	if *c.asJSON {
		return c.print(o, "", nil)
	}
	fmt.Fprintf(c.out, "plan %s:%d -> %s:%d\n", src.Key, src.Version, tgt.Key, tgt.Version)
	var rows [][]string
	for _, in := range o.Plan.Instructions {
		rows = append(rows, []string{strings.Join(in.SourceActivityIDs, ","), strings.Join(in.TargetActivityIDs, ","), strconv.FormatBool(in.UpdateEventTrigger)})
	}
	if err := c.print(nil, "SOURCE\tTARGET\tUPDATE EVENT TRIGGER", rows); err != nil {
		return err
	}
	for _, r := range o.Refused {
		fmt.Fprintf(c.out, "instance %s cannot be migrated:\n", r.ProcessInstanceID)
		for _, f := range r.Failures {
			fmt.Fprintf(c.out, "  %s\n", f)
		}
		for _, a := range r.ActivityInstanceReports {
			fmt.Fprintf(c.out, "  activity %s (instance %s): %s\n", a.SourceScopeID, a.ActivityInstanceID, strings.Join(a.Failures, "; "))
		}
		for _, t := range r.TransitionInstanceReports {
			fmt.Fprintf(c.out, "  transition at %s (execution %s): %s\n", t.SourceScopeID, t.TransitionInstanceID, strings.Join(t.Failures, "; "))
		}
	}
	switch {
	case n == 0:
		fmt.Fprintf(c.out, "no running instances of %s:%d\n", src.Key, src.Version)
	case o.DryRun:
		fmt.Fprintf(c.out, "dry run: %d of %d instances can be migrated; nothing was\n", n-len(o.Refused), n)
	case o.Migrated > 0:
		fmt.Fprintf(c.out, "migrated %d instances\n", o.Migrated)
	}
	return nil
}
