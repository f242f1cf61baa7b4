/**
 * Webhooks (docs/changes.md): targets that the change stream's changes are posted to,
 * signed as Standard Webhooks, at least once and in seq order per webhook, by one
 * dispatcher at a time that holds no transaction while a target answers.
 */
package dev.workgraph.webhook;
