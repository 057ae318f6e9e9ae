#!/bin/sh
# Keycloak's kc.sh runs java as a background child instead of exec'ing it, so a kc.sh that is
# killed outright would leave the JVM running. hack/src/keycloak.ts points kc.sh's $JAVA here:
# the JVM then gets SIGKILL as soon as kc.sh dies, whatever killed it.
exec setpriv --pdeathsig KILL -- "$JAVA_HOME/bin/java" "$@"
