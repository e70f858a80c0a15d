#!/usr/bin/env bash
# Build the documentation site (Sphinx + numpydoc + sphinx-gallery) with warnings as errors.
#
#   pip install ".[docs]" && bash scripts/build-docs.sh    # README.md's command: docs/_build/html
#
# The `docs` extra of pyproject.toml brings everything this needs (Sphinx and its extensions,
# matplotlib for the gallery, Dask for the fwsvm.dask pages); this script installs nothing, so
# CI's run of the README's command in a fresh virtual environment checks that the extra is
# complete. The API reference is generated from the installed package's docstrings, and the
# gallery scripts in docs/gallery/ are executed against it (small bundled/generated data, well
# under a minute).
set -euo pipefail
cd "$(dirname "$0")/.."

missing="$(python3 -c '
import importlib.util
needed = ["fwsvm", "sphinx", "numpydoc", "sphinx_gallery", "pydata_sphinx_theme", "myst_parser",
          "matplotlib", "dask", "distributed"]
print(" ".join(name for name in needed if importlib.util.find_spec(name) is None))
')"
if [[ -n "$missing" ]]; then
    echo "build-docs: not installed: $missing (pip install \".[docs]\" installs fwsvm and all the docs need)" >&2
    exit 1
fi

# Generated pages are rebuilt from scratch so that a removed example or API entry cannot linger.
rm -rf docs/_build docs/auto_examples docs/generated docs/sg_execution_times.rst
export MPLBACKEND=Agg
python3 -m sphinx -W --keep-going -b html -j 1 docs docs/_build/html
echo "build-docs: docs/_build/html/index.html"
