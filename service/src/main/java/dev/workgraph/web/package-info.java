/**
 * HTTP concerns shared by every feature: RFC 9457 problems, request size limits, JSON
 * settings.
 */
package dev.workgraph.web;
