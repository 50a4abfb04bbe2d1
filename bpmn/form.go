package bpmn

import (
	"slices"
	"strings"
	"unicode"

	"github.com/beevik/etree"
)

// Forms of user tasks and start events, as Camunda 7's DefaultFormHandler
// parses them.

// formTypes are the form field types Camunda 7 defines.
var formTypes = []string{"string", "long", "boolean", "date", "enum"}

// formConstraints are Camunda 7's built-in validators; a custom one is
// name="validator" with config naming a registered validator (Camunda's
// Java class) or an expression resolving to one.
var formConstraints = []string{"required", "readonly", "minlength", "maxlength", "min", "max"}

// form reads e's form; nil when it has none.
func (p *parser) form(s site, e *etree.Element) *Form {
	f := &Form{Key: camundaValue(e, "formKey"), Ref: camundaValue(e, "formRef"),
		RefBinding: camundaValue(e, "formRefBinding"), RefVersion: camundaValue(e, "formRefVersion")}
	p.checkMaybeExpr(s, "camunda:formKey", f.Key)
	p.checkMaybeExpr(s, "camunda:formRef", f.Ref)
	p.checkMaybeExpr(s, "camunda:formRefVersion", f.RefVersion)
	if f.Ref != "" {
		switch f.RefBinding {
		case "", "latest", "deployment":
		case "version":
			if f.RefVersion == "" {
				p.errorf(s, "camunda:formRefVersion must be set when camunda:formRefBinding is 'version'")
			}
		default:
			p.errorf(s, "camunda:formRefBinding must be one of deployment, latest, version but was '%s'", f.RefBinding)
		}
	}
	for _, ee := range e.ChildElements() {
		if !isBPMN(ee, "extensionElements") {
			continue
		}
		for _, data := range ee.ChildElements() {
			if isCamundaNS(data.NamespaceURI()) && data.Tag == "formProperty" {
				f.Properties = append(f.Properties, p.formProperty(p.at(s, data), data))
			}
			if isCamundaNS(data.NamespaceURI()) && data.Tag == "formData" {
				f.BusinessKeyField = attrValue(data, "businessKey")
				for _, fe := range data.ChildElements() {
					if isCamundaNS(fe.NamespaceURI()) && fe.Tag == "formField" {
						f.Fields = append(f.Fields, p.formField(p.at(s, fe), fe))
					}
				}
			}
		}
	}
	if f.Key == "" && f.Ref == "" && len(f.Fields) == 0 && len(f.Properties) == 0 {
		return nil
	}
	return f
}

// formField reads a camunda:formField at s.
func (p *parser) formField(s site, fe *etree.Element) FormField {
	f := FormField{ID: attrValue(fe, "id"), Label: attrValue(fe, "label"), Type: attrValue(fe, "type"),
		DefaultValue: attrValue(fe, "defaultValue"), DatePattern: attrValue(fe, "datePattern")}
	if f.ID == "" {
		p.errorf(s, "attribute id must be set for camunda:formField and must have a non-empty value")
	}
	switch {
	case f.Type == "":
		p.errorf(s, "form field %s must have a 'type' attribute", f.ID)
	case !slices.Contains(formTypes, f.Type):
		p.errorf(s, "form field %s: unknown type '%s' (bpmnlite has the form types %s)", f.ID, f.Type, strings.Join(formTypes, ", "))
	case f.DatePattern != "" && f.Type != "date":
		p.errorf(s, "form field %s: datePattern belongs to fields of type date", f.ID)
	case f.DatePattern != "":
		if _, err := javaDateLayout(f.DatePattern); err != nil {
			p.errorf(s, "form field %s: datePattern '%s': %v", f.ID, f.DatePattern, err)
		}
	}
	p.checkMaybeExpr(s, "label of form field "+f.ID, f.Label)
	p.checkMaybeExpr(s, "defaultValue of form field "+f.ID, f.DefaultValue)
	for _, c := range fe.ChildElements() {
		if !isCamundaNS(c.NamespaceURI()) {
			continue
		}
		switch c.Tag {
		case "value":
			if f.Type == "enum" {
				f.Values = append(f.Values, FormValue{ID: attrValue(c, "id"), Name: attrValue(c, "name")})
			}
		case "properties":
			for _, pe := range c.ChildElements() {
				if pe.Tag == "property" && isCamundaNS(pe.NamespaceURI()) {
					f.Properties = append(f.Properties, Property{Name: attrValue(pe, "id"), Value: attrValue(pe, "value")})
				}
			}
		case "validation":
			for _, ce := range c.ChildElements() {
				if ce.Tag != "constraint" || !isCamundaNS(ce.NamespaceURI()) {
					continue
				}
				con := FormConstraint{Name: attrValue(ce, "name"), Config: attrValue(ce, "config")}
				switch {
				case con.Name == "validator" && con.Config == "":
					p.errorf(p.at(s, ce), "form field %s: validator configuration needs to provide either the name of a registered form field validator or an expression resolving to one", f.ID)
				case con.Name == "validator":
					p.checkMaybeExpr(p.at(s, ce), "validator of form field "+f.ID, con.Config)
				case !slices.Contains(formConstraints, con.Name):
					p.errorf(p.at(s, ce), "form field %s: Cannot find validator implementation for name '%s' (bpmnlite has %s)", f.ID, con.Name, strings.Join(formConstraints, ", "))
				}
				f.Constraints = append(f.Constraints, con)
			}
		default:
			p.errorf(p.at(s, c), "form field %s: camunda:%s is not supported in a camunda:formField", f.ID, c.Tag)
		}
	}
	return f
}

// formProperty reads a legacy camunda:formProperty at s, as Camunda's
// DefaultFormHandler.parseFormProperties.
func (p *parser) formProperty(s site, fe *etree.Element) FormProperty {
	f := FormField{ID: attrValue(fe, "id"), Label: attrValue(fe, "name"), Type: attrValue(fe, "type"),
		DefaultValue: attrValue(fe, "default"), DatePattern: attrValue(fe, "datePattern")}
	if _, ok := attr(fe, "id"); !ok {
		p.errorf(s, "camunda:formProperty: attribute 'id' is required")
	}
	switch {
	case f.Type != "" && !slices.Contains(formTypes, f.Type):
		p.errorf(s, "form property %s: unknown type '%s' (bpmnlite has the form types %s)", f.ID, f.Type, strings.Join(formTypes, ", "))
	case f.Type == "date" && f.DatePattern != "":
		if _, err := javaDateLayout(f.DatePattern); err != nil {
			p.errorf(s, "form property %s: datePattern '%s': %v", f.ID, f.DatePattern, err)
		}
	case f.Type != "date":
		f.DatePattern = "" // read only with type date, as Camunda
	}
	if f.Type == "enum" {
		for _, c := range fe.ChildElements() {
			if c.Tag == "value" && isCamundaNS(c.NamespaceURI()) {
				f.Values = append(f.Values, FormValue{ID: attrValue(c, "id"), Name: attrValue(c, "name")})
			}
		}
	}
	p.checkMaybeExpr(s, "default of form property "+f.ID, f.DefaultValue)
	prop := FormProperty{Field: f, Variable: attrValue(fe, "variable")}
	flag := func(name string, def bool) bool {
		v, ok := attr(fe, name)
		if !ok {
			return def
		}
		switch strings.ToLower(v) {
		case "on", "yes", "true", "enabled", "active":
			return true
		case "off", "no", "false", "disabled", "inactive":
			return false
		}
		p.errorf(s, "form property %s: attribute '%s' must be one of {on|yes|true|enabled|active|off|no|false|disabled|inactive}", f.ID, name)
		return def
	}
	prop.Required, prop.Readable, prop.Writable = flag("required", false), flag("readable", true), flag("writable", true)
	if expr := attrValue(fe, "expression"); expr != "" {
		// Camunda writes the value through the expression; bpmnlite
		// does so for an expression that names a variable.
		name := strings.TrimSpace(expr)
		if (strings.HasPrefix(name, "${") || strings.HasPrefix(name, "#{")) && strings.HasSuffix(name, "}") {
			name = strings.TrimSpace(name[2 : len(name)-1])
		}
		if !isIdentifier(name) || name == expr {
			p.errorf(s, "form property %s: expression '%s' is not supported: bpmnlite sets a form property's variable (variable=\"name\" or expression=\"${name}\")", f.ID, expr)
		} else if prop.Variable == "" {
			prop.Variable = name
		}
	}
	return prop
}

// isIdentifier reports whether s is a plain variable name.
func isIdentifier(s string) bool {
	for i, r := range s {
		if !(r == '_' || r == '$' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return s != ""
}

// DateLayout is the Go time layout of a form field of type date: its
// datePattern (a Java SimpleDateFormat pattern), dd/MM/yyyy by default.
func (f FormField) DateLayout() string {
	if f.DatePattern == "" {
		return "02/01/2006"
	}
	l, _ := javaDateLayout(f.DatePattern) // checked at parse
	return l
}

// javaDateLayout translates the common SimpleDateFormat letters to a Go
// layout; a pattern that needs others is refused.
func javaDateLayout(pattern string) (string, error) {
	tokens := []struct{ java, goLayout string }{
		{"yyyy", "2006"}, {"yy", "06"}, {"MMMM", "January"}, {"MMM", "Jan"}, {"MM", "01"}, {"M", "1"},
		{"dd", "02"}, {"d", "2"}, {"HH", "15"}, {"hh", "03"}, {"h", "3"}, {"mm", "04"}, {"m", "4"},
		{"ss", "05"}, {"s", "5"}, {"SSS", "000"}, {"a", "PM"}, {"EEEE", "Monday"}, {"EEE", "Mon"},
		{"XXX", "Z07:00"}, {"Z", "-0700"}, {"z", "MST"},
	}
	var b strings.Builder
	for rest := pattern; rest != ""; {
		c := rest[0]
		if c == '\'' { // quoted literal
			end := strings.IndexByte(rest[1:], '\'')
			if end < 0 {
				return "", errUnterminatedQuote
			}
			b.WriteString(rest[1 : end+1])
			rest = rest[end+2:]
			continue
		}
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			matched := false
			for _, t := range tokens {
				if strings.HasPrefix(rest, t.java) && (len(rest) == len(t.java) || rest[len(t.java)] != c) {
					b.WriteString(t.goLayout)
					rest = rest[len(t.java):]
					matched = true
					break
				}
			}
			if !matched {
				return "", &patternError{rest}
			}
			continue
		}
		b.WriteByte(c)
		rest = rest[1:]
	}
	return b.String(), nil
}

type patternError struct{ at string }

func (e *patternError) Error() string {
	return "bpmnlite does not know the date pattern letters at '" + e.at + "'"
}

var errUnterminatedQuote = &patternError{"an unterminated quote"}
