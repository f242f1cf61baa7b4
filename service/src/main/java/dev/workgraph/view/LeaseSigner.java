package dev.workgraph.view;

/**
 * Signs a lease's fence token: what {@link FenceTokenProperty} asks of the service when a
 * {@link LeaseView} is written. Kept as a shared attribute of the JSON mapper, so that
 * each application context signs with its own key.
 */
@FunctionalInterface
public interface LeaseSigner {

	/** The JSON mapper's shared attribute that holds the service's signer. */
	String ATTRIBUTE = LeaseSigner.class.getName();

	/** The lease's fence token: a compact JWS. */
	String fenceToken(LeaseView lease);

}
