package persistence

// AnnotateHistoricIncident sets the annotation of an incident's history
// record ("": none).
func AnnotateHistoricIncident(id, annotation string) Write {
	var a any
	if annotation != "" {
		a = annotation
	}
	return newWrite("UPDATE hist_incident SET annotation = $1, rev = rev + 1 WHERE id = $2", a, id)
}
