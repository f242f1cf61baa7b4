package dev.workgraph.view;

import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.cfg.MapperConfig;
import tools.jackson.databind.introspect.AnnotatedClass;
import tools.jackson.databind.introspect.BeanPropertyDefinition;
import tools.jackson.databind.ser.VirtualBeanPropertyWriter;
import tools.jackson.databind.util.Annotations;

/**
 * {@code fenceToken}, written with every {@link LeaseView} wherever it appears (a claim,
 * an item's lease, a renewal, a batch answer): signed when the view is written, not when
 * it is read, so a lease that is read but never sent costs no signature. A mapper without
 * a {@link LeaseSigner} (a test's own) writes null.
 */
public final class FenceTokenProperty extends VirtualBeanPropertyWriter {

	/** For Jackson, which makes the real one through {@link #withConfig}. */
	public FenceTokenProperty() {
	}

	private FenceTokenProperty(BeanPropertyDefinition property, Annotations annotations, JavaType type) {
		super(property, annotations, type);
	}

	@Override
	protected Object value(Object bean, JsonGenerator generator, SerializationContext context) {
		return (context.getAttribute(LeaseSigner.ATTRIBUTE) instanceof LeaseSigner signer)
				? signer.fenceToken((LeaseView) bean) : null;
	}

	@Override
	public VirtualBeanPropertyWriter withConfig(MapperConfig<?> config, AnnotatedClass declaringClass,
			BeanPropertyDefinition property, JavaType type) {
		return new FenceTokenProperty(property, declaringClass.getAnnotations(), type);
	}

}
