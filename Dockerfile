# syntax=docker/dockerfile:1
#
# The Work Graph service as a container image:
#   docker build -t work-graph .
#   docker run -e SPRING_DATASOURCE_URL=jdbc:postgresql://HOST:5432/workgraph \
#     -e SPRING_DATASOURCE_USERNAME=... -e SPRING_DATASOURCE_PASSWORD=... -p 8080:8080 work-graph
# or, with PostgreSQL alongside it: docker compose up -d --wait (see docker-compose.yml).

# ---- build: the Maven wrapper on a JDK 25 ----
FROM eclipse-temurin:25-jdk AS build
WORKDIR /src
# The build definition first, so that its dependencies are a layer of their own that code
# changes do not invalidate.
# Every module's build definition must be there, or Maven refuses the reactor; the service's
# build pulls in the client and the example agent (its tests use them), so their main sources
# come too.
COPY mvnw pom.xml ./
COPY .mvn/ .mvn/
COPY service/pom.xml service/
COPY client/pom.xml client/
COPY examples/pom.xml examples/
RUN --mount=type=cache,target=/root/.m2 \
    ./mvnw -B -q -pl service -am dependency:go-offline -Djacoco.skip=true
COPY client/src/main/ client/src/main/
COPY examples/src/main/ examples/src/main/
COPY service/src/ service/src/
# The tests run in CI (./mvnw verify), not in the image build (their sources are not even sent).
RUN --mount=type=cache,target=/root/.m2 \
    ./mvnw -B -q -pl service -am package -Dmaven.test.skip=true -Djacoco.skip=true \
    && cp service/target/work-graph-service-*.jar /application.jar \
    && java -Djarmode=tools -jar /application.jar extract --layers --destination /extracted

# ---- runtime: a JRE 25, a user without privileges ----
FROM eclipse-temurin:25-jre
RUN groupadd --system --gid 10001 workgraph \
    && useradd --system --uid 10001 --gid workgraph --no-create-home --shell /usr/sbin/nologin workgraph
WORKDIR /app
# Spring Boot's layers, least often changed first.
COPY --from=build /extracted/dependencies/ ./
COPY --from=build /extracted/spring-boot-loader/ ./
COPY --from=build /extracted/snapshot-dependencies/ ./
COPY --from=build /extracted/application/ ./
USER workgraph:workgraph
# A container must be told where its database is: without SPRING_DATASOURCE_URL the service
# fails at start instead of quietly running an embedded PostgreSQL inside the container.
ENV WORKGRAPH_EMBEDDED_DATABASE_ENABLED=false \
    SERVER_PORT=8080
EXPOSE 8080
# UP only while PostgreSQL answers. The image has no curl: bash's /dev/tcp speaks HTTP/1.0.
HEALTHCHECK --interval=10s --timeout=5s --start-period=90s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${SERVER_PORT} && printf 'GET /actuator/health HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
# The JVM is PID 1 and gets SIGTERM itself: the service drains requests in flight for up to
# spring.lifecycle.timeout-per-shutdown-phase (20 s) and exits; give it 30 s (docker stop -t 30).
# Heap from the container's memory limit; an out-of-memory error ends the process (and the
# orchestrator restarts it) rather than leaving it half-working.
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "-jar", "application.jar"]
