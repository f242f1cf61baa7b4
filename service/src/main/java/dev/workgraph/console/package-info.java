/**
 * The web console for the humans who steer the work (docs/console.md): it serves the
 * static pages under {@code /console} and the headers that keep hostile item content
 * inert there. The pages call the JSON API like any other client; nothing here reads or
 * writes the database.
 */
package dev.workgraph.console;
