/**
 * What can go wrong when talking to Work Graph: the service's RFC 9457 problems, one
 * exception type per problem {@code code}, and the failures that happen before any
 * answer.
 */
package dev.workgraph.client.problem;
