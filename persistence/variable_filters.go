package persistence

import (
	"strings"
	"time"
)

// The variable lists: Camunda's variable instances (the variable table)
// and historic variable instances (hist_variable).

// variableTypeName is a variable's Camunda type name in lower case, as
// Camunda's variableTypeIn takes it: the declared one, else the one its
// value implies (see runtime.TypeOf).
const variableTypeName = "LOWER(COALESCE(value_type, CASE WHEN type = 'long' AND long_value BETWEEN -2147483648 AND 2147483647 THEN 'integer' ELSE type END))"

func init() { fragments["variableTypeName"] = variableTypeName }

// VariableFilter selects stored variables (not transient ones), by name.
type VariableFilter struct {
	Page               `sort:"variableName=name variableType={variableTypeName}"`
	ID                 string   `where:"id"`
	Name               string   `where:"name" param:"variableName"`
	NameLike           string   `where:"name like" param:"variableNameLike"`
	ProcessInstanceIDs []string `where:"process_instance_id in" param:"processInstanceIdIn"`
	ExecutionIDs       []string `where:"execution_id in" param:"executionIdIn"`
	TaskIDs            []string `where:"task_id in" param:"taskIdIn"`
	// ScopeIDs: the variables of these tasks (their local ones) and
	// executions (not their tasks').
	ScopeIDs []string `where:"COALESCE(task_id, execution_id) IN (?)" param:"variableScopeIdIn"`
	// Values: conditions on the variables' own values.
	Values                   VariableConditions `where:"variables" param:"variableValues"`
	VariableNamesIgnoreCase  bool               `param:"variableNamesIgnoreCase"`
	VariableValuesIgnoreCase bool               `param:"variableValuesIgnoreCase"`
}

func (f VariableFilter) Query() Query[*Variable] {
	return filterQuery[*Variable](f, time.Time{}, "name, id")
}

// HistoricVariableFilter selects variables' history, by name: the
// variables of running instances with their current values, those of
// ended scopes and instances as they were at the end.
type HistoricVariableFilter struct {
	Page                `sort:"instanceId=process_instance_id variableName=name"`
	ID                  string   `where:"id"`
	Name                string   `where:"name" param:"variableName"`
	NameLike            string   `where:"name like" param:"variableNameLike"`
	NameIn              []string `where:"name in" param:"variableNameIn"`
	TypeIn              []string `where:"{variableTypeName} IN (?)" param:"variableTypeIn"` // Camunda's type names, any case
	ProcessInstanceID   string   `where:"process_instance_id" param:"processInstanceId"`
	ProcessInstanceIDs  []string `where:"process_instance_id in" param:"processInstanceIdIn"`
	ProcessDefinitionID string   `where:"process_instance_id IN (SELECT id FROM hist_process_instance WHERE process_definition_id = ?)" param:"processDefinitionId"`
	// ProcessDefinitionKey: of the instance's definition.
	ProcessDefinitionKey string   `where:"process_instance_id IN (SELECT id FROM hist_process_instance WHERE process_definition_key = ?)" param:"processDefinitionKey"`
	ExecutionIDs         []string `where:"execution_id in" param:"executionIdIn"`
	TaskIDs              []string `where:"task_id in" param:"taskIdIn"`
	// IncludeDeleted: removed variables' history too (state DELETED).
	IncludeDeleted bool `param:"includeDeleted"`
	notDeleted     bool `where:"state <> 'DELETED'"`
	// Value: the variables named Name whose value is this text (Camunda's
	// variableValue, which needs variableName).
	Value                    string `param:"variableValue"`
	VariableNamesIgnoreCase  bool   `param:"variableNamesIgnoreCase"`
	VariableValuesIgnoreCase bool   `param:"variableValuesIgnoreCase"`
	// ValueConditions: conditions on the variables' own values (typed).
	ValueConditions VariableConditions `where:"variables"`
	// Name and NameLike in any case, with VariableNamesIgnoreCase.
	nameFolded     string `where:"LOWER(name) = LOWER(?)"`
	nameLikeFolded string `where:"LOWER(name) LIKE LOWER(?)"`
}

func (f HistoricVariableFilter) Query() Query[*HistoricVariable] {
	if f.Value != "" {
		if f.Name == "" {
			return invalidQuery[*HistoricVariable]("Only a single variable value parameter specified: variable name and value are required to be able to query after a specific variable value.")
		}
		// The condition names the variable, in any case when asked.
		f.ValueConditions = append(VariableConditions{{Name: f.Name, Operator: "eq", Value: f.Value}}, f.ValueConditions...)
		f.Name = ""
	}
	f.notDeleted = !f.IncludeDeleted
	if f.VariableNamesIgnoreCase {
		f.nameFolded, f.nameLikeFolded, f.Name, f.NameLike = f.Name, f.NameLike, "", ""
	}
	if len(f.TypeIn) > 0 {
		types := make([]string, len(f.TypeIn))
		for i, t := range f.TypeIn {
			types[i] = strings.ToLower(t)
		}
		f.TypeIn = types
	}
	return filterQuery[*HistoricVariable](f, time.Time{}, "name, id")
}
