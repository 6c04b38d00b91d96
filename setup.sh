#!/usr/bin/env bash
# Installs flexpkm and everything its tests need on a fresh Debian machine
# (run as root, as CI does): the system libraries of OpenSeesPy (the
# independent FE solver of the tests), a C compiler for the generated models
# (flexpkm.compiled; without one they run on CasADi's slower virtual
# machine), then the package with its test extras.
set -euo pipefail
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  if ! dpkg -s libblas3 liblapack3 >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libblas3 liblapack3 >/dev/null
  fi
  if ! command -v cc >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc >/dev/null
  fi
fi
python3 -m pip install -q --disable-pip-version-check -e ".[test]"
