package dev.workgraph.fence;

import dev.workgraph.view.LeaseSigner;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.function.SingletonSupplier;

/**
 * Hands the signer to the JSON mapper, so that every lease view written carries its token
 * (see {@link dev.workgraph.view.FenceTokenProperty}). The signer is looked up when the
 * first lease view is written, not when the mapper is built: its key lives in the
 * database, and the mapper is built before the database is reached, so that a database
 * that cannot be reached fails the start through its own failure analysis.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(FenceProperties.class)
class FenceConfiguration {

	@Bean
	JsonMapperBuilderCustomizer leaseViewsSigned(ObjectProvider<FenceTokens> tokens) {
		SingletonSupplier<FenceTokens> resolved = SingletonSupplier.of(tokens::getObject);
		LeaseSigner signer = (lease) -> resolved.obtain().fenceToken(lease);
		return (builder) -> builder
			.defaultAttributes(builder.defaultAttributes().withSharedAttribute(LeaseSigner.ATTRIBUTE, signer));
	}

}
