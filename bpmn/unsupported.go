package bpmn

import (
	"github.com/beevik/etree"
)

// Camunda attributes bpmnlite does not implement change what a model does
// in Camunda, so a model using one is refused at deployment, with a hint,
// rather than run differently. Attributes that only describe the model
// for tools (Modeler templates, tasklist flags) are accepted and ignored.

// camundaAttributes are the camunda: attributes the parser reads somewhere;
// one written on an element that has no use for it is ignored.
var camundaAttributes = map[string]bool{
	"assignee": true, "async": true, "asyncAfter": true, "asyncBefore": true,
	"calledElementBinding": true, "calledElementVersion": true, "calledElementVersionTag": true,
	"candidateGroups": true, "candidateStarterGroups": true, "candidateStarterUsers": true, "candidateUsers": true,
	"class": true, "collection": true, "delegateExpression": true, "dueDate": true, "elementVariable": true,
	"errorCodeVariable": true, "errorMessage": true, "errorMessageVariable": true, "exclusive": true,
	"expression": true, "followUpDate": true, "initiator": true, "formKey": true, "formRef": true, "historyTimeToLive": true,
	"jobPriority": true, "priority": true, "resultVariable": true, "taskPriority": true, "topic": true,
	"type": true, "versionTag": true, "variableName": true, "variableEvents": true,
	"escalationCodeVariable": true, "resource": true,
	"decisionRef": true, "decisionRefBinding": true, "decisionRefVersion": true, "decisionRefVersionTag": true,
	"decisionRefTenantId": true, "mapDecisionResult": true,
	"variableMappingClass": true, "variableMappingDelegateExpression": true,
	"formRefBinding": true, "formRefVersion": true,
}

// camundaMetadata are camunda: attributes with no effect on execution.
var camundaMetadata = map[string]bool{
	"isStartableInTasklist": true, "diagramRelationId": true,
	"modelerTemplate": true, "modelerTemplateVersion": true, "modelerTemplateIcon": true,
}

// camundaHints say what to do instead of an attribute bpmnlite lacks.
var camundaHints = map[string]string{
	"calledElementTenantId": "bpmnlite calls the process of the calling process's tenant",
	"tenantId":              "bpmnlite takes the tenant of the deployment (tenant-id)",
	"caseRef":               "CMMN cases are not supported: call a process",
	"caseBinding":           "CMMN cases are not supported: call a process",
	"caseVersion":           "CMMN cases are not supported: call a process",
	"caseTenantId":          "CMMN cases are not supported: call a process",
	"scriptFormat":          "scriptFormat is an attribute of the BPMN namespace (scriptFormat=\"javascript\")",
	"formHandlerClass":      "bpmnlite has no Java form handlers: declare the form with camunda:formKey, camunda:formRef or camunda:formData",
}

// checkCamundaAttributes reports every camunda: attribute in the document
// that bpmnlite does not implement, at its element. Processes that are not
// deployed (not executable) are left alone.
func (p *parser) checkCamundaAttributes(e *etree.Element) {
	if isBPMN(e, "process") && p.skipped(attrValue(e, "id")) {
		return
	}
	for _, a := range e.Attr {
		if a.Space == "" || a.Space == "xmlns" || !isCamundaNS(a.NamespaceURI()) {
			continue
		}
		if camundaAttributes[a.Key] || camundaMetadata[a.Key] {
			continue
		}
		hint := camundaHints[a.Key]
		if hint == "" {
			hint = "bpmnlite does not implement it"
		}
		p.errorf(p.siteOf(e), "camunda:%s is not supported: %s", a.Key, hint)
	}
	for _, c := range e.ChildElements() {
		p.checkCamundaAttributes(c)
	}
}

// camundaElementHints say what to do instead of a Camunda extension
// element that bpmnlite lacks, or that does not belong where it is.
var camundaElementHints = map[string]string{
	"connector":            "Camunda Connect is not available: make the call in a registered delegate (camunda:class)",
	"script":               "camunda:script belongs in a camunda:inputParameter or camunda:outputParameter, or in a listener",
	"taskListener":         "task listeners belong to user tasks",
	"in":                   "camunda:in belongs to call activities",
	"out":                  "camunda:out belongs to call activities",
	"potentialStarter":     "potential starters belong to the process",
	"inputOutput":          "input/output mappings are not allowed on this element, as in Camunda",
	"errorEventDefinition": "camunda:errorEventDefinition belongs to external tasks (camunda:type=\"external\")",
}

// unsupportedExtension reports Camunda extension element c, which has no
// meaning on its element in bpmnlite.
func (p *parser) unsupportedExtension(s site, c *etree.Element) {
	hint := camundaElementHints[c.Tag]
	if hint == "" {
		hint = "bpmnlite does not implement it"
	}
	p.errorf(p.at(s, c), "camunda:%s is not supported here: %s", c.Tag, hint)
}

// skipped reports whether process id was skipped as not executable.
func (p *parser) skipped(id string) bool {
	for _, sp := range p.defs.Skipped {
		if sp.ID == id {
			return true
		}
	}
	return false
}
