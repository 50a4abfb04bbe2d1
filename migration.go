package bpmnlite

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/runtime"
)

// Migration of running process instances between versions, as Camunda's
// MigrationPlan: generate a plan (GenerateMigrationPlan maps the equal
// activities), change or add instructions, validate it
// (ValidateMigrationPlan returns Camunda's report), and execute it
// (Migrate) for a list or a query of instances in one transaction. See
// docs/changing-running-processes.md.
type (
	// MigrationPlan maps the activities of a source definition to those of
	// a target definition; its Variables are set on every migrated instance.
	MigrationPlan = runtime.MigrationPlan
	// MigrationInstruction maps one source activity to one target activity
	// ("<id>#multiInstanceBody" names a multi-instance body).
	MigrationInstruction = runtime.MigrationInstruction
	// MigrationPlanReport is a plan's validation report: the invalid
	// instructions and variables, each with its failures.
	MigrationPlanReport = runtime.MigrationPlanReport
	// MigrationInstructionReport is one invalid instruction and why.
	MigrationInstructionReport = runtime.MigrationInstructionReport
	// MigrationRequest executes a plan for instances listed and queried.
	MigrationRequest = runtime.MigrationRequest
	// MigrationPlanError is a plan that does not validate (Camunda's
	// MigrationPlanValidationException), with its report.
	MigrationPlanError = runtime.MigrationPlanError
	// MigratingInstanceError is an instance that the plan cannot migrate
	// (Camunda's MigratingProcessInstanceValidationException), with its
	// report; no instance was migrated.
	MigratingInstanceError = runtime.MigratingInstanceError
	// MigratingInstanceReport names what keeps an instance from migrating.
	MigratingInstanceReport = runtime.MigratingInstanceReport
	// MigratingActivityInstanceReport is an activity instance that cannot
	// be migrated and why.
	MigratingActivityInstanceReport = runtime.MigratingActivityInstanceReport
	// MigratingTransitionInstanceReport is a transition instance (waiting
	// for its asynchronous continuation) that cannot be migrated and why.
	MigratingTransitionInstanceReport = runtime.MigratingTransitionInstanceReport
)

// ErrMigration is what every refused migration matches (errors.Is): an
// invalid plan (*MigrationPlanError), an instance that cannot be migrated
// (*MigratingInstanceError), no instances, definitions of different tenants.
var ErrMigration = runtime.ErrMigration

// GenerateMigrationPlan maps the equal activities of two process
// definitions (Camunda's mapEqualActivities): same id and type, in scopes
// mapped to each other. updateEventTriggers sets UpdateEventTrigger on the
// instructions of events (conditional events always have it).
func (e *Engine) GenerateMigrationPlan(ctx context.Context, sourceDefinitionID, targetDefinitionID string, updateEventTriggers bool) (*MigrationPlan, error) {
	return e.rt.GenerateMigrationPlan(ctx, sourceDefinitionID, targetDefinitionID, updateEventTriggers)
}

// ValidateMigrationPlan validates a plan without executing it; a valid
// plan has an empty report (report.Valid()).
func (e *Engine) ValidateMigrationPlan(ctx context.Context, plan MigrationPlan) (*MigrationPlanReport, error) {
	return e.rt.ValidateMigrationPlan(ctx, plan)
}

// Migrate executes a plan synchronously for the instances of req, all in
// one transaction: if the plan is invalid (*MigrationPlanError) or one
// instance cannot be migrated (*MigratingInstanceError), none is.
func (e *Engine) Migrate(ctx context.Context, req MigrationRequest) error {
	return e.rt.Migrate(ctx, nil, req)
}

// CheckMigration is a dry run of Migrate: it validates the plan (a
// *MigrationPlanError when it is invalid) and returns the report of every
// instance of req that the plan cannot migrate, changing nothing.
func (e *Engine) CheckMigration(ctx context.Context, req MigrationRequest) ([]MigratingInstanceReport, error) {
	return e.rt.CheckMigration(ctx, req)
}

// MigrateTx is Migrate inside the caller's transaction.
func (e *Engine) MigrateTx(ctx context.Context, t pgx.Tx, req MigrationRequest) error {
	return e.inPgxTx(ctx, t, func(pt persistence.Tx) error {
		return e.rt.Migrate(ctx, pt, req)
	})
}
