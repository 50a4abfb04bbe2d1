package bpmn

import (
	"errors"
	"fmt"
	"strings"

	"github.com/beevik/etree"

	"github.com/bpmnlite/bpmnlite/script"
)

// Script is a JavaScript script of the model (scriptFormat or language
// javascript, js or ecmascript): a script task's, a script condition, a
// camunda:script parameter value or listener. Its source is inline, or
// Resource names a resource of the deployment (camunda:resource, which may
// be an expression), read and compiled when it first runs.
type Script struct {
	Format   string // as written
	Source   string // inline source, as written (line 1 is the rest of the opening tag's line)
	Resource string // camunda:resource: "deployment://name", "classpath://name" or a name
	Pos      Position
	// Program is the compiled script: Source's, or the resource's when
	// the parser was given the deployment's resources (else nil: the
	// runtime reads and compiles the resource when it first runs).
	Program *script.Program
}

// scriptHint is what a model with a script in another language may use.
const scriptHint = "use javascript, an expression, or a delegate"

// parseScript reads a script in format with inline source src (raw) or
// resource; what names it in problems. It returns nil, after reporting
// why, when the script cannot run.
func (p *parser) parseScript(s site, what, format, src, resource string) *Script {
	format = strings.TrimSpace(format)
	resource = strings.TrimSpace(resource)
	switch {
	case format == "":
		p.errorf(s, "%s: Missing attribute 'scriptFormat'", what)
		return nil
	case !script.IsJavaScript(format):
		p.errorf(s, "%s: scriptFormat '%s' is not supported: %s", what, format, scriptHint)
		return nil
	case resource == "" && strings.TrimSpace(src) == "":
		p.errorf(s, "%s: No script source or resource was given", what)
		return nil
	}
	sc := &Script{Format: format, Pos: s.pos}
	if resource != "" {
		sc.Resource = resource
		if isExpression(resource) {
			p.checkMaybeExpr(s, what+" camunda:resource", resource)
		} else if p.opts.Resources != nil {
			p.resourceScript(s, what, sc)
		}
		return sc
	}
	if isExpression(strings.TrimSpace(src)) && strings.HasPrefix(strings.TrimSpace(src), "${") && strings.HasSuffix(strings.TrimSpace(src), "}") {
		p.errorf(s, "%s: a script source given by an expression is not supported: write the script, or name a resource with camunda:resource", what)
		return nil
	}
	prog, err := script.Compile(what, src, p.opts.MaxScriptBytes)
	if err != nil {
		p.errorf(s, "%s (%s) %v", what, format, scriptProblem(err))
		return nil
	}
	sc.Source, sc.Program = src, prog
	return sc
}

// ResourceName is the name of a script's resource in its deployment:
// Camunda's deployment:// and classpath:// schemes stripped (bpmnlite
// looks for classpath resources among the deployment's).
func ResourceName(resource string) string {
	for _, scheme := range []string{"deployment://", "classpath://"} {
		resource = strings.TrimPrefix(resource, scheme)
	}
	return resource
}

// resourceScript compiles sc's resource, which the deployment must hold.
func (p *parser) resourceScript(s site, what string, sc *Script) {
	name := ResourceName(sc.Resource)
	src, ok := p.opts.Resources[name]
	if !ok {
		p.errorf(s, "%s: camunda:resource '%s': the deployment has no resource '%s'", what, sc.Resource, name)
		return
	}
	prog, err := script.Compile(name, string(src), p.opts.MaxScriptBytes)
	if err != nil {
		p.errorf(s, "%s (%s) resource '%s' %v", what, sc.Format, name, scriptProblem(err))
		return
	}
	sc.Program = prog
}

// scriptProblem words a compile error: "line 2:5 of the script: SyntaxError: ...".
func scriptProblem(err error) string {
	var se *script.Error
	if errors.As(err, &se) && se.Line > 0 {
		return fmt.Sprintf("line %d:%d of the script: %s", se.Line, se.Column, se.Message)
	}
	return err.Error()
}

// scriptText is the character data of a script element, untrimmed (so
// that lines count from the element), CDATA sections included.
func scriptText(e *etree.Element) string {
	var b strings.Builder
	for _, t := range e.Child {
		if cd, ok := t.(*etree.CharData); ok {
			b.WriteString(cd.Data)
		}
	}
	return b.String()
}

// camundaScript reads a camunda:script element (in a parameter value or a
// listener).
func (p *parser) camundaScript(s site, what string, e *etree.Element) *Script {
	return p.parseScript(p.at(s, e), what, attrValue(e, "scriptFormat"), scriptText(e), attrValue(e, "resource"))
}

// scriptTask reads what a script task runs.
func (p *parser) scriptTask(s site, e *etree.Element, a *Activity) {
	format, ok := attr(e, "scriptFormat")
	if !ok {
		format = "juel" // Camunda's default language
	}
	src := ""
	if c := bpmnChild(e, "script"); c != nil {
		src = scriptText(c)
	}
	a.Script = p.parseScript(s, "script", format, src, camundaValue(e, "resource"))
	a.ResultVariable = strings.TrimSpace(camundaValue(e, "resultVariable"))
}

// conditionScript reads the script of a condition (a sequence flow's
// conditionExpression or a conditional event's condition) written with a
// language other than JUEL; text is its trimmed text. ok is false when the
// condition is an expression.
func (p *parser) conditionScript(s site, what string, c *etree.Element) (sc *Script, ok bool) {
	lang := strings.TrimSpace(attrValue(c, "language"))
	switch {
	case lang == "" || strings.EqualFold(lang, "juel"):
		return nil, false
	case lang == "http://www.w3.org/1999/XPath":
		p.warnf(s, "condition language '%s' is ignored: the condition is read as an expression", lang)
		return nil, false
	}
	return p.parseScript(s, what, lang, scriptText(c), camundaValue(c, "resource")), true
}
