// Package runtime advances process instances: the execution tree, activity
// behaviours, the operation loop that runs executions to their next wait
// states inside one command, variables, events, jobs and history.
//
// Where things are:
//   - core.go: [Core] and [New] (it takes config.Config); delegates and
//     beans. agenda.go: a command's state, the agenda loop, executions;
//     tree.go: the execution tree's shape (fork, compaction, scopes);
//     flow.go: how a path enters and leaves an activity (behave dispatches
//     to the element families below).
//   - commands.go: start, trigger, variables, delete; the other commands
//     sit with their element (CompleteTask in tasks.go, Correlate and
//     Signal in events_messages.go).
//   - tasks.go: service, send, user, receive and external tasks;
//     delegate.go: calling Go code and expressions, listeners;
//     scripts.go: JavaScript (script tasks, conditions, parameters,
//     listeners) through package script;
//     externaltasks.go, externaltasks_poll.go: fetch, lock, long polling.
//   - gateways.go: exclusive, parallel (the join), inclusive, event-based.
//   - events.go: catch events, waits, triggers; events_boundary.go:
//     boundary events whole (arm, fire, disarm, the boundary timer job);
//     events_timers.go, events_messages.go (and signals), events_errors.go,
//     events_conditional.go, events_subprocess.go; compensation.go.
//   - scopes.go: subprocesses, ending paths and scopes, terminate, cancel;
//     iomapping.go; callactivity.go; multiinstance.go; instances.go.
//   - modify.go: process instance modification (start before/after,
//     start a transition, cancel activity and transition instances);
//     restart.go: restarting ended instances from history with its
//     start instructions.
//   - jobs_create.go: creating jobs (job definitions, priorities, retries);
//     jobs_run.go: running them (one savepoint sequence for a job alone and a group's, groups, the handler registry: each element file registers its job handlers);
//     jobs_failure.go: retries, incidents, the job log; jobs_acquire.go:
//     acquisition and locks for job executors; jobs_pace.go: which jobs
//     run in groups on SQLite; jobs_manage.go.
//   - migrate_plan.go: migration plans (generation, validation);
//     migrate.go: migrating instances between definition versions.
//   - deploy.go, defcache.go (parsed definitions), management.go,
//     variables.go, transient.go, history.go, history_cleanup.go, errors.go.
//
// A command runs through a tx.Executor: it reads and changes entities
// through the tx.Context (the entity cache and one flush), reads rows with
// persistence's named queries, and writes no SQL. Acquisition, lock and
// wake-up calls for job executors (jobs_acquire.go) and the long-poll
// check (externaltasks_poll.go) open persistence transactions directly.
// The package must not import the root package, jobexecutor, rest or
// worker: the root calls it, and a job executor drives it through
// jobexecutor.JobRuntime, which *Core implements.
package runtime
