// Package timer reads the ISO 8601 and cron notations of BPMN timer
// definitions and of camunda:failedJobRetryTimeCycle, and computes due dates
// the way Camunda 7 does.
//
//   - [ParseDuration] reads timeDuration values ("PT5M", "P1DT2H", "P2W").
//   - [ParseDate] reads timeDate values ("2036-11-14T11:12:22", "...Z",
//     "...+01:00", "2036-11-14").
//   - [ParseCycle] reads timeCycle values: ISO 8601 repeating intervals
//     ("R3/PT10S", "R/PT1H", "R2/2026-01-01T00:00:00Z/PT5M",
//     "R3/PT10S/2026-01-01T00:00:00Z") and Quartz cron expressions with
//     seconds ("0 0/5 * * * ?").
//   - [ParseRetryCycle] reads failedJobRetryTimeCycle values ("R5/PT5M",
//     "PT3M, PT10M,PT8M").
//
// Duration values are read by github.com/rickb777/period (the period
// package of the design card's rickb777/date v2), whose decimal fields hold
// any count exactly; the grammar check before it and the arithmetic are
// this package's own, because Camunda's differ from that library's: it
// rejects signs, commas and out-of-order designators, and it clamps months
// (below), where period's AddTo rolls over as Go's AddDate does. Dates are
// read here too: rickb777/date's ParseISO rolls 30 February over to March,
// where Camunda rejects it.
//
// # Arithmetic
//
// Durations are added field by field as Java's Duration.addTo(Calendar)
// does: years, then months (both clamped to the end of the month, so
// 31 January + P1M = 28 or 29 February), then days on the calendar (the wall
// clock time stays), then hours, minutes and seconds as elapsed time. Weeks
// (P2W) count as 7×24 hours of elapsed time, as in Camunda. Fractions of a
// second are kept to the millisecond, as Java does.
//
// # Cycles and how to store them
//
// A repeating interval is a set of fire times, counted as Camunda's
// DurationHelper counts them:
//
//	Rn/P      n fire times, the first one P after the timer is created
//	Rn/S/P    S, S+P, ..., S+nP (S only while it lies ahead)
//	Rn/P/E    E-nP, ..., E-P, E
//	Rn/S/E    as Rn/S/P with P = E-S
//	R/...     the same without end
//
// A timer job stores its cycle as Camunda does: as written, with the
// creation time put in as start date where it has none ([Cycle.Anchor],
// Camunda's date format, to the second): a timer created at 10:00:00 with
// "R3/PT10S" stores "R3/2026-01-01T10:00:00/PT10S", whose fire times after
// its creation are 10:00:10, 10:00:20 and 10:00:30; every job of that cycle
// stores the same notation. A notation without start date set on a job
// later counts from each run, and its count never ends it (Camunda's too).
// The engine does:
//
//	// creating the timer
//	c, err := timer.ParseCycle(expr)
//	job.DueDate, job.Repeat = c.First(now), c.Anchor(now).String()
//
//	// running the timer job
//	c, err := timer.ParseCycle(job.Repeat)
//	if next, ok := c.Next(now); ok {
//		newJob.DueDate, newJob.Repeat = next, job.Repeat
//	}
//
// Passing the current time to Next, as Camunda does, skips the runs that
// were missed while no job executor ran: the next due date is the first fire
// time after now. Passing the due date of the run instead replays every
// missed run. A cron cycle has no state: its notation stays the same and Next
// gives the next matching second after the time given.
//
// [ParseCycle] reads dates without zone, adds days and months, and matches
// cron expressions in UTC; [ParseCycleIn] takes another location (Camunda
// uses the JVM's default zone). Parse a stored notation with the location it
// was made with. Where a day is not always 24 hours (a zone with daylight
// saving time) and for months and years, fire times are found by walking the
// interval from the start or end date, up to 100 000 steps; a fire time
// further away than that counts as none.
//
// Nothing in this package panics on any input; every notation error is a
// [*SyntaxError] naming the notation and what is wrong with it.
//
// The package holds notations and time arithmetic only: it imports no
// other package of bpmnlite and knows nothing of jobs or the database.
// bpmn checks timer values with it at deployment; runtime computes due
// dates and retry intervals with it.
package timer
