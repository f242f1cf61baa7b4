/**
 * The chaos harness (docs/reliability.md): a randomized, seeded workload of simulated
 * workers and operators against real service processes on a throwaway PostgreSQL cluster,
 * faults injected underneath them, and a checker that proves from the recorded history
 * that no invariant broke.
 */
package dev.workgraph.chaos;
