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
// record.go), and its row method ties it to its table; a table without a
// rev column is immutable.
var DeploymentTable = newTable[Deployment]("deployment", orderDeployment)

func (e *Deployment) row() (*Table, addr) { return DeploymentTable, addr(e) }

var ResourceTable = newTable[Resource]("resource", orderResource)

func (e *Resource) row() (*Table, addr) { return ResourceTable, addr(e) }

var ProcessDefinitionTable = newTable[ProcessDefinition]("process_definition", orderProcessDefinition)

func (e *ProcessDefinition) row() (*Table, addr) { return ProcessDefinitionTable, addr(e) }

var FormDefinitionTable = newTable[FormDefinition]("form_definition", orderProcessDefinition)

func (e *FormDefinition) row() (*Table, addr) { return FormDefinitionTable, addr(e) }

var JobDefinitionTable = newTable[JobDefinition]("job_definition", orderJobDefinition)

func (e *JobDefinition) row() (*Table, addr) { return JobDefinitionTable, addr(e) }

var ExecutionTable = newTable[Execution]("execution", orderExecution)

func (e *Execution) row() (*Table, addr) { return ExecutionTable, addr(e) }

var VariableTable = newTable[Variable]("variable", orderRuntime)

func (e *Variable) row() (*Table, addr) { return VariableTable, addr(e) }

var TaskTable = newTable[Task]("task", orderRuntime)

func (e *Task) row() (*Table, addr) { return TaskTable, addr(e) }

var EventSubscriptionTable = newTable[EventSubscription]("event_subscription", orderRuntime)

func (e *EventSubscription) row() (*Table, addr) { return EventSubscriptionTable, addr(e) }

var ExternalTaskTable = newTable[ExternalTask]("external_task", orderRuntime)

func (e *ExternalTask) row() (*Table, addr) { return ExternalTaskTable, addr(e) }

var JobTable = newTable[Job]("job", orderRuntime)

func (e *Job) row() (*Table, addr) { return JobTable, addr(e) }

var IncidentTable = newTable[Incident]("incident", orderRuntime)

func (e *Incident) row() (*Table, addr) { return IncidentTable, addr(e) }

var HistoricProcessInstanceTable = newTable[HistoricProcessInstance]("hist_process_instance", orderHistory)

func (e *HistoricProcessInstance) row() (*Table, addr) { return HistoricProcessInstanceTable, addr(e) }

var HistoricActivityInstanceTable = newTable[HistoricActivityInstance]("hist_activity_instance", orderHistory)

func (e *HistoricActivityInstance) row() (*Table, addr) {
	return HistoricActivityInstanceTable, addr(e)
}

var HistoricVariableTable = newTable[HistoricVariable]("hist_variable", orderHistory)

func (e *HistoricVariable) row() (*Table, addr) { return HistoricVariableTable, addr(e) }

var HistoricTaskTable = newTable[HistoricTask]("hist_task", orderHistory)

func (e *HistoricTask) row() (*Table, addr) { return HistoricTaskTable, addr(e) }

var HistoricIncidentTable = newTable[HistoricIncident]("hist_incident", orderHistory)

func (e *HistoricIncident) row() (*Table, addr) { return HistoricIncidentTable, addr(e) }

var TaskCommentTable = newTable[TaskComment]("task_comment", orderHistory)

func (e *TaskComment) row() (*Table, addr) { return TaskCommentTable, addr(e) }

var TaskAttachmentTable = newTable[TaskAttachment]("task_attachment", orderHistory)

func (e *TaskAttachment) row() (*Table, addr) { return TaskAttachmentTable, addr(e) }

var JobExecutorTable = newTable[JobExecutorInfo]("job_executor", orderHistory)

func (e *JobExecutorInfo) row() (*Table, addr) { return JobExecutorTable, addr(e) }

var JobLogTable = newTable[JobLogEntry]("job_log", orderHistory)

func (e *JobLogEntry) row() (*Table, addr) { return JobLogTable, addr(e) }

var MeterLogTable = newTable[MeterLog]("meter_log", orderHistory)

func (e *MeterLog) row() (*Table, addr) { return MeterLogTable, addr(e) }

var DecisionRequirementsDefinitionTable = newTable[DecisionRequirementsDefinition]("decision_requirements_definition", orderProcessDefinition)

func (e *DecisionRequirementsDefinition) row() (*Table, addr) {
	return DecisionRequirementsDefinitionTable, addr(e)
}

var DecisionDefinitionTable = newTable[DecisionDefinition]("decision_definition", orderProcessDefinition)

func (e *DecisionDefinition) row() (*Table, addr) { return DecisionDefinitionTable, addr(e) }

var HistoricDecisionInstanceTable = newTable[HistoricDecisionInstance]("hist_decision_instance", orderHistory)

func (e *HistoricDecisionInstance) row() (*Table, addr) {
	return HistoricDecisionInstanceTable, addr(e)
}

var HistoricDecisionInputTable = newTable[HistoricDecisionInput]("hist_decision_input", orderHistory)

func (e *HistoricDecisionInput) row() (*Table, addr) { return HistoricDecisionInputTable, addr(e) }

var HistoricDecisionOutputTable = newTable[HistoricDecisionOutput]("hist_decision_output", orderHistory)

func (e *HistoricDecisionOutput) row() (*Table, addr) { return HistoricDecisionOutputTable, addr(e) }

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
