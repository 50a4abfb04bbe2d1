// Package bpmnio holds the published build of bpmn-js's navigated viewer
// (bpmn.io, MIT licence in LICENSE, version in VERSION), so that the
// browser UI and the test kit's coverage report draw diagrams without
// Node.js or a CDN. The bpmn.io watermark its licence asks for stays.
package bpmnio

import "embed"

// Files are the viewer's script (bpmn-navigated-viewer.production.min.js),
// its style sheets (diagram-js.css, bpmn-js.css) and LICENSE.
//
//go:embed LICENSE VERSION *.css *.js
var Files embed.FS
