#!/usr/bin/env bash
# Builds the DocC documentation of the umbrella module and of each tier with the toolchain's own `docc`, warnings
# as errors: a broken ``Symbol`` link, a parameter documented under the wrong name, or an article that does not
# exist fails the script. Output: .build/docs/<Module>.doccarchive (and a static site with --static).
#
# The guides have one source: README.md and Documentation/*.md (what GitHub shows, and what
# DocumentationSnippetTests builds and runs). This script copies them into each catalog as articles at build
# time (.build/docs/catalogs/<Module>.docc = Sources/<Module>/<Module>.docc + the generated articles); the
# catalogs in Sources hold only what is DocC's own: the landing pages and their topic groups.
#
# Links to another module's symbols (``StrataCore/StorageError`` from a tier) resolve against that module's
# archive (docc's --dependency), so StrataCore is converted first, the tiers next, and the umbrella last.
#
# Usage: Scripts/docs.sh [--static] [--self-test] [MODULE ...]   (default: every module, in that order)
# --self-test first proves that the check bites: a catalog with a deliberately broken ``Symbol`` link must fail.
# STRATA_DOCS_SKIP_BUILD=1 skips `swift build` (Scripts/test.sh has just built everything).
set -euo pipefail
cd "$(dirname "$0")/.."

static=false
self_test=false
while [ $# -gt 0 ]; do
    case $1 in
        --static) static=true ;;
        --self-test) self_test=true ;;
        *) break ;;
    esac
    shift
done
modules=("$@")
if [ ${#modules[@]} -eq 0 ]; then
    modules=(StrataCore StrataDefaults StrataSecrets StrataRecords StrataFiles Strata)
fi

out=.build/docs
mkdir -p "$out/catalogs" "$out/symbol-graphs"

if [ "${STRATA_DOCS_SKIP_BUILD:-}" != "1" ]; then
    echo "== build (the symbol graphs are read from the built modules)"
    for module in "${modules[@]}"; do
        swift build --target "$module" >/dev/null
    done
fi
bin=$(swift build --show-bin-path)
triple=$(basename "$(dirname "$bin")")

# The C modules the Swift modules import, as the compiler saw them.
c_flags=(-I "$bin/Modules" -Xcc "-fmodule-map-file=$bin/CStrataSystem.build/module.modulemap"
    -I Sources/CStrataSystem/include)
# Every system-library target (a folder under Sources/ with its own module map), so a new one is never missed.
for map in Sources/C*/module.modulemap; do c_flags+=(-I "$(dirname "$map")"); done
for flag in $(pkg-config --cflags-only-I zlib sqlite3 libsodium libpq libdeflate 2>/dev/null || true); do
    c_flags+=(-Xcc "$flag")
done

# article SOURCE NAME TITLE: a guide from Documentation/, under a title of its own; the snippet test's markers go.
article() {
    local source=$1 catalog=$2 name=$3 title=$4
    {
        echo "# $title"
        tail -n +2 "$source" | grep -v '^<!-- snippet: .* -->$'
    } >"$catalog/$name.md"
}

# readme_article CATALOG NAME TITLE ABSTRACT SECTION...: README sections (each from its "## " heading to the next).
readme_article() {
    local catalog=$1 name=$2 title=$3 abstract=$4
    shift 4
    {
        echo "# $title"
        echo
        echo "$abstract"
        for section in "$@"; do
            echo
            awk -v heading="## $section" '
                $0 == heading { inside = 1; print; next }
                inside && /^## / { exit }
                inside && !/^<!-- snippet: .* -->$/ { print }
            ' README.md
        done
    } >"$catalog/$name.md"
}

# The modules a module's documentation links to.
dependencies() {
    case $1 in
        StrataCore) ;;
        Strata) echo StrataCore StrataDefaults StrataSecrets StrataRecords StrataFiles ;;
        *) echo StrataCore ;;
    esac
}

for module in "${modules[@]}"; do
    catalog="$out/catalogs/$module.docc"
    rm -rf "$catalog" "$out/symbol-graphs/$module" "$out/$module.doccarchive"
    cp -R "Sources/$module/$module.docc" "$catalog"
    case $module in
        Strata)
            readme_article "$catalog" GettingStarted "Getting started" \
                "Add Strata to a package, make the secrets key, and store values of every kind through one front door." \
                "Use it in your package" "Quick start"
            readme_article "$catalog" ChoosingATier "Choosing a tier" \
                "The decision table, and the rules that apply it to each value." "The decision table"
            article Documentation/Storage.md "$catalog" StorageGuide "Storage: one engine over four tiers"
            article Documentation/Reliability.md "$catalog" Reliability "Reliability"
            ;;
        StrataCore)
            readme_article "$catalog" ChoosingATier "Choosing a tier" \
                "The decision table, and the rules that apply it to each value." "The decision table"
            readme_article "$catalog" WritingABackend "Writing a backend" \
                "Implement the byte-level contract, register the backend, and prove it with the conformance suite." \
                "Writing a backend" "Keys and paths" "On disk"
            ;;
        StrataDefaults)
            article Documentation/Defaults.md "$catalog" DefaultsGuide "The defaults guide"
            article Documentation/Plugins.md "$catalog" Plugins "Typed keys and storage lint"
            ;;
        StrataSecrets) article Documentation/Secrets.md "$catalog" SecretsGuide "The secrets guide" ;;
        StrataRecords)
            article Documentation/Records.md "$catalog" RecordsGuide "The records guide"
            article Documentation/Postgres.md "$catalog" PostgresGuide "Records on PostgreSQL"
            ;;
        StrataFiles) article Documentation/Files.md "$catalog" FilesGuide "The files guide" ;;
    esac

    graphs="$out/symbol-graphs/$module"
    mkdir -p "$graphs"
    swift symbolgraph-extract -module-name "$module" -target "$triple" -minimum-access-level public \
        -skip-inherited-docs -output-dir "$graphs" "${c_flags[@]}"

    echo "== docc convert $module"
    options=(--additional-symbol-graph-dir "$graphs" --output-path "$out/$module.doccarchive"
        --fallback-display-name "$module" --fallback-bundle-identifier "org.strata.$module" --warnings-as-errors
        --enable-experimental-external-link-support)
    for dependency in $(dependencies "$module"); do
        if [ ! -d "$out/$dependency.doccarchive" ]; then
            echo "docs.sh: $module links to $dependency: build it first (Scripts/docs.sh $dependency $module)" >&2
            exit 1
        fi
        options+=(--dependency "$out/$dependency.doccarchive")
    done
    if $static; then
        options+=(--transform-for-static-hosting --hosting-base-path "$module")
    fi
    docc convert "$catalog" "${options[@]}"
done
if $self_test; then
    echo "== self-test: a broken symbol link must fail the conversion"
    broken="$out/self-test/Broken.docc"
    rm -rf "$out/self-test"
    mkdir -p "$broken"
    printf '# Broken\n\nLinks to ``StrataCore/NoSuchSymbol``, which does not exist.\n' >"$broken/Broken.md"
    if docc convert "$broken" --output-path "$out/self-test/Broken.doccarchive" --warnings-as-errors \
        --additional-symbol-graph-dir "$out/symbol-graphs/StrataCore" --fallback-display-name StrataCore \
        --fallback-bundle-identifier org.strata.self-test >"$out/self-test/log" 2>&1; then
        echo "docs.sh: a broken link did not fail docc convert; the check is not working" >&2
        exit 1
    fi
    grep -q "NoSuchSymbol" "$out/self-test/log" || {
        cat "$out/self-test/log" >&2
        echo "docs.sh: docc failed, but not on the broken link" >&2
        exit 1
    }
    echo "   docc refused it: $(grep -m1 "NoSuchSymbol" "$out/self-test/log")"
fi
echo "== documentation in $out/<Module>.doccarchive"
