# What the bench scripts share; each sources it from the repository's root.

# Prints the JDK 25 to run with: JAVA_HOME if it is one, else the first /usr/lib/jvm/*25*;
# prints nothing when there is none.
jdk25_home() {
	if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]] \
		&& "$JAVA_HOME/bin/java" -version 2>&1 | grep -q 'version "25'; then
		echo "$JAVA_HOME"
		return
	fi
	local candidate
	for candidate in /usr/lib/jvm/*25*; do
		if [[ -x "$candidate/bin/java" ]]; then
			echo "$candidate"
			return
		fi
	done
}

# Applies the service's Flyway migrations to database $1 with psql, in version order (V10 after
# V9: a shell glob would sort it after V1). The scripts that read plans use this instead of
# starting the service.
apply_migrations() {
	local migration
	for migration in $(ls service/src/main/resources/db/migration/V*.sql | sort -V); do
		psql -q -X -v ON_ERROR_STOP=1 -d "$1" -f "$migration"
	done
}
