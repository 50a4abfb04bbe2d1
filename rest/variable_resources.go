package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/bpmnlite/bpmnlite"
)

// The variables of an owner (a process instance, an execution, a task) as
// Camunda's variable sub-resources: read all, modify (modifications and
// deletions), and one by name: get, put, delete, and its binary content.
// One generic layer serves every owner.

// variableOwner is one owner's variables resource.
type variableOwner struct {
	path     string // "/process-instance/{id}/variables"
	typeName string // in messages: "process instance", "task", "execution"
	// scope is the scope the owner's variables are in.
	scope func(id string) bpmnlite.VariableScope
	// missing is the message of an owner that does not exist.
	missing func(id string) string
}

func (h *Handler) variableRoutes() {
	executionMissing := func(id string) string { return "execution " + id + " doesn't exist" }
	taskMissing := func(id string) string { return "task " + id + " doesn't exist" }
	for _, o := range []variableOwner{
		{"/process-instance/{id}/variables", "process instance", func(id string) bpmnlite.VariableScope {
			return bpmnlite.VariableScope{ExecutionID: id}
		}, executionMissing},
		{"/execution/{id}/localVariables", "execution", func(id string) bpmnlite.VariableScope {
			return bpmnlite.VariableScope{ExecutionID: id, Local: true}
		}, executionMissing},
		{"/task/{id}/variables", "task", func(id string) bpmnlite.VariableScope {
			return bpmnlite.VariableScope{TaskID: id}
		}, taskMissing},
		{"/task/{id}/localVariables", "task", func(id string) bpmnlite.VariableScope {
			return bpmnlite.VariableScope{TaskID: id, Local: true}
		}, taskMissing},
	} {
		h.ownerVariableRoutes(o)
	}
}

func encodeInstances(vars map[string]*bpmnlite.VariableInstance, deserialize bool) map[string]TypedValue {
	out := make(map[string]TypedValue, len(vars))
	for name, v := range vars {
		out[name] = encodeInstance(v, deserialize)
	}
	return out
}

// typedVariables are the variables visible from execution id with their
// declared types (a Short as Short, an Object as Object); an ended
// execution's as Engine.Variables finds them.
func (h *Handler) typedVariables(ctx context.Context, id string) (map[string]TypedValue, error) {
	vars, err := h.eng.ScopeVariables(ctx, bpmnlite.VariableScope{ExecutionID: id})
	if err == nil {
		return encodeInstances(vars, true), nil
	}
	if !isNotFound(err) {
		return nil, err
	}
	plain, err := h.eng.Variables(ctx, id)
	if err != nil {
		return nil, err
	}
	return EncodeVariables(plain), nil
}

// boolParam is query parameter name, true when absent (Camunda's
// deserializeValue(s) default).
func boolParam(r *http.Request, name string) (bool, error) { return boolParamOr(r, name, true) }

// boolParamOr is query parameter name, def when absent.
func boolParamOr(r *http.Request, name string, def bool) (bool, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, badRequest("query parameter %s: %q is not a boolean", name, s)
	}
	return b, nil
}

func (h *Handler) ownerVariableRoutes(o variableOwner) {
	// owned maps an unknown owner to a 404: what the message says before
	// the owner's message (context, "" for none).
	owned := func(r *http.Request, context string, err error) error {
		if isNotFound(err) {
			return &notFound{context + o.missing(r.PathValue("id"))}
		}
		return err
	}
	read := func(r *http.Request) (map[string]*bpmnlite.VariableInstance, error) {
		return h.eng.ScopeVariables(r.Context(), o.scope(r.PathValue("id")))
	}
	// one is variable varName, or a 404.
	one := func(r *http.Request) (*bpmnlite.VariableInstance, error) {
		name := r.PathValue("varName")
		vars, err := read(r)
		if err != nil {
			return nil, owned(r, fmt.Sprintf("Cannot get %s variable %s: ", o.typeName, name), err)
		}
		v := vars[name]
		if v == nil {
			return nil, &notFound{fmt.Sprintf("%s variable with name %s does not exist", o.typeName, name)}
		}
		return v, nil
	}
	put := func(r *http.Request, value any) error {
		name := r.PathValue("varName")
		err := h.eng.ModifyVariables(r.Context(), o.scope(r.PathValue("id")), map[string]any{name: value}, nil)
		return owned(r, fmt.Sprintf("Cannot put %s variable %s: ", o.typeName, name), err)
	}
	h.handle("GET "+o.path, func(w http.ResponseWriter, r *http.Request) error {
		deserialize, err := boolParam(r, "deserializeValues")
		if err != nil {
			return err
		}
		vars, err := read(r)
		if err != nil {
			return owned(r, "", err)
		}
		writeJSON(w, http.StatusOK, encodeInstances(vars, deserialize))
		return nil
	}, "deserializeValues")
	h.handle("POST "+o.path, func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Modifications map[string]TypedValue `json:"modifications"`
			Deletions     []string              `json:"deletions"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		vars, err := DecodeVariables(body.Modifications)
		if err != nil {
			return badRequest("Cannot modify variables for %s: %v", o.typeName, err)
		}
		id := r.PathValue("id")
		err = h.eng.ModifyVariables(r.Context(), o.scope(id), vars, body.Deletions)
		if err != nil {
			return owned(r, fmt.Sprintf("Cannot modify variables for %s %s: ", o.typeName, id), err)
		}
		return noContent(w)
	})
	h.handle("GET "+o.path+"/{varName}", func(w http.ResponseWriter, r *http.Request) error {
		deserialize, err := boolParam(r, "deserializeValue")
		if err != nil {
			return err
		}
		v, err := one(r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, encodeInstance(v, deserialize))
		return nil
	}, "deserializeValue")
	h.handle("PUT "+o.path+"/{varName}", func(w http.ResponseWriter, r *http.Request) error {
		var tv TypedValue
		if err := readJSON(r, &tv); err != nil {
			return err
		}
		name := r.PathValue("varName")
		vars, err := DecodeVariables(map[string]TypedValue{name: tv})
		if err != nil {
			return badRequest("Cannot put %s variable %s: %v", o.typeName, name, err)
		}
		if err := put(r, vars[name]); err != nil {
			return err
		}
		return noContent(w)
	})
	h.handle("DELETE "+o.path+"/{varName}", func(w http.ResponseWriter, r *http.Request) error {
		name := r.PathValue("varName")
		err := h.eng.ModifyVariables(r.Context(), o.scope(r.PathValue("id")), nil, []string{name})
		if err != nil {
			return owned(r, fmt.Sprintf("Cannot delete %s variable %s: ", o.typeName, name), err)
		}
		return noContent(w)
	})
	h.handle("GET "+o.path+"/{varName}/data", func(w http.ResponseWriter, r *http.Request) error {
		v, err := one(r)
		if err != nil {
			return err
		}
		return writeBinary(w, v, r.PathValue("id"))
	})
	h.handle("POST "+o.path+"/{varName}/data", func(w http.ResponseWriter, r *http.Request) error {
		value, err := readBinaryVariable(r)
		if err != nil {
			return err
		}
		if err := put(r, value); err != nil {
			return err
		}
		return noContent(w)
	})
}

// writeBinary answers a Bytes or File variable's content, as Camunda: a
// File with its mime type, encoding and file name; other types are a 400
// naming id (the owner's, or the variable's for variable instances).
func writeBinary(w http.ResponseWriter, v *bpmnlite.VariableInstance, id string) error {
	content, _ := v.Value.([]byte)
	switch v.Type {
	case "Bytes":
		w.Header().Set("Content-Type", "application/octet-stream")
	case "File":
		typ, _ := v.ValueInfo["mimeType"].(string)
		if typ == "" {
			typ = "application/octet-stream"
		}
		if enc, _ := v.ValueInfo["encoding"].(string); enc != "" {
			typ += "; charset=" + enc
		}
		w.Header().Set("Content-Type", typ)
		filename, _ := v.ValueInfo["filename"].(string)
		w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": filename}))
	default:
		return badRequest("Value of variable with id %s is not a binary value.", id)
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(content)
	return nil
}

// readBinaryVariable reads the multipart body of a binary variable, as
// Camunda: part data (its content), valueType (Bytes, the default, or
// File: then data's file name and content type are the File's filename,
// mimeType, and its encoding parameter the encoding), or type: an object
// type name for a JSON data part, an Object variable.
func readBinaryVariable(r *http.Request) (any, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, badRequest("the body must be multipart/form-data with a part named data: %v", err)
	}
	var data []byte
	var dataType, filename, valueType, objectType string
	var haveData bool
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, badRequest("the multipart body is malformed: %v", err)
		}
		content, err := io.ReadAll(p)
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return nil, err
			}
			return nil, badRequest("the multipart body is malformed: %v", err)
		}
		switch p.FormName() {
		case "data":
			data, dataType, filename, haveData = content, p.Header.Get("Content-Type"), p.FileName(), true
		case "valueType":
			valueType = string(content)
		case "type":
			objectType = string(content)
		}
	}
	if !haveData {
		return nil, badRequest("the multipart body has no part named data")
	}
	if objectType != "" {
		if !strings.Contains(strings.ToLower(dataType), "application/json") {
			return nil, badRequest("Unrecognized content type for serialized java type: %s", dataType)
		}
		if !json.Valid(data) {
			return nil, badRequest("Could not deserialize JSON object: the data part is not JSON")
		}
		return bpmnlite.TypedValue{Type: "Object", Value: json.RawMessage(data),
			Info: map[string]any{"objectTypeName": objectType, "serializationDataFormat": "application/json"}}, nil
	}
	switch strings.ToLower(valueType) {
	case "", "bytes":
		return bpmnlite.TypedValue{Type: "Bytes", Value: data}, nil
	case "file":
		info := map[string]any{"filename": filename}
		if dataType == "" {
			dataType = "application/octet-stream"
		}
		base, params, err := mime.ParseMediaType(dataType)
		if err != nil {
			return nil, badRequest("Invalid mime type given")
		}
		info["mimeType"] = base
		if enc := params["encoding"]; enc != "" {
			info["encoding"] = enc
		}
		v := any(bpmnlite.TypedValue{Type: "File", Value: data, Info: info})
		if t, _ := strconv.ParseBool(params["transient"]); t {
			v = bpmnlite.Transient(v)
		}
		return v, nil
	}
	return nil, badRequest("Unsupported value type '%s' for binary data (Bytes or File)", valueType)
}
