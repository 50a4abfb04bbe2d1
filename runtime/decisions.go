package runtime

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/dmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Decisions (DMN): deploying decision definitions and decision
// requirements definitions, evaluating a decision by key or id or from a
// business rule task, mapping its result as Camunda does, and the history
// of evaluations.

// IsDecisionModel reports whether a deployment's resource of this name is
// a DMN file: *.dmn, *.dmn11.xml or *.dmn.xml.
func IsDecisionModel(name string) bool {
	name = strings.ToLower(path.Base(name))
	return strings.HasSuffix(name, ".dmn") || strings.HasSuffix(name, ".dmn11.xml") || strings.HasSuffix(name, ".dmn.xml")
}

// deployDecisions stores the decisions of DMN file m, one version per
// decision key and tenant, with a decision requirements definition when
// the file has more than one decision (as Camunda).
func (e *Core) deployDecisions(cc *tx.Context, d *persistence.Deployment, resource string, names []string, m *dmn.Definitions) ([]*persistence.DecisionDefinition, *persistence.DecisionRequirementsDefinition, error) {
	base := resource
	for _, ext := range []string{".dmn", ".dmn11.xml", ".dmn.xml"} {
		base = strings.TrimSuffix(base, ext)
	}
	var drd *persistence.DecisionRequirementsDefinition
	if len(m.Decisions) > 1 {
		prev, err := tx.Read(cc, persistence.LatestDecisionRequirementsDefinition(m.ID, d.TenantID))
		if err != nil {
			return nil, nil, err
		}
		version := 1
		if len(prev) > 0 {
			version = prev[len(prev)-1].Version + 1
		}
		drd = &persistence.DecisionRequirementsDefinition{ID: fmt.Sprintf("%s:%d:%s", m.ID, version, newID()), Rev: 1, Key: m.ID,
			Version: version, Name: m.Name, Category: m.Namespace, DeploymentID: d.ID, ResourceName: resource,
			DiagramResourceName: diagramOf(base, m.ID, names), TenantID: d.TenantID}
		cc.Insert(drd)
	}
	var out []*persistence.DecisionDefinition
	for _, dec := range m.Decisions {
		prev, err := tx.Read(cc, persistence.LatestDecisionDefinition(dec.ID, d.TenantID))
		if err != nil {
			return nil, nil, err
		}
		version := 1
		if len(prev) > 0 {
			version = prev[len(prev)-1].Version + 1
		}
		dd := &persistence.DecisionDefinition{ID: fmt.Sprintf("%s:%d:%s", dec.ID, version, newID()), Rev: 1, Key: dec.ID,
			Version: version, Name: dec.Name, Category: m.Namespace, DeploymentID: d.ID, ResourceName: resource,
			DiagramResourceName: diagramOf(base, dec.ID, names), VersionTag: dec.VersionTag,
			HistoryTimeToLive: dec.HistoryTimeToLive, TenantID: d.TenantID}
		if drd != nil {
			dd.DecisionRequirementsDefinitionID, dd.DecisionRequirementsDefinitionKey = drd.ID, drd.Key
		}
		cc.Insert(dd)
		if dd.HistoryTimeToLive != nil && e.history(config.HistoryFull) {
			e.scheduleHistoryCleanup(cc)
		}
		out = append(out, dd)
	}
	return out, drd, nil
}

// decisionModels caches the parsed DMN files of deployments, by
// deployment and resource name; bounded, as the definition cache is.
type decisionModels struct {
	mu sync.Mutex
	m  map[string]*dmn.Definitions
}

const maxDecisionModels = 1000

// decision returns the parsed decision of definition row dd.
func (e *Core) decision(cc *tx.Context, dd *persistence.DecisionDefinition) (*dmn.Decision, error) {
	key := dd.DeploymentID + "\x00" + dd.ResourceName
	e.decisionModels.mu.Lock()
	m := e.decisionModels.m[key]
	e.decisionModels.mu.Unlock()
	if m == nil {
		res, err := tx.Read(cc, persistence.ResourceNamed(dd.DeploymentID, dd.ResourceName))
		if err != nil {
			return nil, err
		}
		if len(res) == 0 {
			return nil, fmt.Errorf("resource %q of deployment %s: %w", dd.ResourceName, dd.DeploymentID, persistence.ErrNotFound)
		}
		if m, err = dmn.ParseWith(res[0].Bytes, dmn.Options{File: dd.ResourceName, CheckExpression: e.CheckExpression}); err != nil {
			return nil, err
		}
		e.decisionModels.mu.Lock()
		if e.decisionModels.m == nil || len(e.decisionModels.m) >= maxDecisionModels {
			e.decisionModels.m = map[string]*dmn.Definitions{}
		}
		e.decisionModels.m[key] = m
		e.decisionModels.mu.Unlock()
	}
	dec := m.Decision(dd.Key)
	if dec == nil {
		return nil, fmt.Errorf("decision %q not found in resource %q", dd.Key, dd.ResourceName)
	}
	return dec, nil
}

// DecisionSelector names the decision definition to evaluate: ID, or Key
// with TenantID ("" and WithoutTenant false: the one tenant, or none,
// that has the key).
type DecisionSelector struct {
	ID, Key, TenantID string
	WithoutTenant     bool
}

// AmbiguousDecisionKeyError is a decision key several tenants have, asked
// for without a tenant.
type AmbiguousDecisionKeyError struct{ Key string }

func (e *AmbiguousDecisionKeyError) Error() string {
	return fmt.Sprintf("ENGINE-03070 Cannot resolve a unique decision definition for key '%s' because it exists for multiple tenants.", e.Key)
}

// selectDecision finds the definition sel names.
func (e *Core) selectDecision(cc *tx.Context, sel DecisionSelector) (*persistence.DecisionDefinition, error) {
	if sel.ID != "" {
		ent, err := cc.Get(persistence.DecisionDefinitionTable, sel.ID)
		if err != nil {
			return nil, fmt.Errorf("decision definition %q: %w", sel.ID, err)
		}
		return ent.(*persistence.DecisionDefinition), nil
	}
	f := persistence.DecisionDefinitionFilter{Key: sel.Key, LatestOnly: true}
	which := ""
	switch {
	case sel.TenantID != "":
		f.Tenants, which = persistence.OfTenant(sel.TenantID), fmt.Sprintf(" of tenant %q", sel.TenantID)
	case sel.WithoutTenant:
		f.Tenants, which = persistence.OfTenant(""), " of no tenant"
	}
	rows, err := tx.Read(cc, f.Query())
	switch {
	case err != nil:
		return nil, err
	case len(rows) == 0:
		return nil, fmt.Errorf("no decision definition deployed with key '%s'%s: %w", sel.Key, which, persistence.ErrNotFound)
	case len(rows) > 1:
		return nil, &AmbiguousDecisionKeyError{Key: sel.Key}
	}
	return rows[0], nil
}

// EvaluateDecision evaluates the decision sel names with vars and returns
// its result (with its definition); the evaluation is kept in history at
// level full.
func (e *Core) EvaluateDecision(ctx context.Context, sel DecisionSelector, vars map[string]any) (res dmn.Result, def *persistence.DecisionDefinition, err error) {
	err = e.cmd.Run(ctx, func(cc *tx.Context) error {
		dd, err := e.selectDecision(cc, sel)
		if err != nil {
			return err
		}
		dec, err := e.decision(cc, dd)
		if err != nil {
			return err
		}
		ev, err := dmn.Evaluate(dec, resolver{e: e, vars: vars})
		if err != nil {
			return err
		}
		if err := e.recordDecision(cc, dd, ev, nil); err != nil {
			return err
		}
		res, def = ev.Result(), dd
		return nil
	})
	return res, def, err
}

// recordDecision counts evaluation ev of definition dd in the meters and
// writes its history (at level full), from x in a process or outside one
// (x nil).
func (e *Core) recordDecision(cc *tx.Context, dd *persistence.DecisionDefinition, ev *dmn.Evaluation, x *execution) error {
	elements := int64(0)
	for _, de := range ev.Decisions {
		if t := de.Decision.Table; t != nil {
			elements += int64((len(t.Inputs) + len(t.Outputs)) * len(t.Rules))
		} else {
			elements++ // a literal expression
		}
	}
	e.meters.addAtCommit(cc, MeterDecisionInstances, int64(len(ev.Decisions)))
	e.meters.addAtCommit(cc, MeterDecisionElements, elements)
	if !e.history(config.HistoryFull) {
		return nil
	}
	now := cc.Now().UTC()
	rootID := ""
	// The decision asked for is the root of the others: written first.
	for i := len(ev.Decisions) - 1; i >= 0; i-- {
		de := ev.Decisions[i]
		def := dd
		if de.Decision.ID != dd.Key {
			rows, err := tx.Read(cc, persistence.DecisionDefinitionFilter{Key: de.Decision.ID, DeploymentID: dd.DeploymentID, ResourceName: dd.ResourceName}.Query())
			if err != nil {
				return err
			}
			if len(rows) == 0 {
				return fmt.Errorf("required decision %q of %s: %w", de.Decision.ID, dd.ID, persistence.ErrNotFound)
			}
			def = rows[0]
		}
		h := &persistence.HistoricDecisionInstance{ID: newID(), Rev: 1, DecisionDefinitionID: def.ID, DecisionDefinitionKey: def.Key,
			DecisionDefinitionName: def.Name, EvaluationTime: now, RootDecisionInstanceID: rootID,
			DecisionRequirementsDefinitionID: def.DecisionRequirementsDefinitionID, DecisionRequirementsDefinitionKey: def.DecisionRequirementsDefinitionKey,
			TenantID: def.TenantID}
		if de.HasCollect && de.Decision.Table != nil {
			if f, ok := toFloat(de.Collect); ok {
				h.CollectResultValue, h.HasCollectResult = f, true
			}
		}
		if x != nil {
			h.ProcessDefinitionID, h.ProcessDefinitionKey = x.inst.def.ID, x.inst.def.Key
			h.ProcessInstanceID, h.RootProcessInstanceID = x.ProcessInstanceID, x.inst.root.RootProcessInstanceID
			h.ExecutionID, h.ActivityID, h.ActivityInstanceID = x.ID, x.ActivityID, x.ActivityInstanceID
		} else if ttl, ok := e.decisionTimeToLive(dd); ok {
			at := now.Add(ttl)
			h.RemovalTime = &at
		}
		if rootID == "" {
			rootID = h.ID
		}
		cc.Insert(h)
		for _, in := range de.Inputs {
			r := &persistence.HistoricDecisionInput{Variable: persistence.Variable{ID: newID(), Rev: 1, Name: in.Input.Label, ProcessInstanceID: h.ProcessInstanceID},
				DecisionInstanceID: h.ID, ClauseID: in.Input.ID, CreateTime: now}
			encodeDecisionValue(&r.Variable, in.Value)
			cc.Insert(r)
		}
		for _, m := range de.Matched {
			for _, o := range m.Outputs {
				r := &persistence.HistoricDecisionOutput{Variable: persistence.Variable{ID: newID(), Rev: 1, Name: o.Output.Name, ProcessInstanceID: h.ProcessInstanceID},
					DecisionInstanceID: h.ID, ClauseID: o.Output.ID, ClauseName: o.Output.Label, RuleID: m.Rule.ID, RuleOrder: m.Order, CreateTime: now}
				encodeDecisionValue(&r.Variable, o.Value)
				cc.Insert(r)
			}
		}
		if l := de.Decision.Literal; l != nil && len(de.Result) == 1 {
			r := &persistence.HistoricDecisionOutput{Variable: persistence.Variable{ID: newID(), Rev: 1, Name: l.VariableName, ProcessInstanceID: h.ProcessInstanceID},
				DecisionInstanceID: h.ID, CreateTime: now}
			encodeDecisionValue(&r.Variable, de.Result[0][0].Value)
			cc.Insert(r)
		}
	}
	return nil
}

// encodeDecisionValue stores a decision's value as a variable's; one that
// cannot be stored as it is is kept as its text.
func encodeDecisionValue(r *persistence.Variable, v any) {
	if err := encodeValue(r, v); err != nil {
		_ = encodeValue(r, fmt.Sprint(v))
	}
	r.Bytes = append([]byte(nil), r.Bytes...)
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// decisionTimeToLive is how long the history of a decision evaluated
// outside a process is kept: its camunda:historyTimeToLive, else
// Config.History.TimeToLive; ok is false when it is kept for good.
func (e *Core) decisionTimeToLive(dd *persistence.DecisionDefinition) (time.Duration, bool) {
	if days := dd.HistoryTimeToLive; days != nil {
		return time.Duration(*days) * 24 * time.Hour, true
	}
	return e.Config.History.TimeToLive, e.Config.History.TimeToLive > 0
}

// removeExpiredDecisions removes a batch of the history of decisions
// evaluated outside processes whose removal time has passed.
func (e *Core) removeExpiredDecisions(cc *tx.Context) (int, error) {
	expired, err := tx.Select(cc, persistence.ExpiredDecisionHistory(cc.Now().UTC(), e.Config.History.CleanupBatchSize))
	if err != nil || len(expired) == 0 {
		return 0, err
	}
	ids := make([]string, len(expired))
	for i, h := range expired {
		ids[i] = h.ID
	}
	cc.Write(persistence.RemoveDecisionHistory(ids)...)
	e.meters.addAtCommit(cc, MeterHistoryCleanupRemovedDecisions, int64(len(ids)))
	return len(ids), nil
}

// businessRuleTask evaluates the decision of business rule task a from x
// and maps its result to the result variable, as Camunda's
// DmnBusinessRuleTaskActivityBehavior.
func (c *command) businessRuleTask(x *execution, a *bpmn.Activity) error {
	ref := a.Decision
	dd, err := c.decisionFor(x, ref)
	if err != nil {
		return failAt(a, "%w", err)
	}
	dec, err := c.e.decision(c.cc, dd)
	if err != nil {
		return failAt(a, "%w", err)
	}
	ev, err := dmn.Evaluate(dec, c.resolver(x))
	if err != nil {
		return failAt(a, "%w", err)
	}
	if err := c.e.recordDecision(c.cc, dd, ev, x); err != nil {
		return err
	}
	res := ev.Result()
	// Camunda's transient local decisionResult, for output mappings: here
	// the result list (${decisionResult[0].dish}, ${decisionResult.size()}),
	// as transient variables are stored values, not Go objects.
	if err := x.setLocal("decisionResult", Transient(res.List())); err != nil {
		return failAt(a, "%w", err)
	}
	if a.ResultVariable != "" {
		v, err := MapDecisionResult(ref.MapResult, res)
		if err != nil {
			return failAt(a, "%w", err)
		}
		if err := x.setVariable(a.ResultVariable, v); err != nil {
			return failAt(a, "%w", err)
		}
	}
	return c.leave(x, a)
}

// mappers are Camunda's names of the result mappers, for messages.
var mappers = map[string]string{
	"singleEntry":    "SingleEntryDecisionResultMapper{}",
	"singleResult":   "SingleResultDecisionResultMapper{}",
	"collectEntries": "CollectEntriesDecisionResultMapper{}",
	"resultList":     "ResultListDecisionTableResultMapper{}",
}

// MapDecisionResult maps a decision result as camunda:mapDecisionResult
// mapper does: singleEntry (the one value), singleResult (the one result's
// map), collectEntries (the values of the one output), resultList (the
// maps; also for "").
func MapDecisionResult(mapper string, r dmn.Result) (any, error) {
	fail := func(err error) error {
		return fmt.Errorf("ENGINE-22001 The decision result mapper '%s' failed to process '%s': %w", mappers[mapper], r, err)
	}
	switch mapper {
	case "singleEntry":
		v, err := r.SingleEntry()
		if err != nil {
			return nil, fail(err)
		}
		return v, nil
	case "singleResult":
		one, err := r.SingleResult()
		if err != nil {
			return nil, fail(err)
		}
		if one == nil {
			return nil, nil
		}
		return one.Map(), nil
	case "collectEntries":
		names := r.OutputNames()
		if len(names) > 1 {
			return nil, fmt.Errorf("ENGINE-22002 The decision result mapper '%s' failed to process '%s'. The decision outputs should only contains values for one output name but found '%v'.", mappers[mapper], r, names)
		}
		if len(names) == 0 {
			return []any{}, nil
		}
		return r.CollectEntries(names[0]), nil
	}
	return r.List(), nil
}

// decisionFor finds the decision definition business rule task ref
// evaluates from x, by its binding.
func (c *command) decisionFor(x *execution, ref *bpmn.DecisionRef) (*persistence.DecisionDefinition, error) {
	key, err := c.text(x, ref.Key)
	if err != nil {
		return nil, fmt.Errorf("decisionRef: %w", err)
	}
	tenant := x.inst.def.TenantID
	if ref.TenantID != "" {
		if tenant, err = c.text(x, ref.TenantID); err != nil {
			return nil, fmt.Errorf("decisionRefTenantId: %w", err)
		}
	}
	f := persistence.DecisionDefinitionFilter{Key: key, Tenants: persistence.OfTenant(tenant)}
	tenantText := "null" // as Camunda prints no tenant
	if tenant != "" {
		tenantText = tenant
	}
	// Camunda's DecisionDefinitionNotFoundException messages, by binding.
	missing := fmt.Sprintf("no decision definition deployed with key '%s'", key)
	switch ref.Binding {
	case "deployment":
		f.DeploymentID = x.inst.def.DeploymentID
		missing = fmt.Sprintf("no decision definition deployed with key = '%s' in deployment = '%s'", key, f.DeploymentID)
	case "version":
		n, err := c.integer(x, ref.Version)
		if err != nil {
			return nil, fmt.Errorf("decisionRefVersion: %w", err)
		}
		version := int(n)
		f.Version = &version
		missing = fmt.Sprintf("no decision definition deployed with key = '%s', version = '%d' and tenant-id '%s'", key, n, tenantText)
	case "versionTag":
		tag, err := c.text(x, ref.VersionTag)
		if err != nil {
			return nil, fmt.Errorf("decisionRefVersionTag: %w", err)
		}
		f.VersionTag = tag
		missing = fmt.Sprintf("no decision definition deployed with key = '%s', versionTag = '%s' and tenant-id '%s'", key, tag, tenantText)
	default:
		f.LatestOnly = true
	}
	rows, err := tx.Read(c.cc, f.Query())
	if err != nil {
		return nil, err
	}
	switch {
	case len(rows) == 0:
		return nil, fmt.Errorf("%s: %w", missing, persistence.ErrNotFound)
	case len(rows) > 1 && ref.Binding == "versionTag":
		return nil, fmt.Errorf("Found more than one decision definition for key '%s' and versionTag '%s'", key, f.VersionTag)
	}
	return rows[len(rows)-1], nil // the latest of those selected
}

// SetDecisionHistoryTimeToLive sets the history time to live of decision
// definition id, in days (nil: the engine's default): evaluations made
// afterwards get their removal time from it.
func (e *Core) SetDecisionHistoryTimeToLive(ctx context.Context, id string, days *int) error {
	return e.cmd.Run(ctx, func(cc *tx.Context) error {
		dd, err := e.selectDecision(cc, DecisionSelector{ID: id})
		if err != nil {
			return err
		}
		dd.HistoryTimeToLive = days
		cc.Update(dd)
		if days != nil && e.history(config.HistoryFull) {
			e.scheduleHistoryCleanup(cc)
		}
		return nil
	})
}
