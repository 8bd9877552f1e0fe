#!/usr/bin/env bats
# README.md: what it links and the paths it names are in the repository.

load helpers

@test "README's relative links lead to files in the repository" {
    local n=0
    while read -r target; do
        target=${target%%#*}
        case $target in '' | http://* | https://* | mailto:*) continue ;; esac
        n=$((n + 1))
        [ -e "$REPO/$target" ] || {
            echo "README.md links $target, which is not in the repository"
            return 1
        }
        # inside the repository, not next to it
        case $(realpath -m "$REPO/$target") in "$REPO"/*) ;; *)
            echo "README.md links $target, outside the repository"
            return 1
            ;;
        esac
    done < <(grep -oE '\]\([^) ]+\)' "$REPO/README.md" | sed 's/^](//; s/)$//')
    [ "$n" -gt 0 ]
}

@test "the paths README names are in the repository (or, for build/, in the build)" {
    local n=0
    # a path under one of the repository's top-level folders, as prose or a command names it
    while read -r path; do
        path=${path%.}
        n=$((n + 1))
        case $path in
        build/*) [ -e "$BUILD/${path#build/}" ] ;;
        # a program the build makes from PATH.c (tests/progs/limits, bench/measure)
        *) [ -e "$REPO/$path" ] || [ -e "$REPO/$path.c" ] ;;
        esac || {
            echo "README.md names $path, which is not in the repository"
            return 1
        }
    done < <(grep -oE '(^|[^A-Za-z0-9_./-])(\.ci|bench|build|config|debian|docs|include|packaging|policy|scripts|shim|tests)/[A-Za-z0-9_./-]*' \
        "$REPO/README.md" | sed -E 's/^[^A-Za-z0-9_.]//' | grep -v '\*' | sort -u)
    [ "$n" -gt 20 ]
    # the file names it quotes alone: documents at the top, test suites in tests/bats
    while read -r name; do
        case $name in
        *.bats) [ -e "$REPO/tests/bats/$name" ] ;;
        *) [ -e "$REPO/$name" ] ;;
        esac || {
            echo "README.md names \`$name\`, which is not in the repository"
            return 1
        }
    done < <(grep -oE '`[A-Za-z0-9_.-]+\.(md|bats)`' "$REPO/README.md" | tr -d '`' | sort -u)
}
