/**
 * The packaged jar's entry point, compiled for Java 17 (the rest of the service needs
 * Java 25): on an older Java it finds a Java 25 on the machine, as the build does, and
 * runs the jar with it; on Java 25 it starts the service at once. Depends on no other
 * package.
 */
package dev.workgraph.launcher;
