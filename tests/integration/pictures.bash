# What the scripts that draw (plots.sh, matrices.sh) share: Debian's
# python3 with analysis/ on its path, and what a non-trivial PNG is.
# Sourced after tap.bash; ends the script with a skip when pandas or
# matplotlib is missing.
PY=/usr/bin/python3
if ! "$PY" -c 'import pandas, matplotlib' 2>/dev/null; then
	skip_rest "python3-pandas or python3-matplotlib is not installed for $PY (make deps)"
fi
export MPLCONFIGDIR=$TMP/matplotlib

# pngs_why FILE...: for each FILE, a line "FILE<tab>why it is not a PNG over
# 10 KB, 6 to 12 inches wide at 100 dpi, whose pixels are not all one
# colour" ("FILE<tab>" when it is); one python for them all.
pngs_why() {
	"$PY" - "$@" <<'PY'
import os, sys
import matplotlib.image
def why(path):
    try:
        with open(path, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                return "not a PNG"
    except OSError as e:
        return str(e)
    if os.path.getsize(path) <= 10_000:
        return f"{os.path.getsize(path)} bytes"
    img = matplotlib.image.imread(path)
    if not 600 <= img.shape[1] <= 1200:
        return f"{img.shape[1]} pixels wide"
    if img[..., :3].var() < 1e-3:
        return f"one colour (variance {img[..., :3].var():.2g})"
    return ""
for path in sys.argv[1:]:
    print(f"{path}\t{why(path)}")
PY
}
# pngs_ok NAME FILE...: each FILE is a non-trivial PNG.
pngs_ok() {
	local name=$1 png why
	shift
	[ $# -gt 0 ] || { fail "$name: no PNG to check"; return; }
	while IFS=$'\t' read -r png why; do
		check "$name: $(basename "$png") is a non-trivial PNG" test -z "$why"
		[ -z "$why" ] || echo "# $png: $why"
	done < <(pngs_why "$@")
}
# py ARGS... <<'PY': a Python snippet with analysis/ on its path.
py() {
	"$PY" -c 'import sys; sys.path.insert(0, "analysis")
exec(sys.stdin.read())' "$@"
}

# notebook_env: Jupyter's files in $TMP, Debian's python3 kernel; skips
# the rest of the script when nbconvert or ipykernel is missing.
notebook_env() {
	if ! "$PY" -c 'import nbconvert, ipykernel' 2>/dev/null; then
		skip_rest "jupyter-nbconvert or python3-ipykernel is not installed for $PY (make deps)"
	fi
	export JUPYTER_DATA_DIR=$TMP/jupyter JUPYTER_RUNTIME_DIR=$TMP/jupyter/runtime
	export IPYTHONDIR=$TMP/ipython PYDEVD_DISABLE_FILE_VALIDATION=1
}
# run_notebook NAME: executes analysis/mmprof.ipynb into $TMP/NAME.ipynb
# (MMPROF_CSV as the caller set it).
run_notebook() {
	"$PY" -m nbconvert --to notebook --execute --ExecutePreprocessor.kernel_name=python3 \
		--ExecutePreprocessor.timeout=120 --output-dir "$TMP" --output "$1" \
		analysis/mmprof.ipynb >"$TMP/$1.log" 2>&1
}
