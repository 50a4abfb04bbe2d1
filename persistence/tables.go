package persistence

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Column conventions, the same on both backends:
//   - every string column except id is written as NULL when empty and read
//     back as "" when NULL, so optional references are NULL in the database
//     (and required ones, declared NOT NULL, fail loudly when left empty);
//   - empty or nil []byte is NULL and reads back as nil;
//   - a nil pointer is NULL; a non-pointer time.Time is never NULL;
//   - times are microsecond precision, read back in UTC.

// Flush order levels (Table.Order).
const (
	orderDeployment = 10 * (iota + 1)
	orderResource
	orderProcessDefinition
	orderJobDefinition
	orderExecution
	orderRuntime // variables, tasks, subscriptions, external tasks, jobs, incidents
	orderHistory
)

// The engine's tables. Each entity's fields are its table's columns (see
// record.go), and its row method (beside it in entities.go) names its
// table; a table without a rev column is immutable.
var (
	DeploymentTable               = newTable[Deployment]("deployment", orderDeployment)
	ResourceTable                 = newTable[Resource]("resource", orderResource)
	ProcessDefinitionTable        = newTable[ProcessDefinition]("process_definition", orderProcessDefinition)
	JobDefinitionTable            = newTable[JobDefinition]("job_definition", orderJobDefinition)
	ExecutionTable                = newTable[Execution]("execution", orderExecution)
	VariableTable                 = newTable[Variable]("variable", orderRuntime)
	TaskTable                     = newTable[Task]("task", orderRuntime)
	EventSubscriptionTable        = newTable[EventSubscription]("event_subscription", orderRuntime)
	ExternalTaskTable             = newTable[ExternalTask]("external_task", orderRuntime)
	JobTable                      = newTable[Job]("job", orderRuntime)
	IncidentTable                 = newTable[Incident]("incident", orderRuntime)
	HistoricProcessInstanceTable  = newTable[HistoricProcessInstance]("hist_process_instance", orderHistory)
	HistoricActivityInstanceTable = newTable[HistoricActivityInstance]("hist_activity_instance", orderHistory)
	HistoricVariableTable         = newTable[HistoricVariable]("hist_variable", orderHistory)
	HistoricTaskTable             = newTable[HistoricTask]("hist_task", orderHistory)
	HistoricIncidentTable         = newTable[HistoricIncident]("hist_incident", orderHistory)
	JobExecutorTable              = newTable[JobExecutorInfo]("job_executor", orderHistory)
	JobLogTable                   = newTable[JobLogEntry]("job_log", orderHistory)
)

// Tables returns every table of the schema in flush (insert) order.
func Tables() []*Table {
	out := slices.Clone(allTables)
	slices.SortStableFunc(out, func(a, b *Table) int { return cmp.Compare(a.Order, b.Order) })
	return out
}

// tableSQL holds a table's generated statements, built once.
type tableSQL struct {
	insert, update, delete, get, selectPrefix string
	columnList                                string
}

func (t *Table) statements() *tableSQL {
	t.sqlOnce.Do(func() {
		cols := strings.Join(t.Columns, ", ")
		var b strings.Builder
		b.WriteString("INSERT INTO " + t.Name + " (" + cols + ") VALUES (")
		for i := range t.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("$" + strconv.Itoa(i+1))
		}
		b.WriteString(")")
		s := tableSQL{
			insert:       b.String(),
			get:          "SELECT " + cols + " FROM " + t.Name + " WHERE id = $1",
			selectPrefix: "SELECT " + cols + " FROM " + t.Name + " ",
			columnList:   cols,
		}
		if t.Immutable {
			s.delete = "DELETE FROM " + t.Name + " WHERE id = $1"
		} else {
			// Update binds Values as they are: $1 is id, $2 the revision read.
			b.Reset()
			b.WriteString("UPDATE " + t.Name + " SET ")
			for i, c := range t.Columns[2:] {
				b.WriteString(c + " = $" + strconv.Itoa(i+3) + ", ")
			}
			b.WriteString("rev = rev + 1 WHERE id = $1 AND rev = $2")
			s.update = b.String()
			s.delete = "DELETE FROM " + t.Name + " WHERE id = $1 AND rev = $2"
		}
		t.sql = s
	})
	return &t.sql
}

// nullStr maps "" to NULL.
func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}
