/**
 * The Work Graph client: {@link dev.workgraph.client.WorkGraphClient}, one typed method
 * per endpoint, and the requests and answers it sends and receives.
 */
package dev.workgraph.client;
