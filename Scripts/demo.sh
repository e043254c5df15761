#!/usr/bin/env bash
# The main job: build Strata and run `strata demo`, which routes typical app values through the selector into
# every tier. Extra arguments go to `strata demo` (for example --root DIR or --min-os iOS17).
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-deps.sh
swift build --product strata
exec "$(swift build --show-bin-path)/strata" demo "$@"
