/**
 * The service's own Prometheus series (docs/operations.md, "Metrics"): counters that the
 * features call where an outcome is known
 * ({@link dev.workgraph.metrics.WorkGraphMetrics}), and gauges sampled on a schedule by
 * one cheap query, never per scrape. A shared package: it depends on no feature.
 */
package dev.workgraph.metrics;
