#!/usr/bin/env bash
# jitlab and its test dependencies for a machine with JAX but no network (a TPU VM lent
# without one), as wheels carried beside the checkout.
#
#   bash benchmarks/accel_wheels.sh download   # here, with network: fills .whl-tpu/
#   bash benchmarks/accel_wheels.sh install DIR  # there: a venv in DIR, then
#   PYTHON=DIR/bin/python bash benchmarks/accel_check.sh
#
# download: jitlab's own wheel (built from this checkout) and, at the versions this checkout's
# environment has ($PYTHON, default .venv/bin/python), the wheels of what jitlab runs and is
# tested with that such a machine lacks: no Qt (PySide6, pyqtgraph, superqt: the GUI's tests
# skip there), no JAX, numpy or scipy (the machine's own), no pytest or hypothesis (it has
# them); Flax and Optax come from the machine's own index at install. Python 3.11, manylinux
# x86-64 (the TPU VM's), about 5 MiB; .whl-tpu/ is ignored through .git/info/exclude.
#
# install: a venv in DIR that sees the machine's packages (--system-site-packages; its JAX
# stays first on PYTHONPATH), the carried wheels installed in it with no index (`jitlab` is
# then DIR/bin/jitlab, beside DIR/bin/python, as the tests expect; the code it runs is this
# checkout's, through a .pth, whenever the wheel was built), and Flax and Optax from
# /opt/pypi/simple where the machine has that index, in DIR/extra, after everything else on
# sys.path (their JAX, numpy and scipy removed: the machine's are the ones to test).
set -euo pipefail
cd "$(dirname "$0")/.."
WHEELS=.whl-tpu
# What jitlab needs there beyond the machine's Python, JAX, pytest and hypothesis.
CARRIED=(
  rich markdown-it-py mdurl pygments platformdirs  # jitlab's own, less Qt
  pytest-xdist execnet                             # the suite runs on several cores
  equinox jaxtyping wadler-lindig typing-extensions  # tests/real: Equinox
  diffrax lineax optimistix                        # tests/real: Diffrax
  numpyro multipledispatch tqdm                    # tests/real: NumPyro
)
FROM_INDEX=(flax optax)  # in the TPU VM's own index (/opt/pypi/simple)

download() {
  local py=${PYTHON:-.venv/bin/python} pins=() name version
  rm -rf "$WHEELS"
  mkdir -p "$WHEELS"
  exclude=$(git rev-parse --git-path info/exclude)
  grep -qxF "/$WHEELS/" "$exclude" 2>/dev/null || echo "/$WHEELS/" >>"$exclude"
  for name in "${CARRIED[@]}"; do
    version=$("$py" -c 'import importlib.metadata, sys; print(importlib.metadata.version(sys.argv[1]))' "$name")
    pins+=("$name==$version")
  done
  echo "downloading ${pins[*]}"
  "$py" -m pip download -q --no-deps --only-binary=:all: --python-version 3.11 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    --platform manylinux1_x86_64 -d "$WHEELS" "${pins[@]}"
  "$py" -m pip wheel -q --no-deps -w "$WHEELS" .
  ls "$WHEELS"
  du -sh "$WHEELS"
}

install() {
  local dir=${1:?install needs a folder for the venv}
  python3 -m venv --without-pip --system-site-packages "$dir"
  local py="$dir/bin/python"
  PIP_CONFIG_FILE=/dev/null "$py" -m pip install --isolated -q --no-index --no-deps \
    --no-compile --no-cache-dir "$WHEELS"/*.whl
  local site
  site=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  # jitlab itself is this checkout's (the tests' own), whenever the wheel was built: its
  # wheel leaves the metadata (the `jitlab` command, the pytest plugin), a .pth the code.
  rm -rf "$site/jitlab"
  pwd >"$site/jitlab-checkout.pth"
  if ! "$py" -c 'import flax.nnx, optax' 2>/dev/null && [[ -d /opt/pypi/simple ]]; then
    local extra="$dir/extra"
    PIP_CONFIG_FILE=/dev/null "$py" -m pip install --isolated -q --only-binary=:all: \
      --no-compile --no-cache-dir --index-url file:///opt/pypi/simple --target "$extra" \
      "${FROM_INDEX[@]}" || echo "accel_wheels: flax and optax did not install (the NNX check skips)"
    rm -rf "$extra"/{jax,jaxlib,numpy,scipy,ml_dtypes}{,-*.dist-info} "$extra/bin"
    echo "$extra" >"$site/zz-accel-extra.pth"  # a .pth line: after PYTHONPATH and site-packages
  fi
  "$py" -c 'import jax, jitlab; print("jitlab", jitlab.__version__, "on jax", jax.__version__, jax.__file__)'
}

case "${1:-download}" in
  download) download ;;
  install) install "${2:-}" ;;
  *) echo "usage: $0 [download | install DIR]" >&2; exit 2 ;;
esac
