package main

import (
	"context"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// tracingFromEnv is serve's tracer provider, configured as every
// OpenTelemetry SDK is, by the standard environment: spans go over OTLP/HTTP
// to OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
// named by OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. With neither
// endpoint set, or OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, it
// returns nil: no spans are made. shutdown flushes what is buffered.
func tracingFromEnv(ctx context.Context) (tp trace.TracerProvider, shutdown func(context.Context) error, err error) {
	none := func(context.Context) error { return nil }
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" ||
		strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") || os.Getenv("OTEL_TRACES_EXPORTER") == "none" {
		return nil, none, nil
	}
	exporter, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, none, err
	}
	res, err := resource.Merge(resource.Default(), resource.Environment())
	if err != nil {
		return nil, none, err
	}
	provider := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	// Incoming requests carry their caller's trace in W3C traceparent
	// headers; the REST handler continues it.
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	otel.SetTracerProvider(provider)
	return provider, provider.Shutdown, nil
}
