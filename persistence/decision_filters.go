package persistence

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Decisions: the filters of decision definitions, decision requirements
// definitions and historic decision instances, and the named queries of
// deployment and history cleanup.

func init() {
	// when a decision definition's deployment was made
	fragments["decisionDeployTime"] = "(SELECT deploy_time FROM deployment WHERE deployment.id = decision_definition.deployment_id)"
	fragments["decisionFinished"] = "(SELECT count(*) FROM hist_decision_instance h WHERE h.decision_definition_id = decision_definition.id)"
}

// DecisionDefinitionFilter selects decision definitions.
type DecisionDefinitionFilter struct {
	Page             `sort:"category decisionRequirementsDefinitionKey=decision_requirements_definition_key key id name version deploymentId versionTag tenantId deployTime={decisionDeployTime}"`
	ID               string     `where:"id" param:"decisionDefinitionId"`
	IDs              []string   `where:"id in" param:"decisionDefinitionIdIn"`
	Key              string     `where:"key" param:"key"`
	KeyLike          string     `where:"key like" param:"keyLike"`
	Name             string     `where:"name" param:"name"`
	NameLike         string     `where:"name like" param:"nameLike"`
	Category         string     `where:"category" param:"category"`
	CategoryLike     string     `where:"category like" param:"categoryLike"`
	DeploymentID     string     `where:"deployment_id" param:"deploymentId"`
	DeployedAfter    *time.Time `where:"{decisionDeployTime} > ?" param:"deployedAfter"`
	DeployedAt       *time.Time `param:"deployedAt"`
	deployedFrom     *time.Time `where:"{decisionDeployTime} >= ?"`
	deployedBefore   *time.Time `where:"{decisionDeployTime} < ?"`
	ResourceName     string     `where:"resource_name" param:"resourceName"`
	ResourceNameLike string     `where:"resource_name like" param:"resourceNameLike"`
	Version          *int       `where:"version" param:"version"`
	// LatestOnly: the latest version of each key, per tenant.
	LatestOnly                            bool   `where:"version = (SELECT MAX(d2.version) FROM decision_definition d2 WHERE d2.key = decision_definition.key AND COALESCE(d2.tenant_id, '') = COALESCE(decision_definition.tenant_id, ''))" param:"latestVersion"`
	DecisionRequirementsDefinitionID      string `where:"decision_requirements_definition_id" param:"decisionRequirementsDefinitionId"`
	DecisionRequirementsDefinitionKey     string `where:"decision_requirements_definition_key" param:"decisionRequirementsDefinitionKey"`
	WithoutDecisionRequirementsDefinition bool   `where:"decision_requirements_definition_id IS NULL" param:"withoutDecisionRequirementsDefinition"`
	VersionTag                            string `where:"version_tag" param:"versionTag"`
	VersionTagLike                        string `where:"version_tag like" param:"versionTagLike"`
	Tenants
	// IncludeWithoutTenantID: with TenantIDIn, those of no tenant too.
	IncludeWithoutTenantID bool `param:"includeDecisionDefinitionsWithoutTenantId"`
}

// Query selects the definitions by key and version.
func (f DecisionDefinitionFilter) Query() Query[*DecisionDefinition] {
	f.Tenants = f.Tenants.conditions(f.IncludeWithoutTenantID)
	f.deployedFrom, f.deployedBefore = millisecond(f.DeployedAt)
	return filterQuery[*DecisionDefinition](f, time.Time{}, "key, version, id")
}

// DecisionRequirementsDefinitionFilter selects decision requirements
// definitions.
type DecisionRequirementsDefinitionFilter struct {
	Page             `sort:"id key name version deploymentId category tenantId"`
	ID               string   `where:"id" param:"decisionRequirementsDefinitionId"`
	IDs              []string `where:"id in" param:"decisionRequirementsDefinitionIdIn"`
	Key              string   `where:"key" param:"key"`
	KeyLike          string   `where:"key like" param:"keyLike"`
	Name             string   `where:"name" param:"name"`
	NameLike         string   `where:"name like" param:"nameLike"`
	Category         string   `where:"category" param:"category"`
	CategoryLike     string   `where:"category like" param:"categoryLike"`
	DeploymentID     string   `where:"deployment_id" param:"deploymentId"`
	ResourceName     string   `where:"resource_name" param:"resourceName"`
	ResourceNameLike string   `where:"resource_name like" param:"resourceNameLike"`
	Version          *int     `where:"version" param:"version"`
	LatestOnly       bool     `where:"version = (SELECT MAX(d2.version) FROM decision_requirements_definition d2 WHERE d2.key = decision_requirements_definition.key AND COALESCE(d2.tenant_id, '') = COALESCE(decision_requirements_definition.tenant_id, ''))" param:"latestVersion"`
	Tenants
	IncludeWithoutTenantID bool `param:"includeDecisionRequirementsDefinitionsWithoutTenantId"`
}

// Query selects the definitions by key and version.
func (f DecisionRequirementsDefinitionFilter) Query() Query[*DecisionRequirementsDefinition] {
	f.Tenants = f.Tenants.conditions(f.IncludeWithoutTenantID)
	return filterQuery[*DecisionRequirementsDefinition](f, time.Time{}, "key, version, id")
}

// HistoricDecisionInstanceFilter selects decision evaluations in history,
// oldest first.
type HistoricDecisionInstanceFilter struct {
	Page                              `sort:"evaluationTime tenantId"`
	ID                                string     `where:"id" param:"decisionInstanceId"`
	IDs                               []string   `where:"id in" param:"decisionInstanceIdIn"`
	DecisionDefinitionID              string     `where:"decision_definition_id" param:"decisionDefinitionId"`
	DecisionDefinitionIDIn            []string   `where:"decision_definition_id in" param:"decisionDefinitionIdIn"`
	DecisionDefinitionKey             string     `where:"decision_definition_key" param:"decisionDefinitionKey"`
	DecisionDefinitionKeyIn           []string   `where:"decision_definition_key in" param:"decisionDefinitionKeyIn"`
	DecisionDefinitionName            string     `where:"decision_definition_name" param:"decisionDefinitionName"`
	DecisionDefinitionNameLike        string     `where:"decision_definition_name like" param:"decisionDefinitionNameLike"`
	ProcessDefinitionID               string     `where:"process_definition_id" param:"processDefinitionId"`
	ProcessDefinitionKey              string     `where:"process_definition_key" param:"processDefinitionKey"`
	ProcessInstanceID                 string     `where:"process_instance_id" param:"processInstanceId"`
	ActivityIDIn                      []string   `where:"activity_id in" param:"activityIdIn"`
	ActivityInstanceIDIn              []string   `where:"activity_instance_id in" param:"activityInstanceIdIn"`
	EvaluatedBefore                   *time.Time `where:"evaluation_time <= ?" param:"evaluatedBefore"`
	EvaluatedAfter                    *time.Time `where:"evaluation_time >= ?" param:"evaluatedAfter"`
	RootDecisionInstanceID            string     `where:"(id = ? OR root_decision_instance_id = ?)" param:"rootDecisionInstanceId"`
	RootDecisionInstancesOnly         bool       `where:"root_decision_instance_id IS NULL" param:"rootDecisionInstancesOnly"`
	DecisionRequirementsDefinitionID  string     `where:"decision_requirements_definition_id" param:"decisionRequirementsDefinitionId"`
	DecisionRequirementsDefinitionKey string     `where:"decision_requirements_definition_key" param:"decisionRequirementsDefinitionKey"`
	Tenants
}

// Query selects the evaluations, oldest first.
func (f HistoricDecisionInstanceFilter) Query() Query[*HistoricDecisionInstance] {
	f.Tenants = f.Tenants.conditions(false)
	return filterQuery[*HistoricDecisionInstance](f, time.Time{}, "evaluation_time, id")
}

// LatestDecisionDefinition is the latest version of decision key of
// tenant ("": of no tenant).
func LatestDecisionDefinition(key, tenant string) Query[*DecisionDefinition] {
	return DecisionDefinitionFilter{Key: key, LatestOnly: true, Tenants: OfTenant(tenant)}.Query()
}

// LatestDecisionRequirementsDefinition is the latest version of decision
// requirements definition key of tenant.
func LatestDecisionRequirementsDefinition(key, tenant string) Query[*DecisionRequirementsDefinition] {
	return DecisionRequirementsDefinitionFilter{Key: key, LatestOnly: true, Tenants: OfTenant(tenant)}.Query()
}

// DecisionInputsOf are the inputs of decision instances ids, in order.
func DecisionInputsOf(ids []string) Query[*HistoricDecisionInput] {
	list, args := inList(ids)
	return newQuery[*HistoricDecisionInput]("WHERE decision_instance_id IN "+list+" ORDER BY id", args...)
}

// DecisionOutputsOf are the outputs of decision instances ids, in order.
func DecisionOutputsOf(ids []string) Query[*HistoricDecisionOutput] {
	list, args := inList(ids)
	return newQuery[*HistoricDecisionOutput]("WHERE decision_instance_id IN "+list+" ORDER BY rule_order, id", args...)
}

// ExpiredDecisionHistory is up to limit evaluations outside processes
// whose removal time has come at now.
func ExpiredDecisionHistory(now time.Time, limit int) Query[*HistoricDecisionInstance] {
	return newQuery[*HistoricDecisionInstance]("WHERE removal_time <= $1 AND process_instance_id IS NULL ORDER BY removal_time, id LIMIT $2", now, limit)
}

// RemoveDecisionHistory deletes decision instances ids with their inputs
// and outputs.
func RemoveDecisionHistory(ids []string) []Write {
	if len(ids) == 0 {
		return nil
	}
	list, args := inList(ids)
	return []Write{
		newWrite("DELETE FROM hist_decision_input WHERE decision_instance_id IN "+list, args...),
		newWrite("DELETE FROM hist_decision_output WHERE decision_instance_id IN "+list, args...),
		newWrite("DELETE FROM hist_decision_instance WHERE id IN "+list, args...),
	}
}

// removeDecisionsOfInstances deletes the decision history of process
// instances (list and args from inList).
func removeDecisionsOfInstances(list string, args []any) []Write {
	sub := "(SELECT id FROM hist_decision_instance WHERE process_instance_id IN " + list + ")"
	return []Write{
		newWrite("DELETE FROM hist_decision_input WHERE decision_instance_id IN "+sub, args...),
		newWrite("DELETE FROM hist_decision_output WHERE decision_instance_id IN "+sub, args...),
		newWrite("DELETE FROM hist_decision_instance WHERE process_instance_id IN "+list, args...),
	}
}

// inList is "($1, $2, ...)" with ids as its arguments.
func inList(ids []string) (string, []any) {
	marks := make([]string, len(ids))
	args := make([]any, len(ids))
	for i, id := range ids {
		marks[i] = "$" + strconv.Itoa(i+1)
		args[i] = id
	}
	return "(" + strings.Join(marks, ", ") + ")", args
}

// DeleteDecisionsOfDeployment deletes the decision definitions and
// decision requirements definitions of a deployment (their history stays,
// as Camunda keeps it).
func DeleteDecisionsOfDeployment(deploymentID string) []Write {
	return []Write{
		newWrite("DELETE FROM decision_definition WHERE deployment_id = $1", deploymentID),
		newWrite("DELETE FROM decision_requirements_definition WHERE deployment_id = $1", deploymentID),
	}
}

// millisecond is the millisecond of at (Camunda's dates have
// milliseconds) as [from, before); nil, nil when at is nil.
func millisecond(at *time.Time) (from, before *time.Time) {
	if at == nil {
		return nil, nil
	}
	f := at.Truncate(time.Millisecond)
	b := f.Add(time.Millisecond)
	return &f, &b
}

// DecisionStatistic is how often one decision of a decision requirements
// definition was evaluated.
type DecisionStatistic struct {
	DecisionDefinitionKey string
	Evaluations           int
}

// DecisionStatistics counts the evaluations of each decision of decision
// requirements definition drd in history, by key; with rootInstance, only
// within that evaluation (the decision instance and those it required).
func DecisionStatistics(ctx context.Context, db DB, drd, rootInstance string) ([]*DecisionStatistic, error) {
	sql := "SELECT decision_definition_key, count(*) FROM hist_decision_instance WHERE decision_requirements_definition_id = $1"
	args := []any{drd}
	if rootInstance != "" {
		sql += " AND (id = $2 OR root_decision_instance_id = $2)"
		args = append(args, rootInstance)
	}
	sql += " GROUP BY decision_definition_key ORDER BY decision_definition_key"
	var out []*DecisionStatistic
	err := readRows(ctx, db, sql, args, func(rows Rows) error {
		s := &DecisionStatistic{}
		var n int64
		if err := rows.Scan(&s.DecisionDefinitionKey, &n); err != nil {
			return err
		}
		s.Evaluations = int(n)
		out = append(out, s)
		return nil
	})
	return out, err
}

// CleanableDecisionReportFilter selects the decision definitions of the
// cleanable decision instance report.
type CleanableDecisionReportFilter struct {
	Page                   `sort:"finished={decisionFinished}"`
	DecisionDefinitionIDs  []string `where:"id in" param:"decisionDefinitionIdIn"`
	DecisionDefinitionKeys []string `where:"key in" param:"decisionDefinitionKeyIn"`
	Tenants
	// Compact leaves out definitions without evaluations in history.
	Compact bool `where:"EXISTS (SELECT 1 FROM hist_decision_instance h WHERE h.decision_definition_id = decision_definition.id)" param:"compact"`
}

// At is the filter's query of definitions.
func (f CleanableDecisionReportFilter) At(now time.Time) Query[*DecisionDefinition] {
	f.Tenants = f.Tenants.conditions(false)
	return filterQuery[*DecisionDefinition](f, now, "id")
}

// CleanableDecisionReportRow is one decision definition in the cleanable
// decision instance report: its evaluations in history, and those the
// history cleanup may remove now (their removal time, or their process
// instance's, has come).
type CleanableDecisionReportRow struct {
	DecisionDefinitionID      string
	DecisionDefinitionKey     string
	DecisionDefinitionName    string
	DecisionDefinitionVersion int
	HistoryTimeToLive         *int // days; nil: the engine's default
	Finished                  int
	Cleanable                 int
	TenantID                  string
}

// CleanableDecisionReport is the cleanable decision instance report of the
// definitions f selects, judged at now.
func CleanableDecisionReport(ctx context.Context, db DB, f CleanableDecisionReportFilter, now time.Time) ([]*CleanableDecisionReportRow, error) {
	q := f.At(now)
	if q.err != nil {
		return nil, q.err
	}
	args := append(slices.Clone(q.args), now.UTC())
	n := "$" + strconv.Itoa(len(args))
	sql := "SELECT id, key, COALESCE(name, ''), version, COALESCE(history_time_to_live, -1), COALESCE(tenant_id, ''), " + withFragments("{decisionFinished}") +
		", (SELECT count(*) FROM hist_decision_instance h WHERE h.decision_definition_id = decision_definition.id AND (h.removal_time <= " + n +
		" OR h.process_instance_id IN (SELECT p.id FROM hist_process_instance p WHERE p.removal_time <= " + n + "))) FROM decision_definition " + q.where
	var out []*CleanableDecisionReportRow
	err := readRows(ctx, db, sql, args, func(rows Rows) error {
		r := &CleanableDecisionReportRow{}
		var ttl, version, finished, cleanable int64
		if err := rows.Scan(&r.DecisionDefinitionID, &r.DecisionDefinitionKey, &r.DecisionDefinitionName, &version, &ttl, &r.TenantID, &finished, &cleanable); err != nil {
			return err
		}
		r.DecisionDefinitionVersion, r.Finished, r.Cleanable = int(version), int(finished), int(cleanable)
		if ttl >= 0 {
			days := int(ttl)
			r.HistoryTimeToLive = &days
		}
		out = append(out, r)
		return nil
	})
	return out, err
}
