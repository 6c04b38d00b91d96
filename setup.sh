#!/usr/bin/env bash
# The developers' set-up on a fresh Debian/Ubuntu machine (CI runs it): a
# virtual environment .venv beside this file (made when absent: a stock Debian
# Python refuses `pip install` outside one, PEP 668 "externally managed"),
# with flexpkm installed editable and every extra (.[all]: pictures, compiled
# models, tests). It sees the system's packages (--system-site-packages), so
# what is already installed is not downloaded again. Inside an active virtual
# environment, that one is used instead. Then: . .venv/bin/activate
#
# As root it first installs the system packages missing: python3-venv (the
# venv), libblas3/liblapack3 (OpenSeesPy, the tests' independent FE solver)
# and gcc (the generated models; without a C compiler they run on CasADi's
# slower virtual machine), g++ (the workspace map's locked loop with Eigen's
# headers, cmeel-eigen; without it the map uses LAPACK's slower loop).
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  need=()
  dpkg -s libblas3 liblapack3 >/dev/null 2>&1 || need+=(libblas3 liblapack3)
  command -v cc >/dev/null 2>&1 || need+=(gcc)
  command -v g++ >/dev/null 2>&1 || need+=(g++)   # the map's locked loop with Eigen
  if [ -z "${VIRTUAL_ENV:-}" ] && [ ! -x .venv/bin/python ] \
      && ! "$PY" -c "import ensurepip" >/dev/null 2>&1; then
    need+=(python3-venv)
  fi
  if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi
if [ -n "${VIRTUAL_ENV:-}" ]; then
  VPY=python                        # the active virtual environment
else
  [ -x .venv/bin/python ] || "$PY" -m venv --system-site-packages .venv
  VPY=.venv/bin/python
fi
"$VPY" -m pip install -q --disable-pip-version-check -e ".[all]"
