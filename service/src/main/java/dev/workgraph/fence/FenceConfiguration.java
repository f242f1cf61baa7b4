package dev.workgraph.fence;

import dev.workgraph.view.LeaseSigner;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Hands the signer to the JSON mapper, so that every lease view written carries its token
 * (see {@link dev.workgraph.view.FenceTokenProperty}).
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(FenceProperties.class)
class FenceConfiguration {

	@Bean
	JsonMapperBuilderCustomizer leaseViewsSigned(FenceTokens tokens) {
		return (builder) -> builder
			.defaultAttributes(builder.defaultAttributes().withSharedAttribute(LeaseSigner.ATTRIBUTE, tokens));
	}

}
