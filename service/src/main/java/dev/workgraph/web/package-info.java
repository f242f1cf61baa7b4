/**
 * HTTP plumbing shared by every feature: request size limits, strict JSON reading and
 * binding, and problem answers for errors raised outside Spring MVC.
 */
package dev.workgraph.web;
