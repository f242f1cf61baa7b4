package dev.workgraph.client.worker;

/**
 * The work a {@link Worker} does for each item it claims. Runs on a handler thread of its
 * own while the runtime renews the lease in the background.
 *
 * <ul>
 * <li>Returning completes the item with the returned value as its JSON result (null: no
 * result), unless the handler already ended the lease through the {@link LeaseContext}.
 * <li>Throwing hands the failure to the worker's {@link FailurePolicy} (by default:
 * release the item, and ask a human after three failures in a row).
 * <li>When the lease is lost, the handler's thread is interrupted: stop and return (or
 * throw); nothing it does afterwards is sent.
 * </ul>
 */
@FunctionalInterface
public interface ItemHandler {

	Object handle(LeaseContext lease) throws Exception;

}
