package dev.workgraph.tracing;

import java.util.Map;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.workgraph.testing.ServiceTest;
import io.micrometer.tracing.Tracer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tracing off, as configured by default: no tracer exists, the features tag nothing, SQL
 * reaches the pool itself (no proxy), and a caller's traceparent changes nothing.
 */
class TracingOffTests extends ServiceTest {

	@Autowired
	private ApplicationContext context;

	@Autowired
	private LeaseSpans spans;

	@Autowired
	private DataSource dataSource;

	@Autowired
	private TraceHeaders traceHeaders;

	@Test
	void nothingOnTheHotPathTraces() {
		assertThat(this.context.getBeansOfType(Tracer.class)).isEmpty();
		assertThat(this.spans).isSameAs(LeaseSpans.NONE);
		assertThat(this.traceHeaders).isSameAs(TraceHeaders.NONE);
		assertThat(this.dataSource).isExactlyInstanceOf(HikariDataSource.class);
	}

	@Test
	void aCallersTraceparentIsAcceptedAndChangesNothing() {
		createItem("untraced");
		assertThat(this.api
			.post("/claims", Map.of("workerId", "w"),
					Map.of("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"))
			.status()).isEqualTo(201);
	}

}
