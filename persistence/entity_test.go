package persistence_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bpmnlite/bpmnlite/internal/testdb"
	"github.com/bpmnlite/bpmnlite/persistence"
)

// at returns a time in UTC at microsecond precision: what both backends
// read back.
func at(minute, micro int) time.Time {
	return time.Date(2025, 3, 4, 5, minute, 7, micro*1000, time.UTC)
}

func ptr[T any](v T) *T { return &v }

// sample is an entity with every field set (full) and one with only its
// required columns set (sparse), for each table.
type sample struct {
	full, sparse func() persistence.Entity
	// modify changes every field except id and rev of a full entity.
	modify func(persistence.Entity)
}

var samples = map[*persistence.Table]sample{
	persistence.DeploymentTable: {
		full: func() persistence.Entity {
			return &persistence.Deployment{TenantID: "acme", ID: "d1", Name: "orders", Source: "cli", DeployTime: at(1, 1)}
		},
		sparse: func() persistence.Entity { return &persistence.Deployment{ID: "d2", DeployTime: at(1, 2)} },
	},
	persistence.ResourceTable: {
		full: func() persistence.Entity {
			return &persistence.Resource{ID: "r1", DeploymentID: "d1", Name: "a.bpmn", Bytes: []byte{0, 1, 2, 0xff}, Hash: "abc"}
		},
		sparse: func() persistence.Entity { return &persistence.Resource{ID: "r2", DeploymentID: "d1", Name: "b.bpmn"} },
	},
	persistence.ProcessDefinitionTable: {
		full: func() persistence.Entity {
			return &persistence.ProcessDefinition{Description: "Orders", Category: "http://example.com/p", DiagramResourceName: "p.png", StartableInTasklist: true, TenantID: "acme", ID: "p:1:x", Rev: 1, Key: "p", Version: 1, Name: "P", DeploymentID: "d1",
				ResourceName: "a.bpmn", Suspension: persistence.Active, HasStartForm: true, VersionTag: "v1", HistoryTimeToLive: ptr(30),
				CandidateStarterGroups: "sales,management", CandidateStarterUsers: "kermit"}
		},
		sparse: func() persistence.Entity {
			return &persistence.ProcessDefinition{ID: "p:2:x", Key: "p", Version: 2, DeploymentID: "d1", Suspension: persistence.Active}
		},
		modify: func(e persistence.Entity) {
			p := e.(*persistence.ProcessDefinition)
			p.Key, p.Version, p.Name, p.DeploymentID, p.ResourceName = "q", 7, "Q", "d2", "b.bpmn"
			p.Suspension, p.HasStartForm, p.VersionTag, p.HistoryTimeToLive = persistence.Suspended, false, "v2", ptr(0)
			p.CandidateStarterGroups, p.CandidateStarterUsers = "", "piggy"
		},
	},
	persistence.FormDefinitionTable: {
		full: func() persistence.Entity {
			return &persistence.FormDefinition{ID: "f:1:x", Key: "f", Version: 1, DeploymentID: "d1", ResourceName: "f.form", TenantID: "acme"}
		},
		sparse: func() persistence.Entity {
			return &persistence.FormDefinition{ID: "f:2:x", Key: "f", Version: 2, DeploymentID: "d1", ResourceName: "g.form"}
		},
	},
	persistence.JobDefinitionTable: {
		full: func() persistence.Entity {
			return &persistence.JobDefinition{ID: "jd1", Rev: 1, ProcessDefinitionID: "p:1:x", ProcessDefinitionKey: "p",
				ActivityID: "a", JobType: persistence.JobTimer, JobConfiguration: "DATE: 2025", OverridingPriority: ptr[int64](-5),
				Suspension: persistence.Active, HandlerType: "timer-transition", DeploymentID: "d1"}
		},
		sparse: func() persistence.Entity {
			return &persistence.JobDefinition{ID: "jd2", ProcessDefinitionID: "p:1:x", JobType: persistence.JobMessage, Suspension: persistence.Active}
		},
		modify: func(e persistence.Entity) {
			j := e.(*persistence.JobDefinition)
			j.ProcessDefinitionID, j.ProcessDefinitionKey, j.ActivityID, j.JobType = "p:2:x", "q", "b", persistence.JobMessage
			j.JobConfiguration, j.OverridingPriority, j.Suspension = "async-before", nil, persistence.Suspended
			j.HandlerType = "async-continuation"
		},
	},
	persistence.BatchTable: {
		full: func() persistence.Entity {
			return &persistence.Batch{ID: "b1", Rev: 1, Type: "instance-deletion", TotalJobs: 10, JobsCreated: 3, BatchJobsPerSeed: 100,
				InvocationsPerBatchJob: 2, SeedJobDefinitionID: "jds", MonitorJobDefinitionID: "jdm", BatchJobDefinitionID: "jdb",
				Suspension: persistence.Active, Configuration: `{"items":["a"]}`, TenantID: "acme", CreateUserID: "kermit",
				StartTime: at(30, 1), ExecutionStartTime: ptr(at(30, 2))}
		},
		sparse: func() persistence.Entity {
			return &persistence.Batch{ID: "b2", Type: "set-job-retries", Suspension: persistence.Active, StartTime: at(30, 3)}
		},
		modify: func(e persistence.Entity) {
			b := e.(*persistence.Batch)
			b.Type, b.TotalJobs, b.JobsCreated, b.BatchJobsPerSeed, b.InvocationsPerBatchJob = "other", 11, 4, 10, 1
			b.SeedJobDefinitionID, b.MonitorJobDefinitionID, b.BatchJobDefinitionID = "s2", "m2", "b2"
			b.Suspension, b.Configuration, b.TenantID, b.CreateUserID = persistence.Suspended, "{}", "other", "piggy"
			b.StartTime, b.ExecutionStartTime = at(31, 1), nil
		},
	},
	persistence.HistoricBatchTable: {
		full: func() persistence.Entity {
			return &persistence.HistoricBatch{ID: "hb1", Rev: 1, Type: "instance-deletion", TotalJobs: 10, BatchJobsPerSeed: 100,
				InvocationsPerBatchJob: 2, SeedJobDefinitionID: "jds", MonitorJobDefinitionID: "jdm", BatchJobDefinitionID: "jdb",
				TenantID: "acme", CreateUserID: "kermit", StartTime: at(30, 1), EndTime: ptr(at(30, 4)), RemovalTime: ptr(at(40, 1)),
				ExecutionStartTime: ptr(at(30, 2))}
		},
		sparse: func() persistence.Entity {
			return &persistence.HistoricBatch{ID: "hb2", Type: "set-job-retries", StartTime: at(30, 3)}
		},
		modify: func(e persistence.Entity) {
			b := e.(*persistence.HistoricBatch)
			b.Type, b.TotalJobs, b.BatchJobsPerSeed, b.InvocationsPerBatchJob = "other", 11, 10, 1
			b.SeedJobDefinitionID, b.MonitorJobDefinitionID, b.BatchJobDefinitionID = "s2", "m2", "b2"
			b.TenantID, b.CreateUserID, b.StartTime = "other", "piggy", at(31, 1)
			b.EndTime, b.RemovalTime, b.ExecutionStartTime = nil, nil, nil
		},
	},
	persistence.ExecutionTable: {
		full: func() persistence.Entity {
			return &persistence.Execution{TenantID: "acme", ID: "e1", Rev: 1, ProcessInstanceID: "pi", ParentID: "pi", ProcessDefinitionID: "p:1:x",
				ActivityID: "task", ActivityInstanceID: "task:1", BusinessKey: "bk", SuperExecutionID: "sup",
				IsActive: true, IsScope: true, IsConcurrent: true, IsEventScope: true, Suspension: persistence.Active,
				TransitionID: "flow1", StartTime: at(2, 999999), RootProcessInstanceID: "root"}
		},
		sparse: func() persistence.Entity {
			return &persistence.Execution{ID: "e2", ProcessInstanceID: "e2", ProcessDefinitionID: "p:1:x", StartTime: at(2, 0)}
		},
		modify: func(e persistence.Entity) {
			x := e.(*persistence.Execution)
			x.ProcessInstanceID, x.ParentID, x.ProcessDefinitionID, x.ActivityID = "pi2", "", "p:2:x", "other"
			x.ActivityInstanceID, x.BusinessKey, x.SuperExecutionID = "other:1", "bk2", ""
			x.IsActive, x.IsScope, x.IsConcurrent, x.IsEventScope = false, false, false, false
			x.Suspension, x.TransitionID, x.StartTime, x.RootProcessInstanceID = persistence.Suspended, "", at(3, 1), "root2"
		},
	},
	persistence.VariableTable: {
		full: func() persistence.Entity {
			return &persistence.Variable{ID: "v1", Rev: 1, Name: "amount", Type: persistence.VarBytes, ExecutionID: "e1",
				ProcessInstanceID: "pi", TaskID: "t1", Text: "ünïcode ✓", Long: -1 << 62, Double: 3.25,
				Time: at(4, 5), Bytes: []byte("blob"), ValueType: "File", ValueInfo: `{"filename":"a.txt"}`}
		},
		sparse: func() persistence.Entity {
			// The zero time is stored as it is, not as NULL.
			return &persistence.Variable{ID: "v2", Name: "n", Type: persistence.VarNull}
		},
		modify: func(e persistence.Entity) {
			v := e.(*persistence.Variable)
			v.Name, v.Type, v.ExecutionID, v.ProcessInstanceID, v.TaskID = "x", persistence.VarString, "e2", "pi2", ""
			v.Text, v.Long, v.Double, v.Time, v.Bytes = "", 1<<62, -0.5, time.Time{}, nil
			v.ValueType, v.ValueInfo = "Object", `{"objectTypeName":"x"}`
		},
	},
	persistence.HistoricVariableTable: {
		full: func() persistence.Entity {
			return &persistence.HistoricVariable{Variable: persistence.Variable{ID: "hv1", Rev: 1, Name: "amount", Type: persistence.VarBytes,
				ExecutionID: "pi", ProcessInstanceID: "pi", TaskID: "t1", Text: "ünïcode ✓", Long: -1 << 62, Double: 3.25,
				Time: at(4, 5), Bytes: []byte("blob"), ValueType: "File", ValueInfo: `{"filename":"a.txt"}`}, State: persistence.VariableDeleted, CreateTime: ptr(at(4, 6))}
		},
		sparse: func() persistence.Entity {
			return &persistence.HistoricVariable{Variable: persistence.Variable{ID: "hv2", Name: "n", Type: persistence.VarNull}, State: persistence.VariableCreated}
		},
		modify: func(e persistence.Entity) {
			v := e.(*persistence.HistoricVariable)
			v.Name, v.Type, v.ExecutionID, v.ProcessInstanceID, v.TaskID = "x", persistence.VarString, "e2", "pi2", ""
			v.Text, v.Long, v.Double, v.Time, v.Bytes = "", 1<<62, -0.5, time.Time{}, nil
			v.ValueType, v.ValueInfo = "Object", `{"objectTypeName":"x"}`
			v.State, v.CreateTime = persistence.VariableCreated, nil
		},
	},
	persistence.JobExecutorTable: {
		full: func() persistence.Entity {
			return &persistence.JobExecutorInfo{ID: "node-a", DeploymentAware: true, Deployments: "d1,d2", PriorityMin: ptr(int64(-5)),
				PriorityMax: ptr(int64(1) << 40), PoolSize: 4, QueueSize: 8, Inflight: 3, Heartbeat: at(9, 1)}
		},
		sparse: func() persistence.Entity {
			return &persistence.JobExecutorInfo{ID: "node-b", Heartbeat: at(9, 2)}
		},
	},
	persistence.TaskTable: {
		full: func() persistence.Entity {
			return &persistence.Task{TenantID: "acme", ID: "t1", Rev: 1, Name: "Approve", ExecutionID: "e1", ProcessInstanceID: "pi",
				ProcessDefinitionID: "p:1:x", TaskDefinitionKey: "approve", Assignee: "kermit", CandidateGroups: "a,b",
				CandidateUsers: "c,d", Priority: 50, CreateTime: at(5, 1), DueDate: ptr(at(6, 2)), Suspension: persistence.Active,
				FollowUpDate: ptr(at(6, 3)), FormKey: "embedded:app:forms/approve.html", Description: "Approve it",
				Owner: "gonzo", DelegationState: persistence.DelegationPending, ParentTaskID: "t0", LastUpdated: ptr(at(6, 4)),
				ActivityInstanceID: "approve:1", FormRef: "approveForm", FormRefBinding: "version", FormRefVersion: ptr(2)}
		},
		sparse: func() persistence.Entity {
			return &persistence.Task{ID: "t2", CreateTime: at(5, 0), Suspension: persistence.Active}
		},
		modify: func(e persistence.Entity) {
			x := e.(*persistence.Task)
			x.Name, x.ExecutionID, x.ProcessInstanceID, x.ProcessDefinitionID = "Reject", "e2", "pi2", "p:2:x"
			x.TaskDefinitionKey, x.Assignee, x.CandidateGroups, x.CandidateUsers = "reject", "", "", "z"
			x.Priority, x.CreateTime, x.DueDate, x.Suspension = -3, at(7, 7), nil, persistence.Suspended
			x.FollowUpDate, x.FormKey = nil, ""
			x.Description, x.Owner, x.DelegationState, x.ParentTaskID = "", "piggy", persistence.DelegationResolved, ""
			x.LastUpdated, x.ActivityInstanceID = nil, ""
			x.FormRef, x.FormRefBinding, x.FormRefVersion = "rejectForm", "latest", nil
		},
	},
	persistence.EventSubscriptionTable: {
		full: func() persistence.Entity {
			return &persistence.EventSubscription{ID: "s1", Rev: 1, EventType: persistence.SubscriptionMessage, EventName: "paid",
				ExecutionID: "e1", ProcessInstanceID: "pi", ActivityID: "catch", ProcessDefinitionID: "p:1:x",
				Configuration: "cfg", Created: at(8, 8)}
		},
		sparse: func() persistence.Entity {
			return &persistence.EventSubscription{ID: "s2", EventType: persistence.SubscriptionSignal, Created: at(8, 0)}
		},
		modify: func(e persistence.Entity) {
			x := e.(*persistence.EventSubscription)
			x.EventType, x.EventName, x.ExecutionID, x.ProcessInstanceID = persistence.SubscriptionSignal, "alarm", "", ""
			x.ActivityID, x.ProcessDefinitionID, x.Configuration, x.Created = "start", "p:2:x", "", at(9, 9)
		},
	},
	persistence.ExternalTaskTable: {
		full: func() persistence.Entity {
			return &persistence.ExternalTask{TenantID: "acme", ID: "x1", Rev: 1, Topic: "pay", WorkerID: "w", LockExpiration: ptr(at(10, 1)),
				Retries: ptr(0), ErrorMessage: "boom", ErrorDetails: "stack", ExecutionID: "e1", ProcessInstanceID: "pi",
				ProcessDefinitionID: "p:1:x", ProcessDefinitionKey: "p", ActivityID: "ext", ActivityInstanceID: "ext:1",
				Priority: 1 << 40, Suspension: persistence.Active, BusinessKey: "bk", CreateTime: at(10, 0),
				TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
		},
		sparse: func() persistence.Entity {
			return &persistence.ExternalTask{ID: "x2", Topic: "pay", Suspension: persistence.Active, CreateTime: at(10, 2)}
		},
		modify: func(e persistence.Entity) {
			x := e.(*persistence.ExternalTask)
			x.Topic, x.WorkerID, x.LockExpiration, x.Retries = "ship", "", nil, ptr(3)
			x.ErrorMessage, x.ErrorDetails, x.ExecutionID, x.ProcessInstanceID = "", "", "e2", "pi2"
			x.ProcessDefinitionID, x.ProcessDefinitionKey, x.ActivityID, x.ActivityInstanceID = "p:2:x", "q", "ext2", ""
			x.Priority, x.Suspension, x.BusinessKey, x.CreateTime = -1, persistence.Suspended, "", at(11, 11)
		},
	},
	persistence.JobTable: {
		full: func() persistence.Entity {
			return &persistence.Job{TenantID: "acme", ID: "j1", Rev: 1, Type: persistence.JobTimer, LockOwner: "node1", LockExpiration: ptr(at(12, 1)),
				Exclusive: true, ExecutionID: "e1", ProcessInstanceID: "pi", ProcessDefinitionID: "p:1:x",
				ProcessDefinitionKey: "p", JobDefinitionID: "jd1", DeploymentID: "d1", ActivityID: "timer", Retries: 3,
				ExceptionMessage: "failed", ExceptionStack: "at x", DueDate: ptr(at(13, 2)), Repeat: "R2/PT1M",
				HandlerType: "timer-intermediate-transition", HandlerConfig: "cfg", Priority: -(1 << 40),
				Suspension: persistence.Active, CreateTime: at(12, 0), FailedAttempts: 2, Failures: 4, FailedActivityID: "after",
				RootProcessInstanceID: "root"}
		},
		sparse: func() persistence.Entity {
			return &persistence.Job{ID: "j2", Type: persistence.JobMessage, HandlerType: "async-before",
				Suspension: persistence.Active, CreateTime: at(12, 3)}
		},
		modify: func(e persistence.Entity) {
			x := e.(*persistence.Job)
			x.Type, x.LockOwner, x.LockExpiration, x.Exclusive = persistence.JobMessage, "", nil, false
			x.ExecutionID, x.ProcessInstanceID, x.ProcessDefinitionID, x.ProcessDefinitionKey = "", "", "", ""
			x.JobDefinitionID, x.DeploymentID, x.ActivityID, x.Retries = "", "", "", 0
			x.ExceptionMessage, x.ExceptionStack, x.DueDate, x.Repeat = "", "", nil, ""
			x.HandlerType, x.HandlerConfig, x.Priority = "async-after", "", 9
			x.Suspension, x.CreateTime, x.FailedAttempts, x.FailedActivityID = persistence.Suspended, at(14, 4), 0, ""
			x.RootProcessInstanceID = ""
		},
	},
	persistence.IncidentTable: {
		full: func() persistence.Entity {
			return &persistence.Incident{ID: "i1", Rev: 1, Type: persistence.IncidentFailedJob, Timestamp: at(15, 1),
				Message: "no retries", ExecutionID: "e1", ActivityID: "a", ProcessInstanceID: "pi",
				ProcessDefinitionID: "p:1:x", CauseIncidentID: "i0", RootCauseIncidentID: "i00", Configuration: "j1",
				JobDefinitionID: "jd1", FailedActivityID: "after", Annotation: "looked at"}
		},
		sparse: func() persistence.Entity {
			return &persistence.Incident{ID: "i2", Type: persistence.IncidentFailedExternalTask, Timestamp: at(15, 2)}
		},
		modify: func(e persistence.Entity) {
			x := e.(*persistence.Incident)
			x.Type, x.Timestamp, x.Message, x.ExecutionID = persistence.IncidentFailedExternalTask, at(16, 0), "", "e2"
			x.ActivityID, x.ProcessInstanceID, x.ProcessDefinitionID, x.CauseIncidentID = "b", "pi2", "", ""
			x.RootCauseIncidentID, x.Configuration, x.JobDefinitionID, x.FailedActivityID = "", "x1", "", "b"
			x.Annotation = ""
		},
	},
	persistence.HistoricProcessInstanceTable: {
		full: func() persistence.Entity {
			return &persistence.HistoricProcessInstance{TenantID: "acme", ID: "pi", Rev: 1, ProcessDefinitionID: "p:1:x", ProcessDefinitionKey: "p",
				BusinessKey: "bk", StartTime: at(17, 1), EndTime: ptr(at(18, 2)), State: persistence.StateCompleted,
				StartActivityID: "start", EndActivityID: "end", DeleteReason: "because", SuperProcessInstanceID: "super",
				RootProcessInstanceID: "root", RemovalTime: ptr(at(20, 1)), ProcessDefinitionName: "P", ProcessDefinitionVersion: 3,
				RestartedProcessInstanceID: "old"}
		},
		sparse: func() persistence.Entity {
			return &persistence.HistoricProcessInstance{ID: "pi2", ProcessDefinitionID: "p:1:x", StartTime: at(17, 0),
				State: persistence.StateActive}
		},
		modify: func(e persistence.Entity) {
			x := e.(*persistence.HistoricProcessInstance)
			x.ProcessDefinitionID, x.ProcessDefinitionKey, x.BusinessKey, x.StartTime = "p:2:x", "q", "", at(19, 3)
			x.EndTime, x.State, x.StartActivityID, x.EndActivityID = nil, persistence.StateActive, "s2", ""
			x.DeleteReason, x.SuperProcessInstanceID, x.RootProcessInstanceID, x.RemovalTime = "", "", "pi2", nil
		},
	},
	persistence.HistoricTaskTable: {
		full: func() persistence.Entity {
			return &persistence.HistoricTask{TenantID: "acme", ID: "ht1", Rev: 1, Name: "Approve", ExecutionID: "e1", ProcessInstanceID: "pi",
				ProcessDefinitionID: "p:1:x", ProcessDefinitionKey: "p", TaskDefinitionKey: "approve", ActivityInstanceID: "ai1",
				Assignee: "kermit", Priority: 70, DueDate: ptr(at(21, 1)), FollowUpDate: ptr(at(21, 2)), StartTime: at(21, 0),
				EndTime: ptr(at(22, 0)), DeleteReason: persistence.TaskCompleted, CandidateGroups: "sales,support", CandidateUsers: "carl",
				Description: "Approve it", Owner: "gonzo", ParentTaskID: "ht0"}
		},
		sparse: func() persistence.Entity {
			return &persistence.HistoricTask{ID: "ht2", StartTime: at(21, 3)} // a standalone task's
		},
		modify: func(e persistence.Entity) {
			x := e.(*persistence.HistoricTask)
			x.Name, x.ExecutionID, x.ProcessInstanceID, x.ProcessDefinitionID = "", "e2", "pi2", "p:2:x"
			x.ProcessDefinitionKey, x.TaskDefinitionKey, x.ActivityInstanceID, x.Assignee = "q", "reject", "", ""
			x.Priority, x.DueDate, x.FollowUpDate, x.StartTime = -1, nil, nil, at(23, 0)
			x.EndTime, x.DeleteReason = nil, ""
			x.Description, x.Owner, x.ParentTaskID = "", "piggy", "ht9"
		},
	},
	persistence.TaskCommentTable: {
		full: func() persistence.Entity {
			return &persistence.TaskComment{ID: "c1", Rev: 1, TaskID: "t1", ProcessInstanceID: "pi", RootProcessInstanceID: "pi0",
				UserID: "kermit", Time: at(26, 0), Message: "looks fine"}
		},
		sparse: func() persistence.Entity { return &persistence.TaskComment{ID: "c2", Time: at(26, 1)} },
		modify: func(e persistence.Entity) {
			x := e.(*persistence.TaskComment)
			x.TaskID, x.ProcessInstanceID, x.RootProcessInstanceID, x.UserID, x.Time, x.Message = "t2", "", "", "", at(26, 2), "changed"
		},
	},
	persistence.TaskAttachmentTable: {
		full: func() persistence.Entity {
			return &persistence.TaskAttachment{ID: "a1", Rev: 1, TaskID: "t1", ProcessInstanceID: "pi", RootProcessInstanceID: "pi0",
				Name: "scan", Description: "the scan", Type: "application/pdf", URL: "http://x/y", Content: []byte{0, 1, 2},
				CreateTime: at(27, 0)}
		},
		sparse: func() persistence.Entity { return &persistence.TaskAttachment{ID: "a2", CreateTime: at(27, 1)} },
		modify: func(e persistence.Entity) {
			x := e.(*persistence.TaskAttachment)
			x.TaskID, x.Name, x.Description, x.Type, x.URL, x.Content, x.CreateTime = "", "n", "", "", "", []byte("x"), at(27, 2)
		},
	},
	persistence.HistoricIncidentTable: {
		full: func() persistence.Entity {
			return &persistence.HistoricIncident{ID: "hi1", Rev: 1, Type: persistence.IncidentFailedJob, CreateTime: at(24, 1),
				EndTime: ptr(at(24, 2)), State: persistence.IncidentResolved, Message: "boom", ExecutionID: "e1",
				ActivityID: "a", FailedActivityID: "b", ProcessInstanceID: "pi", ProcessDefinitionID: "p:1:x",
				CauseIncidentID: "hi0", RootCauseIncidentID: "hi00", Configuration: "j1", JobDefinitionID: "jd1", Annotation: "looked at",
				HistoryConfiguration: "l1"}
		},
		sparse: func() persistence.Entity {
			return &persistence.HistoricIncident{ID: "hi2", Type: persistence.IncidentFailedExternalTask, CreateTime: at(24, 3),
				State: persistence.IncidentOpen}
		},
		modify: func(e persistence.Entity) {
			x := e.(*persistence.HistoricIncident)
			x.Type, x.CreateTime, x.EndTime, x.State = persistence.IncidentFailedExternalTask, at(25, 0), nil, persistence.IncidentDeleted
			x.Message, x.ExecutionID, x.ActivityID, x.FailedActivityID = "", "", "c", ""
			x.ProcessInstanceID, x.ProcessDefinitionID, x.CauseIncidentID, x.RootCauseIncidentID = "pi2", "", "", ""
			x.Configuration, x.JobDefinitionID, x.Annotation = "x1", "", "checked"
		},
	},
	persistence.HistoricActivityInstanceTable: {
		full: func() persistence.Entity {
			return &persistence.HistoricActivityInstance{ID: "ai1", Rev: 1, ProcessInstanceID: "pi", ProcessDefinitionID: "p:1:x",
				ExecutionID: "e1", ActivityID: "task", ActivityName: "Task", ActivityType: "userTask",
				ParentActivityInstanceID: "pi", StartTime: at(20, 1), EndTime: ptr(at(21, 1)), Canceled: true,
				CalledProcessInstanceID: "sub", TaskID: "t1"}
		},
		sparse: func() persistence.Entity {
			return &persistence.HistoricActivityInstance{ID: "ai2", ProcessInstanceID: "pi", ActivityID: "start", StartTime: at(20, 0)}
		},
		modify: func(e persistence.Entity) {
			x := e.(*persistence.HistoricActivityInstance)
			x.ProcessInstanceID, x.ProcessDefinitionID, x.ExecutionID, x.ActivityID = "pi2", "", "", "other"
			x.ActivityName, x.ActivityType, x.ParentActivityInstanceID, x.StartTime = "", "", "", at(22, 2)
			x.EndTime, x.Canceled, x.CalledProcessInstanceID, x.TaskID = nil, false, "", ""
		},
	},
	persistence.DecisionRequirementsDefinitionTable: {
		full: func() persistence.Entity {
			return &persistence.DecisionRequirementsDefinition{ID: "drd:1:x", Rev: 1, Key: "drd", Version: 1, Name: "Dish", Category: "ns",
				DeploymentID: "d1", ResourceName: "dish.dmn", DiagramResourceName: "dish.png", TenantID: "acme"}
		},
		sparse: func() persistence.Entity {
			return &persistence.DecisionRequirementsDefinition{ID: "drd:2:x", Key: "drd", Version: 2, DeploymentID: "d1"}
		},
		modify: func(e persistence.Entity) { e.(*persistence.DecisionRequirementsDefinition).Name = "other" },
	},
	persistence.DecisionDefinitionTable: {
		full: func() persistence.Entity {
			return &persistence.DecisionDefinition{ID: "dish:1:x", Rev: 1, Key: "dish", Version: 1, Name: "Dish", Category: "ns",
				DeploymentID: "d1", ResourceName: "dish.dmn", DiagramResourceName: "dish.png", DecisionRequirementsDefinitionID: "drd:1:x",
				DecisionRequirementsDefinitionKey: "drd", VersionTag: "v1", HistoryTimeToLive: ptr(5), TenantID: "acme"}
		},
		sparse: func() persistence.Entity {
			return &persistence.DecisionDefinition{ID: "dish:2:x", Key: "dish", Version: 2, DeploymentID: "d1"}
		},
		modify: func(e persistence.Entity) { e.(*persistence.DecisionDefinition).HistoryTimeToLive = nil },
	},
	persistence.HistoricDecisionInstanceTable: {
		full: func() persistence.Entity {
			return &persistence.HistoricDecisionInstance{ID: "hdi1", Rev: 1, DecisionDefinitionID: "dish:1:x", DecisionDefinitionKey: "dish",
				DecisionDefinitionName: "Dish", EvaluationTime: at(25, 0), ProcessDefinitionID: "p:1:x", ProcessDefinitionKey: "p",
				ProcessInstanceID: "pi", RootProcessInstanceID: "pi", ExecutionID: "e1", ActivityID: "rule", ActivityInstanceID: "rule:1",
				CollectResultValue: 2.5, HasCollectResult: true, RootDecisionInstanceID: "hdi0", DecisionRequirementsDefinitionID: "drd:1:x",
				DecisionRequirementsDefinitionKey: "drd", TenantID: "acme", RemovalTime: ptr(at(26, 0))}
		},
		sparse: func() persistence.Entity {
			return &persistence.HistoricDecisionInstance{ID: "hdi2", DecisionDefinitionID: "dish:1:x", DecisionDefinitionKey: "dish", EvaluationTime: at(25, 1)}
		},
		modify: func(e persistence.Entity) { e.(*persistence.HistoricDecisionInstance).RemovalTime = nil },
	},
	persistence.HistoricDecisionInputTable: {
		full: func() persistence.Entity {
			return &persistence.HistoricDecisionInput{Variable: persistence.Variable{ID: "hdin1", Rev: 1, Name: "Season", Type: persistence.VarString,
				ExecutionID: "e1", ProcessInstanceID: "pi", TaskID: "t1", Text: "Winter", Long: 1, Double: 0.5, Time: at(25, 1), Bytes: []byte("b"),
				ValueType: "Object", ValueInfo: "{}"}, DecisionInstanceID: "hdi1", ClauseID: "in1", CreateTime: at(25, 0)}
		},
		sparse: func() persistence.Entity {
			return &persistence.HistoricDecisionInput{Variable: persistence.Variable{ID: "hdin2", Type: persistence.VarNull}, DecisionInstanceID: "hdi1", CreateTime: at(25, 0)}
		},
		modify: func(e persistence.Entity) { e.(*persistence.HistoricDecisionInput).ClauseID = "in2" },
	},
	persistence.HistoricDecisionOutputTable: {
		full: func() persistence.Entity {
			return &persistence.HistoricDecisionOutput{Variable: persistence.Variable{ID: "hdout1", Rev: 1, Name: "dish", Type: persistence.VarLong,
				ExecutionID: "e1", ProcessInstanceID: "pi", TaskID: "t1", Text: "x", Long: 7, Double: 0.5, Time: at(25, 1), Bytes: []byte("b"),
				ValueType: "Object", ValueInfo: "{}"}, DecisionInstanceID: "hdi1", ClauseID: "out1", ClauseName: "Dish", RuleID: "r1", RuleOrder: 2, CreateTime: at(25, 0)}
		},
		sparse: func() persistence.Entity {
			return &persistence.HistoricDecisionOutput{Variable: persistence.Variable{ID: "hdout2", Type: persistence.VarNull}, DecisionInstanceID: "hdi1", CreateTime: at(25, 0)}
		},
		modify: func(e persistence.Entity) { e.(*persistence.HistoricDecisionOutput).RuleOrder = 3 },
	},
	persistence.MeterLogTable: {
		full: func() persistence.Entity {
			return &persistence.MeterLog{ID: "m1", Name: "job-successful", Reporter: "host$default", Value: 42, Timestamp: at(24, 0)}
		},
		sparse: func() persistence.Entity {
			return &persistence.MeterLog{ID: "m2", Name: "job-failed", Timestamp: at(24, 1)}
		},
	},
	persistence.JobLogTable: {
		full: func() persistence.Entity {
			return &persistence.JobLogEntry{ID: "l1", JobID: "j1", Event: "failed", Timestamp: at(23, 1), LockOwner: "node1",
				Retries: 2, Message: "boom", JobDefinitionID: "jd1", ActivityID: "a", ProcessInstanceID: "pi", Priority: 7,
				ExecutionStart: ptr(at(23, 0)), ExecutionID: "e1", ProcessDefinitionID: "p:1:x", ProcessDefinitionKey: "p",
				DeploymentID: "d1", RootProcessInstanceID: "root", JobDueDate: ptr(at(22, 0)), FailedActivityID: "b",
				ExceptionStack: "boom\n\tat a", JobDefinitionType: "async-continuation", JobDefinitionConfiguration: "async-before"}
		},
		sparse: func() persistence.Entity {
			return &persistence.JobLogEntry{ID: "l2", JobID: "j1", Event: "created", Timestamp: at(23, 2)}
		},
	},
	persistence.HistoricDetailTable: {
		full: func() persistence.Entity {
			return &persistence.HistoricDetail{ID: "hd1", Rev: 1, Name: "amount", Type: "long",
				ExecutionID: "e1", ProcessInstanceID: "pi", TaskID: "t1", Text: "x", Long: 5, Double: 1.5, ValueTime: at(25, 0), Bytes: []byte{1},
				VariableInstanceID: "v1", ProcessDefinitionID: "p:1:x", ProcessDefinitionKey: "p", ActivityInstanceID: "a:1",
				Time: at(25, 1), Revision: 2, Initial: true, FormField: true}
		},
		sparse: func() persistence.Entity {
			return &persistence.HistoricDetail{ID: "hd2", Name: "n", Type: "null", Time: at(25, 2)}
		},
		modify: func(e persistence.Entity) {
			d := e.(*persistence.HistoricDetail)
			d.Long, d.Revision, d.Initial, d.FormField = 6, 3, false, false
		},
	},
	persistence.ExternalTaskLogTable: {
		full: func() persistence.Entity {
			return &persistence.ExternalTaskLogEntry{ID: "el1", ExternalTaskID: "et1", Event: "failed", Timestamp: at(24, 1),
				Topic: "pack", WorkerID: "w1", Priority: 3, Retries: ptr(2), ErrorMessage: "no box", ErrorDetails: "details",
				ActivityID: "a", ActivityInstanceID: "a:1", ExecutionID: "e1", ProcessInstanceID: "pi",
				ProcessDefinitionID: "p:1:x", ProcessDefinitionKey: "p"}
		},
		sparse: func() persistence.Entity {
			return &persistence.ExternalTaskLogEntry{ID: "el2", ExternalTaskID: "et1", Event: "created", Timestamp: at(24, 2)}
		},
	},
}

// TestTableMetadata checks that every entity maps each of its fields to one
// column, in order, so that no field is silently left out of the schema.
func TestTableMetadata(t *testing.T) {
	tables := persistence.Tables()
	if len(tables) != len(samples) {
		t.Fatalf("%d tables, %d samples", len(tables), len(samples))
	}
	prev := 0
	for _, tab := range tables {
		s, ok := samples[tab]
		if !ok {
			t.Fatalf("no sample for table %s", tab.Name)
		}
		if tab.Order < prev {
			t.Errorf("Tables() not in flush order at %s", tab.Name)
		}
		prev = tab.Order
		e := s.full()
		if persistence.TableOf(e) != tab || persistence.TableOf(tab.New()) != tab {
			t.Errorf("%s: entity and table disagree", tab.Name)
		}
		typ := reflect.TypeOf(e).Elem()
		if typ.Name() != tab.EntityName {
			t.Errorf("%s: EntityName %q, type %s", tab.Name, tab.EntityName, typ.Name())
		}
		v := reflect.ValueOf(e).Elem()
		// The column fields, an embedded struct's (HistoricVariable
		// embeds Variable) in its place.
		var fields []reflect.StructField
		for _, f := range reflect.VisibleFields(typ) {
			if !f.Anonymous {
				fields = append(fields, f)
			}
		}
		if len(fields) != len(tab.Columns) || len(persistence.Values(e)) != len(tab.Columns) || len(persistence.Targets(e)) != len(tab.Columns) {
			t.Errorf("%s: %d fields, %d columns, %d values, %d targets", tab.Name, len(fields), len(tab.Columns), len(persistence.Values(e)), len(persistence.Targets(e)))
			continue
		}
		if tab.Columns[0] != "id" {
			t.Errorf("%s: first column %q", tab.Name, tab.Columns[0])
		}
		if hasRev := tab.Columns[1] == "rev"; hasRev == tab.Immutable {
			t.Errorf("%s: immutable %v but rev column %v", tab.Name, tab.Immutable, hasRev)
		}
		// The full sample sets every field, so a round trip checks them all.
		for _, f := range fields {
			if v.FieldByIndex(f.Index).IsZero() {
				t.Errorf("%s: full sample leaves %s zero", tab.Name, f.Name)
			}
		}
		// Targets point into the entity in column order. (The column names
		// are checked against the schema by TestColumnsMatchSchema.)
		for i, target := range persistence.Targets(e) {
			if reflect.ValueOf(target).Pointer() != v.FieldByIndex(fields[i].Index).Addr().Pointer() {
				t.Errorf("%s: target %d is not field %s", tab.Name, i, fields[i].Name)
			}
		}
	}
}

// TestValuesConventions checks the column conventions (tables.go) on the
// values an insert binds: the id as it is, other empty strings and empty
// bytes as NULL, nil pointers as typed nil pointers (NULL to both
// backends), other values as they are.
func TestValuesConventions(t *testing.T) {
	due := at(1, 2)
	cases := []struct {
		e    persistence.Entity
		want map[string]any
	}{
		{&persistence.Variable{Name: "n", Long: 300, Bytes: []byte{}}, map[string]any{
			"id": "", "rev": 0, "name": "n", "type": nil, "task_id": nil, "text_value": nil,
			"long_value": int64(300), "double_value": 0.0, "time_value": time.Time{}, "bytes_value": nil}},
		{&persistence.Job{ID: "j", Rev: 2, Exclusive: true, DueDate: &due, Priority: -1}, map[string]any{
			"id": "j", "rev": 2, "lock_owner": nil, "lock_expiration": (*time.Time)(nil), "exclusive": true,
			"due_date": &due, "priority": int64(-1)}},
		{&persistence.ProcessDefinition{HistoryTimeToLive: ptr(0)}, map[string]any{
			"id": "", "history_time_to_live": ptr(0)}},
		{&persistence.JobDefinition{}, map[string]any{"overriding_priority": (*int64)(nil)}},
		{&persistence.Resource{Bytes: []byte("x")}, map[string]any{"bytes": []byte("x"), "hash": nil}},
	}
	for _, c := range cases {
		tab := persistence.TableOf(c.e)
		values := persistence.Values(c.e)
		for col, want := range c.want {
			i := slices.Index(tab.Columns, col)
			if i < 0 {
				t.Fatalf("%s has no column %s", tab.Name, col)
			}
			if got := values[i]; !reflect.DeepEqual(got, want) {
				t.Errorf("%s.%s: value %#v, want %#v", tab.Name, col, got, want)
			}
		}
	}
}

// TestColumnsMatchSchema checks each table's columns, derived from its
// entity's fields, against the columns the migrations created, on both
// backends: a field that names no column, or a column no field declares,
// fails here rather than at the first insert.
func TestColumnsMatchSchema(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		for _, tab := range persistence.Tables() {
			schema := schemaColumns(t, db, tab.Name)
			for _, col := range tab.Columns {
				if !slices.Contains(schema, col) {
					t.Errorf("%s: %s declares column %s, which the migrations do not create", tab.Name, tab.EntityName, col)
				}
			}
			for _, col := range schema {
				if !slices.Contains(tab.Columns, col) {
					t.Errorf("%s: no field of %s declares column %s", tab.Name, tab.EntityName, col)
				}
			}
		}
	})
}

// schemaColumns returns the columns of table as the database has them.
func schemaColumns(t *testing.T, db persistence.DB, table string) []string {
	ctx := t.Context()
	tx, err := db.Begin(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	query := "SELECT name FROM pragma_table_info($1)"
	if tx.Dialect() == persistence.Postgres {
		query = "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1"
	}
	rows, err := tx.Query(ctx, query, table)
	if err != nil {
		t.Fatalf("columns of %s: %v", table, err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var col string
		if err := rows.Scan(&col); err != nil {
			t.Fatalf("columns of %s: %v", table, err)
		}
		cols = append(cols, col)
	}
	if err := rows.Err(); err != nil || len(cols) == 0 {
		t.Fatalf("columns of %s: %v, %d columns", table, err, len(cols))
	}
	return cols
}

func TestRoundTrip(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx := t.Context()
		tx, err := db.Begin(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		for _, tab := range persistence.Tables() {
			s := samples[tab]
			for _, mk := range []func() persistence.Entity{s.full, s.sparse} {
				e := mk()
				if err := persistence.Insert(ctx, tx, e); err != nil {
					t.Fatalf("insert %s: %v", tab.Name, err)
				}
				if persistence.Revision(e) != 1 {
					t.Errorf("%s: revision %d after insert, want 1", tab.Name, persistence.Revision(e))
				}
				got, err := persistence.Get(ctx, tx, tab, persistence.EntityID(e))
				if err != nil {
					t.Fatalf("get %s: %v", tab.Name, err)
				}
				if !reflect.DeepEqual(got, e) {
					t.Errorf("%s round trip:\n got %+v\nwant %+v", tab.Name, got, e)
				}
				sel, err := persistence.SelectWhere(ctx, tx, tab, "WHERE id = $1", persistence.EntityID(e))
				if err != nil || len(sel) != 1 || !reflect.DeepEqual(sel[0], e) {
					t.Errorf("select %s: %v %+v", tab.Name, err, sel)
				}
			}
			all, err := persistence.SelectWhere(ctx, tx, tab, "ORDER BY id")
			if err != nil || len(all) != 2 {
				t.Errorf("select all %s: %v, %d rows", tab.Name, err, len(all))
			}

			e := s.full()
			if tab.Immutable {
				if err := persistence.Update(ctx, tx, e); err == nil || !strings.Contains(err.Error(), "immutable") {
					t.Errorf("update of immutable %s: %v", tab.Name, err)
				}
			} else {
				persistence.SetRevision(e, 1)
				s.modify(e)
				if reflect.DeepEqual(e, s.full()) {
					t.Fatalf("%s: modify changed nothing", tab.Name)
				}
				if err := persistence.Update(ctx, tx, e); err != nil {
					t.Fatalf("update %s: %v", tab.Name, err)
				}
				if persistence.Revision(e) != 2 {
					t.Errorf("%s: revision %d after update, want 2", tab.Name, persistence.Revision(e))
				}
				got, err := persistence.Get(ctx, tx, tab, persistence.EntityID(e))
				if err != nil || !reflect.DeepEqual(got, e) {
					t.Errorf("%s after update: %v\n got %+v\nwant %+v", tab.Name, err, got, e)
				}
			}
			if err := persistence.Delete(ctx, tx, e); err != nil {
				t.Fatalf("delete %s: %v", tab.Name, err)
			}
			if _, err := persistence.Get(ctx, tx, tab, persistence.EntityID(e)); !errors.Is(err, persistence.ErrNotFound) {
				t.Errorf("get deleted %s: %v, want ErrNotFound", tab.Name, err)
			}
		}
	})
}

func TestTypedHelpers(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx := t.Context()
		tx, err := db.Begin(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		for i, act := range []string{"b", "a", "c"} {
			e := &persistence.Execution{ID: "e" + act, ProcessInstanceID: "pi", ProcessDefinitionID: "p", ActivityID: act, StartTime: at(i, 0)}
			if err := persistence.Insert(ctx, tx, e); err != nil {
				t.Fatal(err)
			}
		}
		got, err := persistence.SelectAs[*persistence.Execution](ctx, tx, "WHERE process_instance_id = $1 ORDER BY start_time DESC", "pi")
		if err != nil {
			t.Fatal(err)
		}
		var acts []string
		for _, e := range got {
			acts = append(acts, e.ActivityID)
		}
		if strings.Join(acts, "") != "cab" {
			t.Errorf("activities %v, want c a b", acts)
		}
		e, err := persistence.GetAs[*persistence.Execution](ctx, tx, "ea")
		if err != nil || e.ActivityID != "a" {
			t.Errorf("GetAs: %v %+v", err, e)
		}
		if _, err := persistence.GetAs[*persistence.Task](ctx, tx, "ea"); !errors.Is(err, persistence.ErrNotFound) || !strings.Contains(err.Error(), "Task[ea]") {
			t.Errorf("GetAs missing: %v", err)
		}
		none, err := persistence.SelectAs[*persistence.Task](ctx, tx, "WHERE process_instance_id = $1", "pi")
		if err != nil || len(none) != 0 {
			t.Errorf("empty select: %v %v", err, none)
		}
		if _, err := persistence.SelectWhere(ctx, tx, persistence.TaskTable, "WHERE no_such_column = 1"); err == nil || !strings.Contains(err.Error(), "select task") {
			t.Errorf("bad where: %v", err)
		}
	})
}

// TestTimes checks that times are stored at microsecond precision and come
// back in UTC on both backends.
func TestTimes(t *testing.T) {
	testdb.Run(t, func(t *testing.T, db persistence.DB) {
		ctx := t.Context()
		tx, err := db.Begin(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		zone := time.FixedZone("UTC+5:30", 5*3600+1800)
		start := time.Date(2024, 2, 29, 23, 59, 59, 123456789, zone)
		due := time.Date(1969, 7, 20, 20, 17, 40, 999, zone) // before the epoch
		task := &persistence.Task{ID: "t", CreateTime: start, DueDate: &due, Suspension: persistence.Active}
		if err := persistence.Insert(ctx, tx, task); err != nil {
			t.Fatal(err)
		}
		got, err := persistence.GetAs[*persistence.Task](ctx, tx, "t")
		if err != nil {
			t.Fatal(err)
		}
		if want := start.UTC().Truncate(time.Microsecond); got.CreateTime != want {
			t.Errorf("create time %v, want %v", got.CreateTime, want)
		}
		if want := due.UTC().Truncate(time.Microsecond); got.DueDate == nil || *got.DueDate != want {
			t.Errorf("due date %v, want %v", got.DueDate, want)
		}
		// Time arguments compare at the same precision.
		rows, err := persistence.SelectAs[*persistence.Task](ctx, tx, "WHERE create_time = $1 AND due_date < $2", start.Truncate(time.Microsecond), start)
		if err != nil || len(rows) != 1 {
			t.Errorf("select by time: %v, %d rows", err, len(rows))
		}
	})
}
