package bpmn

// Position is a place in a BPMN file, 1-based.
type Position struct {
	Line   int
	Column int
}

// Kind names the BPMN element type of an activity, as spelled in the XML.
type Kind string

// Element kinds the engine executes.
const (
	StartEvent             Kind = "startEvent"
	EndEvent               Kind = "endEvent"
	IntermediateCatchEvent Kind = "intermediateCatchEvent"
	IntermediateThrowEvent Kind = "intermediateThrowEvent"
	BoundaryEvent          Kind = "boundaryEvent"
	Task                   Kind = "task"
	ServiceTask            Kind = "serviceTask"
	BusinessRuleTask       Kind = "businessRuleTask"
	SendTask               Kind = "sendTask"
	UserTask               Kind = "userTask"
	ReceiveTask            Kind = "receiveTask"
	ManualTask             Kind = "manualTask"
	ExclusiveGateway       Kind = "exclusiveGateway"
	ParallelGateway        Kind = "parallelGateway"
	InclusiveGateway       Kind = "inclusiveGateway"
	EventBasedGateway      Kind = "eventBasedGateway"
	SubProcess             Kind = "subProcess"
	CallActivity           Kind = "callActivity"
	ScriptTask             Kind = "scriptTask"
)

// EventType is the event definition carried by an event.
type EventType int

// Event definitions the engine executes.
const (
	NoEvent EventType = iota
	TimerEvent
	MessageEvent
	SignalEvent
	ErrorEvent
	TerminateEvent
	LinkEvent
	EscalationEvent
	ConditionalEvent
	CompensationEvent
	CancelEvent // cancel end events in transactions, cancel boundary events on them
)

func (t EventType) String() string {
	switch t {
	case TimerEvent:
		return "timer"
	case MessageEvent:
		return "message"
	case SignalEvent:
		return "signal"
	case ErrorEvent:
		return "error"
	case TerminateEvent:
		return "terminate"
	case LinkEvent:
		return "link"
	case EscalationEvent:
		return "escalation"
	case ConditionalEvent:
		return "conditional"
	case CompensationEvent:
		return "compensation"
	case CancelEvent:
		return "cancel"
	}
	return "none"
}

// Definitions is the parsed content of one BPMN file.
type Definitions struct {
	File string
	// TargetNamespace is the definitions' targetNamespace (Camunda's
	// category of their process definitions).
	TargetNamespace string
	Processes       []*Process // executable processes, in document order
	// Skipped lists processes that are not executable (isExecutable="false"
	// or missing, or a process without flow elements); they are not deployed.
	Skipped     []SkippedProcess
	Messages    map[string]*Message    // by id
	Signals     map[string]*Signal     // by id
	Errors      map[string]*Error      // by id
	Escalations map[string]*Escalation // by id
	// Warnings are findings that do not stop a deployment: a malformed
	// failedJobRetryTimeCycle (jobs get the default retries), a default flow
	// with a condition, Camunda extensions bpmnlite ignores, a file without
	// executable process...
	Warnings []Problem
}

// Process returns the executable process with the given id, or nil.
func (d *Definitions) Process(id string) *Process {
	for _, p := range d.Processes {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// SkippedProcess is a process left out of a deployment, with the reason.
type SkippedProcess struct {
	ID     string
	Reason string
	Pos    Position
}

// Message is a <message> root element.
type Message struct{ ID, Name string }

// Signal is a <signal> root element.
type Signal struct{ ID, Name string }

// Escalation is an <escalation> root element.
type Escalation struct{ ID, Name, Code string }

// Error is an <error> root element.
type Error struct {
	ID, Name string
	// Code and Message (camunda:errorMessage) may be expressions, evaluated
	// when an error end event throws the error.
	Code, Message string
}

// Process is one executable <process>.
type Process struct {
	ID           string
	Name         string
	Pos          Position
	JobPriority  string // camunda:jobPriority: constant or expression; "" when absent
	TaskPriority string // camunda:taskPriority, for external tasks
	VersionTag   string // camunda:versionTag
	// Documentation is the text of the process's documentation elements.
	Documentation string
	// NotStartableInTasklist: camunda:isStartableInTasklist="false".
	NotStartableInTasklist bool
	// CandidateStarterGroups and CandidateStarterUsers are
	// camunda:candidateStarterGroups and candidateStarterUsers, as written.
	CandidateStarterGroups, CandidateStarterUsers string
	// HistoryTimeToLive is camunda:historyTimeToLive in days; nil when absent.
	HistoryTimeToLive *int
	// Initiator is the camunda:initiator of a start event of the process:
	// the variable each new instance gets the authenticated user's id in.
	Initiator string
	// Activities and Flows directly inside the process (not inside subprocesses).
	Activities []*Activity
	Flows      []*SequenceFlow
	Listeners  []Listener // process-level start/end listeners
	// HasConditionalEvents: some event waits for a condition, so variable
	// changes of the process's instances are checked against conditions.
	HasConditionalEvents bool
	// HasCompensation: some activity has a compensation handler, so scopes
	// that end drop what they kept to compensate.
	HasCompensation bool

	eventStarts []*Activity          // of the event subprocesses directly inside, found once when parsed
	activities  map[string]*Activity // every activity of the process, at any depth
	flows       map[string]*SequenceFlow
}

// String names the process for messages: "process 'order'".
func (p *Process) String() string { return "process '" + p.ID + "'" }

// Activity looks up an activity (any flow node: event, task, gateway,
// subprocess) anywhere in the process by id.
func (p *Process) Activity(id string) *Activity { return p.activities[id] }

// Flow looks up a sequence flow anywhere in the process by id.
func (p *Process) Flow(id string) *SequenceFlow { return p.flows[id] }

// AllActivities returns every activity at any depth, in document order.
func (p *Process) AllActivities() []*Activity {
	var out []*Activity
	var walk func([]*Activity)
	walk = func(as []*Activity) {
		for _, a := range as {
			out = append(out, a)
			walk(a.Activities)
		}
	}
	walk(p.Activities)
	return out
}

// StartEvents returns the start events directly inside the process.
func (p *Process) StartEvents() []*Activity { return startEvents(p.Activities) }

func startEvents(as []*Activity) []*Activity {
	var out []*Activity
	for _, a := range as {
		if a.Kind == StartEvent {
			out = append(out, a)
		}
	}
	return out
}

// NoneStartEvent returns the start event without an event definition, or nil.
func (p *Process) NoneStartEvent() *Activity { return noneStart(p.Activities) }

// EventSubprocessStarts returns the start events of the event subprocesses
// directly inside the process: what the process instance arms when it starts.
func (p *Process) EventSubprocessStarts() []*Activity { return p.eventStarts }

func eventSubprocessStarts(as []*Activity) []*Activity {
	var out []*Activity
	for _, a := range as {
		if a.TriggeredByEvent {
			out = append(out, startEvents(a.Activities)...)
		}
	}
	return out
}

// IsEventSubprocessStart reports whether a is the start event of an event
// subprocess: it is armed on the enclosing scope's execution, not reached
// by a path.
func (a *Activity) IsEventSubprocessStart() bool {
	return a.Kind == StartEvent && a.Parent != nil && a.Parent.TriggeredByEvent
}

// EventSubprocessStarts returns the start events of the event subprocesses
// directly inside subprocess a.
func (a *Activity) EventSubprocessStarts() []*Activity { return a.eventStarts }

// IsWithin reports whether a is outer or lies inside it.
func (a *Activity) IsWithin(outer *Activity) bool {
	for p := a; p != nil; p = p.Parent {
		if p == outer {
			return true
		}
	}
	return false
}

func noneStart(as []*Activity) *Activity {
	for _, a := range startEvents(as) {
		if a.Event == NoEvent {
			return a
		}
	}
	return nil
}

// Activity is any flow node: event, task, gateway, subprocess or call activity.
type Activity struct {
	ID      string
	Name    string
	Kind    Kind
	Pos     Position
	Process *Process
	Parent  *Activity // enclosing subprocess; nil at process level

	// Form is a user task's or start event's form (camunda:formKey,
	// camunda:formRef, camunda:formData); nil on other elements.
	Form *Form

	// Content of a subprocess.
	Activities []*Activity
	Flows      []*SequenceFlow
	// TriggeredByEvent marks an event subprocess: it has no sequence flows
	// and runs when its start event fires in the enclosing scope.
	TriggeredByEvent bool
	// CompensationEventSubprocess is the event subprocess with a
	// compensation start event inside this subprocess: its compensation
	// handler, run with what the subprocess kept when it is compensated.
	CompensationEventSubprocess *Activity
	// Transaction marks a transaction subprocess (kind SubProcess): a
	// cancel end event inside compensates what it completed, then leaves
	// it by its cancel boundary event.
	Transaction bool

	Incoming    []*SequenceFlow
	Outgoing    []*SequenceFlow
	DefaultFlow *SequenceFlow // exclusive/inclusive gateways and tasks

	// Asynchronous continuations and job settings (Camunda extensions).
	AsyncBefore    bool
	AsyncAfter     bool
	Exclusive      bool   // camunda:exclusive, default true
	JobPriority    string // camunda:jobPriority, constant or expression
	RetryTimeCycle string // camunda:failedJobRetryTimeCycle (or fox:)

	// Event definition (start, end, intermediate and boundary events).
	Event       EventType
	Timer       *TimerDefinition
	MessageName string // resolved from messageRef (the message's name, else its id)
	SignalName  string // resolved from signalRef
	ErrorCode   string // resolved from errorRef; "" on a boundary catches every error
	// ErrorMessage is the thrown error's camunda:errorMessage (error end events).
	ErrorMessage string
	// EscalationCode is the escalation's code, resolved from escalationRef;
	// "" on a boundary event catches every escalation.
	EscalationCode string
	// ErrorCodeVariable and ErrorMessageVariable (camunda:, on an error
	// boundary event's definition) receive the caught error's code and message.
	ErrorCodeVariable, ErrorMessageVariable string
	// EscalationCodeVariable (camunda:, on a catching escalation event's
	// definition) receives the caught escalation's code.
	EscalationCodeVariable string
	// Condition is a conditional event's condition (an expression);
	// ConditionVariable (camunda:variableName) and ConditionVariableEvents
	// (camunda:variableEvents: create, update, delete) limit the variable
	// changes that evaluate it; empty: every change.
	Condition               string
	ConditionScript         *Script // a condition with a script language
	ConditionVariable       string
	ConditionVariableEvents []string
	// LinkName is a link event's name; LinkTarget, on a throwing link, the
	// catching link of the same name in the same scope, where it continues.
	LinkName   string
	LinkTarget *Activity

	// Boundary events; CancelActivity is also an event subprocess start
	// event's isInterrupting.
	AttachedTo     *Activity
	CancelActivity bool        // interrupting (default true)
	Boundaries     []*Activity // boundary events attached to this activity, but for compensation

	// Compensation. IsForCompensation marks a compensation handler (an
	// activity outside the sequence flows). CompensationHandler is, on an
	// activity with a compensation boundary event, the handler its
	// association names: it runs once per completion of the activity when
	// compensation is thrown. CompensateActivity is, on a throwing
	// compensation event, the activityRef it compensates ("" for its whole
	// scope).
	IsForCompensation   bool
	CompensationHandler *Activity
	CompensateActivity  string

	// Implementation of service/send tasks, and of listeners' targets.
	Class              string // camunda:class
	DelegateExpression string // camunda:delegateExpression
	Expression         string // camunda:expression
	ResultVariable     string // camunda:resultVariable
	External           bool   // camunda:type="external"
	Topic              string // camunda:topic
	TaskPriority       string // camunda:taskPriority
	// ExternalErrors are an external task's camunda:errorEventDefinition,
	// in order: when the task is completed or fails, the first whose
	// expression is true throws its error instead.
	ExternalErrors []ExternalError
	// Properties are the camunda:properties of the element, in document
	// order: an external task hands them to its worker as headers.
	Properties []Property
	// Fields are the camunda:field elements injected into its delegate.
	Fields []Field
	// Script is what a script task runs (its result goes to ResultVariable).
	Script *Script

	// User is what a user task adds (nil for the other kinds), Call what a
	// call activity adds: kept apart so that the many activities of other
	// kinds do not carry their fields (an activity of a parsed model is
	// most of the memory it holds).
	User *UserTaskInfo
	Call *CallInfo
	// Decision is what a business rule task with camunda:decisionRef adds
	// (nil for one implemented as a service task is: class, expression,
	// delegate expression or external).
	Decision *DecisionRef

	MultiInstance *MultiInstance
	Listeners     []Listener // start and end listeners

	// IO is the activity's camunda:inputOutput; nil when it has none.
	IO *InputOutput

	eventStarts []*Activity // a subprocess's event subprocess start events, found once when parsed
}

// UserTaskInfo is what a user task adds to an activity. Each field may be
// an expression; DueDate and FollowUpDate are ISO 8601 dates or durations
// (from the task's creation), Priority an integer. Its form is the
// activity's Form.
type UserTaskInfo struct {
	Assignee        string
	CandidateGroups string
	CandidateUsers  string
	DueDate         string
	FollowUpDate    string
	Priority        string
	// TaskListeners are camunda:taskListener (create, assignment,
	// update, complete, delete, timeout).
	TaskListeners []Listener
}

// Form is the form of a user task or start event, as Camunda 7 defines
// it. Key is camunda:formKey (may be an expression); Ref, RefBinding
// ("latest", "deployment" or "version", "" for latest) and RefVersion are
// camunda:formRef, camunda:formRefBinding and camunda:formRefVersion (Ref
// and RefVersion may be expressions). Fields are the camunda:formField
// elements of camunda:formData, BusinessKeyField its businessKey
// attribute (a start form's field whose value is the business key).
type Form struct {
	Key                         string
	Ref, RefBinding, RefVersion string
	Fields                      []FormField
	BusinessKeyField            string
	// Properties are the legacy camunda:formProperty elements.
	Properties []FormProperty
}

// FormProperty is a legacy camunda:formProperty: its id, name (Label),
// type (none: values pass as they are), datePattern, enum values and
// default (an expression or a constant) in Field, whether it is required,
// readable and writable, and the variable it sets (Variable, else its id).
type FormProperty struct {
	Field                        FormField
	Required, Readable, Writable bool
	Variable                     string
}

// FormField is a camunda:formField: its id (the variable), label and
// default value (each may be an expression), type ("string", "long",
// "boolean", "date" with DatePattern, default dd/MM/yyyy, or "enum" with
// Values), validation constraints and properties, in the model's order.
type FormField struct {
	ID, Label, Type, DefaultValue string
	DatePattern                   string
	Values                        []FormValue
	Constraints                   []FormConstraint
	Properties                    []Property
}

// FormValue is a camunda:value of an enum form field.
type FormValue struct{ ID, Name string }

// FormConstraint is a camunda:constraint of a form field: Name is
// required, readonly, minlength, maxlength, min or max; Config its
// config attribute.
type FormConstraint struct{ Name, Config string }

// CallInfo is what a call activity adds to an activity. CalledBinding
// (camunda:calledElementBinding) picks the called version: "latest" (the
// default), "deployment" (the one deployed with the caller), "version"
// (CalledVersion, a number or an expression) or "versionTag" (the latest
// with CalledVersionTag).
type CallInfo struct {
	CalledElement    string
	CalledBinding    string
	CalledVersion    string
	CalledVersionTag string
	In               []VariableMapping
	Out              []VariableMapping
	// VariableMappingClass and VariableMappingDelegateExpression
	// (camunda:) name a Go variable mapping run after In and after Out:
	// a registered bean's name, or an expression resolving to one.
	VariableMappingClass, VariableMappingDelegateExpression string
}

// DecisionRef is the decision a business rule task evaluates:
// camunda:decisionRef (Key, a name or an expression), its binding as
// CallInfo's (latest, deployment, version with Version, versionTag with
// VersionTag), camunda:decisionRefTenantId (TenantID, "": the process's
// tenant) and camunda:mapDecisionResult (MapResult: singleEntry,
// singleResult, collectEntries or resultList, the default); the mapped
// result goes to the activity's ResultVariable.
type DecisionRef struct {
	Key        string
	Binding    string
	Version    string
	VersionTag string
	TenantID   string
	MapResult  string
}

// String names the activity for messages: "serviceTask 'charge'".
func (a *Activity) String() string { return a.typeName() + " '" + a.ID + "'" }

// typeName is the element's name in messages: its kind, or "transaction".
func (a *Activity) typeName() string {
	if a.Transaction {
		return "transaction"
	}
	return string(a.Kind)
}

// IsScope reports whether the activity opens a variable and event scope of
// its own: subprocesses, activities with boundary events, and, as Camunda
// makes them, activities with input/output mappings (but for the inner
// activity of a multi-instance one: its instances are isolated already).
func (a *Activity) IsScope() bool {
	return a.Kind == SubProcess || len(a.Boundaries) > 0 || a.HasIOScope()
}

// HasIOScope reports whether the activity runs in a scope execution of its
// own because of its input/output mappings.
func (a *Activity) HasIOScope() bool { return a.IO != nil && a.MultiInstance == nil }

// NoneStartEvent returns a subprocess's start event, or nil.
func (a *Activity) NoneStartEvent() *Activity { return noneStart(a.Activities) }

// InitialEvent returns where a subprocess's path starts: its none start
// event, or an event subprocess's only start event.
func (a *Activity) InitialEvent() *Activity {
	if starts := startEvents(a.Activities); a.TriggeredByEvent && len(starts) == 1 {
		return starts[0]
	}
	return a.NoneStartEvent()
}

// MultiInstanceBodyID is the id under which the multi-instance body of an
// activity appears in jobs, job definitions and history.
func (a *Activity) MultiInstanceBodyID() string { return a.ID + "#multiInstanceBody" }

// TimerType tells how a timer definition's value is read.
type TimerType int

// Timer definition kinds.
const (
	TimeDate TimerType = iota + 1
	TimeDuration
	TimeCycle
)

var timerTypeNames = [...]string{TimeDate: "DATE", TimeDuration: "DURATION", TimeCycle: "CYCLE"}

func (t TimerType) String() string {
	if t > 0 && int(t) < len(timerTypeNames) {
		return timerTypeNames[t]
	}
	return "?"
}

// TimerDefinition is a timerEventDefinition: one of timeDate, timeDuration,
// timeCycle. Value is the raw text: a constant (validated at parse time) or an
// expression evaluated when the timer is created.
type TimerDefinition struct {
	Type  TimerType
	Value string
}

// MultiInstance is multiInstanceLoopCharacteristics.
type MultiInstance struct {
	Sequential          bool
	LoopCardinality     string // constant or expression
	Collection          string // camunda:collection: a variable name or an expression
	ElementVariable     string // camunda:elementVariable
	CompletionCondition string
	// Async settings of each inner instance (attributes on the loop
	// characteristics element); the activity's own settings apply to the body.
	AsyncBefore    bool
	AsyncAfter     bool
	Exclusive      bool
	RetryTimeCycle string
}

// VariableMapping is a camunda:in or camunda:out of a call activity.
type VariableMapping struct {
	Source           string // variable name to read
	SourceExpression string // or an expression to evaluate
	Target           string // variable name to write
	All              bool   // variables="all"
	Local            bool   // local="true"
	BusinessKey      string // camunda:in businessKey="..." (expression)
}

// InputOutput is camunda:inputOutput. Input parameters become local
// variables of the activity when it starts; output parameters, evaluated in
// the activity when it completes, are set outside it.
type InputOutput struct {
	Pos     Position
	Inputs  []Parameter
	Outputs []Parameter
}

// Parameter is a camunda:inputParameter or camunda:outputParameter.
type Parameter struct {
	Name  string
	Pos   Position
	Value Value
}

// ValueKind tells what a parameter value is.
type ValueKind int

// Parameter value kinds.
const (
	NullValue   ValueKind = iota // an empty parameter or entry
	TextValue                    // a constant or an expression, evaluated each time
	ListValue                    // camunda:list
	MapValue                     // camunda:map
	ScriptValue                  // camunda:script, run each time
)

// Value is the value of a parameter, of a list item or of a map entry.
type Value struct {
	Kind    ValueKind
	Text    string     // TextValue
	Items   []Value    // ListValue
	Entries []MapEntry // MapValue, in document order
	Script  *Script    // ScriptValue
}

// MapEntry is a camunda:entry of a camunda:map; its key is a constant or
// an expression.
type MapEntry struct {
	Key   string
	Value Value
}

// Listener is a camunda:executionListener.
type Listener struct {
	Event              string // start, end or take
	Class              string
	Expression         string
	DelegateExpression string
	Script             *Script // camunda:script
	Fields             []Field // camunda:field, injected into its delegate
	// ID and Timer are a timeout task listener's id and timer: a timer
	// job per task calls it while the task is open.
	ID    string
	Timer *TimerDefinition
}

// ExternalError is a camunda:errorEventDefinition of an external task:
// the error code it throws (its errorRef's, or the reference itself when
// it names no error, as Camunda resolves it) when Expression is true. An
// empty expression is never true.
type ExternalError struct {
	ErrorCode  string
	Expression string
}

// Field is a camunda:field injected into a delegate: a string, or an
// expression evaluated on the execution at each call.
type Field struct {
	Name       string
	Value      string
	Expression bool
}

// String names the flow for messages: "sequenceFlow 'toShip'".
func (f *SequenceFlow) String() string { return "sequenceFlow '" + f.ID + "'" }

// SequenceFlow is a sequenceFlow. Flows without an id in the XML get a
// generated id (their Generated flag is set).
type SequenceFlow struct {
	ID        string
	Name      string
	Generated bool
	Pos       Position
	Source    *Activity
	Target    *Activity
	Condition string // conditionExpression text; "" for an unconditional flow
	// ConditionScript is the condition's script when it has a script
	// language (Condition then holds its text, or its resource's name).
	ConditionScript *Script
	Listeners       []Listener // take listeners
}

// Property is one camunda:property (name and value as written).
type Property struct{ Name, Value string }

// HasImplementation reports whether the activity runs a delegate,
// expression or external task (service and send tasks; message throw and
// end events that name one).
func (a *Activity) HasImplementation() bool {
	return a.External || a.Class != "" || a.DelegateExpression != "" || a.Expression != ""
}
