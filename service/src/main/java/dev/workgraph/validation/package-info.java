/**
 * What the service accepts as text and JSON in requests: the rules, their Bean Validation
 * constraints, and JSON values in the form they are stored.
 */
package dev.workgraph.validation;
