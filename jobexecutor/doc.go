// Package jobexecutor runs the jobs of one or more engines in the
// background: asynchronous continuations, timers, retries and the history
// cleanup job.
//
// An [Executor] ([New], Start, Stop, Wake) runs an acquisition loop that
// locks due jobs, a bounded queue, and a pool of workers that run each
// job in a transaction of its own (on SQLite, the queued jobs together,
// each behind its own savepoint). It wakes on local commits and, on
// PostgreSQL, on other nodes' notifications; it extends the locks of
// running jobs where other nodes may take over; it releases the jobs it
// acquired and did not run or whose outcome it could not store, and the
// locks of executors that stopped reporting. Several
// executors, in one process or on several nodes, may share a database.
// [Config] (config.JobExecutor) holds its settings, [Metrics] receives its counters.
//
// It reaches an engine only through the narrow [JobRuntime] interface
// (jobruntime.go), which *runtime.Core implements: it never opens a
// transaction, writes SQL or runs BPMN behaviour itself. From runtime and
// persistence it uses only data types and errors (acquired jobs, claims,
// acquisition parameters, capabilities, ErrLockLost). The bpmnlite package
// builds executors (NewJobExecutor, Config.JobExecutorActivate); nothing
// below it imports this package.
package jobexecutor
