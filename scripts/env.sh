# Source this to use the mnemo workspace in a shell: venv, built interfaces, package sources.
MNEMO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export MNEMO_ROOT
# shellcheck disable=SC1091
source "$MNEMO_ROOT/.venv/bin/activate"
export AMENT_PREFIX_PATH="$MNEMO_ROOT/.venv${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
if [ -f "$MNEMO_ROOT/install/setup.bash" ]; then
  # colcon's setup script reads unset variables; relax nounset while sourcing it.
  case $- in *u*) set +u; _mnemo_u=1;; esac
  # shellcheck disable=SC1091
  source "$MNEMO_ROOT/install/setup.bash"
  [ -n "${_mnemo_u:-}" ] && set -u; unset _mnemo_u
fi
# Package sources first, so edits take effect without a rebuild.
for _p in "$MNEMO_ROOT"/src/*/; do PYTHONPATH="${_p%/}${PYTHONPATH:+:$PYTHONPATH}"; done
export PYTHONPATH
unset _p
export RMW_IMPLEMENTATION="${RMW_IMPLEMENTATION:-rmw_fastrtps_cpp}"
export MUJOCO_GL="${MUJOCO_GL:-egl}"
export PYOPENGL_PLATFORM="${PYOPENGL_PLATFORM:-$MUJOCO_GL}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export YOLO_OFFLINE=1
