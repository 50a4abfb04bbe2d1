package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/bpmnlite/bpmnlite/bpmn"
	"github.com/bpmnlite/bpmnlite/config"
	"github.com/bpmnlite/bpmnlite/dmn"
	"github.com/bpmnlite/bpmnlite/persistence"
	"github.com/bpmnlite/bpmnlite/tx"
)

// Deployments and process definitions: parsing, versions, the definition
// cache.

// Resource is a file to deploy.
type Resource struct {
	Name  string
	Bytes []byte
}

// DeployRequest describes a deployment.
type DeployRequest struct {
	Name   string
	Source string
	// TenantID is the tenant the deployment is made for: its definitions
	// and what they create carry it; versions count per key and tenant.
	TenantID  string
	Resources []Resource
	// SkipUnchanged is Camunda's duplicate filtering: each resource is
	// compared with the latest one of its name among the deployments of
	// the same name, source and tenant; when none is new or changed, the
	// deployment of the latest of them is returned (Unchanged) and nothing
	// is deployed. ChangedOnly, with it, deploys the new and changed
	// resources only (Camunda's deploy-changed-only).
	SkipUnchanged bool
	ChangedOnly   bool
	// ForceExecutable deploys processes even when isExecutable is false or missing.
	ForceExecutable bool
}

// Deployment is the outcome of a deployment.
type Deployment struct {
	persistence.Deployment
	Definitions []*persistence.ProcessDefinition
	// DecisionDefinitions and DecisionRequirementsDefinitions are those of
	// the deployment's DMN files.
	DecisionDefinitions             []*persistence.DecisionDefinition
	DecisionRequirementsDefinitions []*persistence.DecisionRequirementsDefinition
	Skipped                         []bpmn.SkippedProcess
	Warnings                        []bpmn.Problem
	// Unchanged is set when SkipUnchanged found nothing new.
	Unchanged bool

	// FormDefinitions are the Camunda Forms (.form) deployed.
	FormDefinitions []*persistence.FormDefinition
}

// Deploy parses and stores the resources and their process definitions, one
// version per process key, with job definitions, timer start jobs and
// message start subscriptions; older versions' start timers and
// subscriptions are removed.
func (e *Core) Deploy(ctx context.Context, req DeployRequest) (_ *Deployment, err error) {
	ctx, end := e.startSpan(ctx, "bpmnlite.deploy")
	defer func() { end(err) }()
	var all []parsedResource
	var errs []error
	others := map[string][]byte{} // what scripts may name as camunda:resource
	for _, r := range req.Resources {
		if !IsProcessModel(r.Name) {
			others[r.Name] = r.Bytes
		}
	}
	for _, r := range req.Resources {
		var err error
		sum := sha256.Sum256(r.Bytes)
		if IsDecisionModel(r.Name) {
			m, err := dmn.ParseWith(r.Bytes, dmn.Options{File: r.Name, MaxBytes: e.Config.Limits.MaxResourceBytes, CheckExpression: e.CheckExpression})
			if err != nil {
				errs = append(errs, err)
				continue
			}
			all = append(all, parsedResource{res: r, decisions: m, hash: hex.EncodeToString(sum[:])})
			continue
		}
		if !IsProcessModel(r.Name) {
			p := parsedResource{res: r, hash: hex.EncodeToString(sum[:])}
			if IsForm(r.Name) {
				if p.formKey, err = formKeyOf(r); err != nil {
					errs = append(errs, err)
				}
			}
			all = append(all, p)
			continue
		}
		m, err := bpmn.Parse(r.Bytes, bpmn.ParseOptions{File: r.Name, ForceExecutable: req.ForceExecutable, CheckExpression: e.CheckExpression, MaxBytes: e.Config.Limits.MaxResourceBytes, MaxQuoted: e.Config.Limits.MaxQuotedSource, MaxScriptBytes: e.Config.Limits.MaxScriptBytes, Resources: others})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		all = append(all, parsedResource{res: r, model: m, hash: hex.EncodeToString(sum[:])})
	}
	if len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	var out *Deployment
	var created []*Definition
	err = e.cmd.Run(ctx, func(cc *tx.Context) error {
		out, created = nil, nil
		deploy := all
		if req.SkipUnchanged && req.Name != "" {
			var err error
			if deploy, out, err = e.filterDuplicates(cc, req, all); err != nil || out != nil {
				return err
			}
		}
		now := cc.Now().UTC()
		d := &persistence.Deployment{ID: newID(), Name: req.Name, Source: req.Source, DeployTime: now, TenantID: req.TenantID}
		cc.Insert(d)
		out = &Deployment{Deployment: *d}
		names := make([]string, len(deploy))
		for i, p := range deploy {
			names[i] = p.res.Name
		}
		for _, p := range deploy {
			cc.Insert(&persistence.Resource{ID: newID(), DeploymentID: d.ID, Name: p.res.Name, Bytes: p.res.Bytes, Hash: p.hash})
			if p.decisions != nil {
				decs, drd, err := e.deployDecisions(cc, d, p.res.Name, names, p.decisions)
				if err != nil {
					return err
				}
				out.DecisionDefinitions = append(out.DecisionDefinitions, decs...)
				if drd != nil {
					out.DecisionRequirementsDefinitions = append(out.DecisionRequirementsDefinitions, drd)
				}
				continue
			}
			if p.formKey != "" {
				f, err := e.deployForm(cc, d, p.res.Name, p.formKey)
				if err != nil {
					return err
				}
				out.FormDefinitions = append(out.FormDefinitions, f)
			}
			if p.model == nil {
				continue // kept as it is: a form, a decision table, a script, an image
			}
			out.Skipped = append(out.Skipped, p.model.Skipped...)
			out.Warnings = append(out.Warnings, p.model.Warnings...)
			for _, proc := range p.model.Processes {
				def, err := e.deployProcess(cc, d, p.res.Name, names, p.model, proc)
				if err != nil {
					return err
				}
				created = append(created, def)
				out.Definitions = append(out.Definitions, def.ProcessDefinition)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, d := range created {
		e.defs.add(d)
	}
	e.mu.Lock()
	e.deployments[out.ID] = true
	e.mu.Unlock()
	if !out.Unchanged {
		// Warnings name what the engine ignores: logged, so that they are
		// seen even where nobody reads Deployment.Warnings.
		for _, w := range out.Warnings {
			e.log.Warn("deployment warning", "deployment", out.ID, "problem", w.String())
		}
	}
	return out, nil
}

type parsedResource struct {
	res   Resource
	model *bpmn.Definitions // nil: not a process model
	// decisions: a DMN file's decisions (nil: not a DMN file)
	decisions *dmn.Definitions
	hash      string
	formKey   string // a Camunda Form's id
}

// IsProcessModel reports whether a deployment's resource of this name is
// parsed as BPMN: *.bpmn, *.bpmn20.xml, other *.xml files but Camunda's
// DMN and CMMN ones, and names without an extension. Others (forms,
// decision tables, HTML, scripts, images) are kept as they are, as
// Camunda keeps the resources no deployer of its claims.
func IsProcessModel(name string) bool {
	name = strings.ToLower(path.Base(name))
	ext := path.Ext(name)
	switch {
	case ext == ".bpmn", ext == "":
		return true
	case ext != ".xml":
		return false
	}
	for _, other := range []string{".dmn11.xml", ".dmn.xml", ".cmmn11.xml", ".cmmn10.xml", ".cmmn.xml"} {
		if strings.HasSuffix(name, other) {
			return false
		}
	}
	return true
}

// filterDuplicates is Camunda's duplicate filtering of req: each resource
// is compared with the latest one of its name among the deployments of
// req's name, source and tenant. None new or changed: the deployment of
// the latest of them, unchanged. Else all resources are deployed, or with
// ChangedOnly those new or changed.
func (e *Core) filterDuplicates(cc *tx.Context, req DeployRequest, all []parsedResource) ([]parsedResource, *Deployment, error) {
	names := make([]string, len(all))
	for i, p := range all {
		names[i] = p.res.Name
	}
	latest, err := tx.Read(cc, persistence.LatestResourcesNamed(req.Name, req.Source, req.TenantID, names))
	if err != nil {
		return nil, nil, err
	}
	hashes := make(map[string]string, len(latest))
	for _, r := range latest {
		hashes[r.Name] = r.Hash
	}
	var changed []parsedResource
	for _, p := range all {
		if h, ok := hashes[p.res.Name]; !ok || h != p.hash {
			changed = append(changed, p)
		}
	}
	switch {
	case len(changed) == 0:
		prev, err := e.newestDeployment(cc, latest)
		return nil, prev, err
	case req.ChangedOnly:
		return changed, nil, nil
	}
	return all, nil, nil
}

// newestDeployment is the newest of the deployments of resources rs, as
// an unchanged deployment with its definitions.
func (e *Core) newestDeployment(cc *tx.Context, rs []*persistence.Resource) (*Deployment, error) {
	var newest *persistence.Deployment
	for _, r := range rs {
		ent, err := cc.Get(persistence.DeploymentTable, r.DeploymentID)
		if err != nil {
			return nil, err
		}
		d := ent.(*persistence.Deployment)
		if newest == nil || d.DeployTime.After(newest.DeployTime) || d.DeployTime.Equal(newest.DeployTime) && d.ID > newest.ID {
			newest = d
		}
	}
	defs, err := tx.Read(cc, persistence.DefinitionsOfDeployment(newest.ID))
	if err != nil {
		return nil, err
	}
	return &Deployment{Deployment: *newest, Definitions: defs, Unchanged: true}, nil
}

func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return &MultiError{Errors: errs}
}

// MultiError holds the errors of several resources.
type MultiError struct{ Errors []error }

func (m *MultiError) Error() string {
	s := ""
	for i, err := range m.Errors {
		if i > 0 {
			s += "\n"
		}
		s += err.Error()
	}
	return s
}

// Unwrap returns the errors, for errors.Is and errors.As.
func (m *MultiError) Unwrap() []error { return m.Errors }

// DiagramResourceName is the resource of a deployment (names) that is
// the diagram image of process key deployed from model, as Camunda finds
// it: model.key.png, then model.png (model without .bpmn or .bpmn20.xml),
// then the same with jpg, gif and svg; "" when there is none.
func DiagramResourceName(model, key string, names []string) string {
	return diagramOf(strings.TrimSuffix(strings.TrimSuffix(model, ".bpmn20.xml"), ".bpmn"), key, names)
}

// diagramOf is the image among names of definition key of the model file
// named base without its extension.
func diagramOf(base, key string, names []string) string {
	for _, ext := range []string{"png", "jpg", "gif", "svg"} {
		for _, name := range []string{base + "." + key + "." + ext, base + "." + ext} {
			if slices.Contains(names, name) {
				return name
			}
		}
	}
	return ""
}

func (e *Core) deployProcess(cc *tx.Context, d *persistence.Deployment, resource string, names []string, model *bpmn.Definitions, proc *bpmn.Process) (*Definition, error) {
	prev, err := e.latestDefinitionRow(cc, proc.ID, d.TenantID)
	if err != nil {
		return nil, err
	}
	version := 1
	if prev != nil {
		version = prev.Version + 1
		if err := e.removeStartEvents(cc, prev.ID); err != nil {
			return nil, err
		}
	}
	pd := &persistence.ProcessDefinition{
		ID:           fmt.Sprintf("%s:%d:%s", proc.ID, version, newID()),
		Rev:          1,
		Key:          proc.ID,
		Version:      version,
		Name:         proc.Name,
		DeploymentID: d.ID,
		ResourceName: resource,
		Suspension:   persistence.Active,
		VersionTag:   proc.VersionTag,
		// A definition keeps its own time to live; Config.History.TimeToLive
		// applies to the ones without.
		HistoryTimeToLive:      proc.HistoryTimeToLive,
		CandidateStarterGroups: proc.CandidateStarterGroups,
		CandidateStarterUsers:  proc.CandidateStarterUsers,
		TenantID:               d.TenantID,
		StartableInTasklist:    !proc.NotStartableInTasklist,
		DiagramResourceName:    DiagramResourceName(resource, proc.ID, names),
		Category:               model.TargetNamespace,
		Description:            proc.Documentation,
	}
	if s := proc.NoneStartEvent(); s != nil {
		pd.HasStartForm = s.Form != nil && (s.Form.Key != "" || s.Form.Ref != "") // Camunda's hasStartFormKey
	}
	cc.Insert(pd)
	if pd.HistoryTimeToLive != nil && e.history(config.HistoryActivity) {
		e.scheduleHistoryCleanup(cc)
	}
	def := &Definition{ProcessDefinition: pd, Process: proc}
	jobDefs := e.createJobDefinitions(cc, def)
	if err := e.createStartEvents(cc, def, jobDefs); err != nil {
		return nil, err
	}
	return def, nil
}

func (e *Core) latestDefinitionRow(cc *tx.Context, key, tenant string) (*persistence.ProcessDefinition, error) {
	rows, err := tx.Read(cc, persistence.LatestDefinition(key, tenant, ""))
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return rows[0], nil
}

// Definition is a deployed process definition with its parsed process.
// It is shared and never modified.
type Definition struct {
	*persistence.ProcessDefinition
	Process *bpmn.Process
	// scripts are the script resources of its deployment its scripts
	// named (camunda:resource), compiled once: name → *script.Program.
	scripts sync.Map
}

// Definition returns the process definition with id, parsing its resource
// when it is not cached (deployed by another engine, before a restart, or
// evicted from the bounded cache). Within a command use c.definition: it
// returns the same object at each call.
func (e *Core) Definition(cc *tx.Context, id string) (*Definition, error) {
	if d := e.defs.get(id); d != nil {
		return d, nil
	}
	ent, err := cc.Get(persistence.ProcessDefinitionTable, id)
	if err != nil {
		return nil, fmt.Errorf("process definition %q: %w", id, err)
	}
	pd := ent.(*persistence.ProcessDefinition)
	return e.loadDefinition(cc, pd)
}

func (e *Core) loadDefinition(cc *tx.Context, pd *persistence.ProcessDefinition) (*Definition, error) {
	res, err := tx.Read(cc, persistence.ResourceNamed(pd.DeploymentID, pd.ResourceName))
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("resource %q of deployment %s: %w", pd.ResourceName, pd.DeploymentID, persistence.ErrNotFound)
	}
	model, err := bpmn.Parse(res[0].Bytes, bpmn.ParseOptions{File: pd.ResourceName, ForceExecutable: true, CheckExpression: e.CheckExpression})
	if err != nil {
		return nil, err
	}
	proc := model.Process(pd.Key)
	if proc == nil {
		return nil, fmt.Errorf("process %q not found in resource %q", pd.Key, pd.ResourceName)
	}
	// Only the process is kept: not the file's other processes, warnings
	// and root elements, which the runtime does not read.
	return e.defs.add(&Definition{ProcessDefinition: pd, Process: proc}), nil
}

// definition returns the process definition with id, the same object at
// each call of the command: activities of one instance are compared by
// pointer, so a command must not mix two parses of one definition (one
// evicted from the cache meanwhile, one parsed again).
func (c *command) definition(id string) (*Definition, error) {
	if d := c.defs[id]; d != nil {
		return d, nil
	}
	d, err := c.e.Definition(c.cc, id)
	if err != nil {
		return nil, err
	}
	c.keepDefinition(d)
	return d, nil
}

// keepDefinition makes d the command's definition with its id.
func (c *command) keepDefinition(d *Definition) {
	if c.defs == nil {
		c.defs = make(map[string]*Definition)
	}
	c.defs[d.ID] = d
}

// latestDefinition returns the newest version of the process with key of
// tenant ("": of no tenant) and, when versionTag is set, that
// camunda:versionTag.
func (c *command) latestDefinition(key, tenant, versionTag string) (*Definition, error) {
	which := ""
	if tenant != "" {
		which = fmt.Sprintf(" of tenant %q", tenant)
	}
	if versionTag != "" {
		which += fmt.Sprintf(" and version tag %q", versionTag)
	}
	return c.definitionFrom(persistence.LatestDefinition(key, tenant, versionTag), key, which)
}

// latestDefinitionOfAnyTenant is latestDefinition of the one tenant (or
// none) that has process key; a key that several tenants have is
// ambiguous, as Camunda's findLatestProcessDefinitionByKey finds it.
func (c *command) latestDefinitionOfAnyTenant(key, versionTag string) (*Definition, error) {
	latest, err := tx.Read(c.cc, persistence.DefinitionFilter{Key: key, LatestOnly: true}.Query())
	if err != nil {
		return nil, err
	}
	if len(latest) > 1 {
		return nil, &AmbiguousKeyError{Key: key}
	}
	tenant := ""
	if len(latest) == 1 {
		tenant = latest[0].TenantID
	}
	return c.latestDefinition(key, tenant, versionTag)
}

// AmbiguousKeyError is a process definition key several tenants have,
// asked for without a tenant.
type AmbiguousKeyError struct{ Key string }

func (e *AmbiguousKeyError) Error() string {
	return fmt.Sprintf("ENGINE-03070 Cannot resolve a unique process definition for key '%s' because it exists for multiple tenants.", e.Key)
}

// definitionFrom returns the latest of the versions of process key that q
// selects (in version order); which says what else was asked for, for the
// error when there is none.
func (c *command) definitionFrom(q persistence.Query[*persistence.ProcessDefinition], key, which string) (*Definition, error) {
	rows, err := tx.Read(c.cc, q)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no process definition with key %q%s: %w", key, which, persistence.ErrNotFound)
	}
	row := rows[len(rows)-1]
	c.e.defs.refresh(row)
	d, err := c.definition(row.ID)
	if err != nil || d.Suspension == row.Suspension {
		return d, err
	}
	// The command read it before another node changed its suspension.
	d = &Definition{ProcessDefinition: row, Process: d.Process}
	c.keepDefinition(d)
	return d, nil
}
