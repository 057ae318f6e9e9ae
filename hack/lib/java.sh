# shellcheck shell=bash
# Finds the JDK that runs Keycloak: the newest one under /usr/lib/jvm whose major version is
# at least 17 (Keycloak 26 wants 21 or later; 17 still runs it, deprecated). Debian bookworm
# only packages 17, so a newer one is used when the machine has one (e.g. a Temurin JDK).

# java_major JAVA_HOME: the major version (25 for "25.0.3"), 0 when unknown.
java_major() {
  local v=""
  if [ -f "$1/release" ]; then
    v=$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$1/release")
  fi
  if [ -z "$v" ]; then
    v=$("$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p')
  fi
  v=${v%%.*}
  case "$v" in '' | *[!0-9]*) echo 0 ;; *) echo "$v" ;; esac
}

# pick_java_home: prints the chosen JAVA_HOME, or nothing when no JDK >= 17 is installed.
pick_java_home() {
  local best="" best_major=0 home major
  for home in /usr/lib/jvm/*; do
    [ -L "$home" ] && continue # Debian's alias names point at the same JDK
    [ -x "$home/bin/java" ] || continue
    major=$(java_major "$home")
    if [ "$major" -gt "$best_major" ]; then
      best=$home
      best_major=$major
    fi
  done
  if [ "$best_major" -ge 17 ]; then echo "$best"; fi
}
