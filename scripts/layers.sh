# Sourced by scripts/test.sh: `layer NAME COMMAND...` runs one layer of the tests, prints its wall
# time and the CPU time (user + system) of its processes when it ends, and the whole table again
# when the script exits, naming the layer that failed. The CPU time says what a layer costs on a
# machine shared with other work, where the wall time alone does not.

sb_times_file=$(mktemp)
sb_layer_lines=()
sb_layer_current=""
sb_start=$SECONDS

# The CPU time is read from a cpuacct cgroup of this run where the machine lets us make one (root,
# cgroup v1): it counts every process the tests start. `times` counts only children that their
# parents waited for, which leaves out Chromium's renderers (a browser run read 4 s of CPU by
# `times` where the cgroup read 10; bench/NOTES.md, "Eighth pass: CI time").
sb_cgroup=""
if [ -w /sys/fs/cgroup/cpuacct/cgroup.procs ] && mkdir "/sys/fs/cgroup/cpuacct/sb-test-$$" 2>/dev/null; then
  if echo $$ >"/sys/fs/cgroup/cpuacct/sb-test-$$/cgroup.procs" 2>/dev/null; then
    sb_cgroup=/sys/fs/cgroup/cpuacct/sb-test-$$
  else
    rmdir "/sys/fs/cgroup/cpuacct/sb-test-$$" 2>/dev/null || true
  fi
fi

# CPU seconds used so far by this run, in sb_cpu_s: the cgroup's, else those of the finished
# children of this shell (`times` runs here, not in a $(...) subshell, whose children are none of
# the layers).
sb_cpu() {
  if [ -n "$sb_cgroup" ]; then
    sb_cpu_s=$(awk '{ printf "%.1f", $1 / 1e9 }' "$sb_cgroup/cpuacct.usage")
    return
  fi
  times >"$sb_times_file"
  sb_cpu_s=$(awk 'function sec(t) { split(t, a, "m"); sub("s", "", a[2]); return a[1] * 60 + a[2] }
       NR == 2 { printf "%.1f", sec($1) + sec($2) }' "$sb_times_file")
}

layer() {
  sb_layer_current=$1
  shift
  echo "== $sb_layer_current"
  local t0=$SECONDS c0 c1
  sb_cpu
  c0=$sb_cpu_s
  "$@"
  sb_cpu
  c1=$sb_cpu_s
  sb_layer_lines+=("$(awk -v n="$sb_layer_current" -v w=$((SECONDS - t0)) -v a="$c0" -v b="$c1" \
    'BEGIN { printf "%-58s %6d s wall %7.0f s CPU", n, w, b - a }')")
  echo "-- ${sb_layer_lines[-1]}"
  sb_layer_current=""
}

sb_layers_summary() {
  local rc=$?
  echo "== time per layer (wall; CPU = user + system of its processes)"
  printf '%s\n' "${sb_layer_lines[@]}"
  [ -z "$sb_layer_current" ] || echo "$sb_layer_current: FAILED after $((SECONDS - sb_start)) s"
  sb_cpu
  printf '%-58s %6d s wall %7.0f s CPU\n' "all" $((SECONDS - sb_start)) "$sb_cpu_s"
  rm -f "$sb_times_file"
  if [ -n "$sb_cgroup" ]; then  # back to the parent group; the run's group goes once it is empty
    echo $$ >/sys/fs/cgroup/cpuacct/cgroup.procs 2>/dev/null || true
    rmdir "$sb_cgroup" 2>/dev/null || true
  fi
  exit $rc
}
trap sb_layers_summary EXIT
