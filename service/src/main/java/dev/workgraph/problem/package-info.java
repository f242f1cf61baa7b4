/**
 * RFC 9457 problems: the stable codes, the exceptions features throw to refuse a request,
 * and the one advice that turns every failure into a problem response.
 */
package dev.workgraph.problem;
