#!/usr/bin/env bats
# meson install into a scratch DESTDIR, of the build under test and of a build with
# directories of its own: every file in its place, and the installed pieces at work
# (the .pc and the header in a program, the man pages, placerun and place-report,
# --version, --help and usage errors of every command, the bash completions).

load helpers
load installed

# meson install of build $1 into DESTDIR $2, and its install directories, absolute, as
# shell assignments into file $3 (what installed.bash reads).
install_into() {
    meson install -C "$1" --destdir "$2" --no-rebuild --quiet >"$2.log" 2>&1 || {
        cat "$2.log"
        return 1
    }
    meson introspect --buildoptions "$1" | /usr/bin/python3 -c '
import json, os, shlex, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
for name in ("bindir", "datadir", "includedir", "libdir", "libexecdir", "mandir"):
    print(name + "=" + shlex.quote(os.path.join(o["prefix"], o[name])))' >"$3"
}

setup_file() {
    [ -f "$LIB" ] || {
        echo "libplace.so not built at $LIB (meson setup build && ninja -C build)" >&2
        return 1
    }
    install_into "$BUILD" "$BATS_FILE_TMPDIR/root" "$BATS_FILE_TMPDIR/dirs" >&2
}

setup() {
    ROOT=$BATS_FILE_TMPDIR/root
    source "$BATS_FILE_TMPDIR/dirs"
}

@test "meson install puts every file in place; bindir's commands link into datadir/libplace" {
    check_layout "$ROOT"
}

@test "installed placerun runs programs under the installed libplace.so; place-report reads the report" {
    check_placerun "$ROOT"
}

@test "another prefix and other directories: the links, placerun and libplace.so still find each other" {
    local b=$BATS_TEST_TMPDIR/build
    meson setup "$b" "$REPO" --prefix=/opt/place --bindir=tools --libdir=lib64/x \
        --datadir=data/share --libexecdir=helpers >"$b.log" 2>&1 &&
        ninja -C "$b" libplace.so >>"$b.log" 2>&1 || {
        cat "$b.log"
        return 1
    }
    install_into "$b" "$BATS_TEST_TMPDIR/root" "$BATS_TEST_TMPDIR/dirs"
    source "$BATS_TEST_TMPDIR/dirs"
    assert_equal "$libdir" /opt/place/lib64/x
    check_layout "$BATS_TEST_TMPDIR/root"
    check_placerun "$BATS_TEST_TMPDIR/root"
}

@test "libplace.pc and libplace.h: a program built with them asks libplace, and does not link it" {
    local t=$BATS_TEST_TMPDIR words
    export PKG_CONFIG_SYSROOT_DIR=$ROOT PKG_CONFIG_LIBDIR=$ROOT$libdir/pkgconfig
    run pkg-config --cflags --libs libplace
    assert_success
    read -ra words <<<"$output"
    assert_equal "${words[*]}" "-I$ROOT$includedir -ldl"
    run pkg-config --variable=preload libplace
    assert_output "$ROOT$libdir/libplace.so"
    printf '#include <libplace.h>\n#include <stdio.h>\n\nint main(void)\n{\n    printf("loaded %%d\\n", place_loaded());\n    return 0;\n}\n' >"$t/ask.c"
    # shellcheck disable=SC2046 # the flags are words
    cc -Wall -Wextra -Werror -o "$t/ask" "$t/ask.c" $(pkg-config --cflags --libs libplace)
    run readelf -d "$t/ask"
    refute_output --partial libplace
    run "$t/ask"
    assert_success
    assert_output "loaded 0"
    LD_PRELOAD=$ROOT$libdir/libplace.so run "$t/ask"
    assert_success
    assert_output "loaded 1"
}

@test "each installed man page renders without a warning, and man finds it by name" {
    command -v man >/dev/null || fail "man is not installed (Debian package man-db; scripts/setup installs it)"
    local page section f warnings
    for page in placerun.1 place-report.1 libplace.policy.5 libplace.7; do
        section=${page##*.}
        f=$ROOT$mandir/man$section/$page
        warnings=$(MANWIDTH=80 man -l --warnings=w "$f" 2>&1 >/dev/null)
        [ -z "$warnings" ] || fail "$page: $warnings"
        [ "$(MANWIDTH=80 man -l "$f" 2>/dev/null | wc -l)" -gt 10 ] || fail "$page: renders to almost nothing"
        run env MANPATH="$ROOT$mandir" man -w "$section" "${page%.*}"
        assert_success
        assert_output "$f"
    done
}

@test "every command, in the tree and installed, answers --version with meson's version and --help, and exits 2 on a usage error" {
    local version cmd name
    version=$(meson introspect --projectinfo "$BUILD" |
        /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
    for cmd in "$REPO/scripts/placerun" "$REPO/scripts/place-report" "$REPO/scripts/numa-vm" \
        "$ROOT$bindir/placerun" "$ROOT$bindir/place-report" "$ROOT$libexecdir/libplace/numa-vm"; do
        name=${cmd##*/}
        run --separate-stderr "$cmd" --version
        assert_success
        assert_output "$name $version"
        run --separate-stderr "$cmd" --help
        assert_success
        assert_output --partial "$name"
        assert_equal "$stderr" ""
        run -2 --separate-stderr "$cmd" --no-such-option
        assert_output ""
        [[ $stderr == *"usage: $name"* ]] || fail "$cmd --no-such-option: no usage line in: $stderr"
    done
}

# Completes the words $2... (the last the one being typed) with the completion file $1
# loaded, bash-completion's own helpers first unless $BARE: the candidates, one a line.
complete_words() {
    bash -c '
        [ -n "$BARE" ] || source /usr/share/bash-completion/bash_completion
        source "$1" || exit
        shift
        COMP_WORDS=("$@") COMP_CWORD=$(($# - 1)) COMP_LINE="$*" COMP_POINT=${#COMP_LINE}
        func=$(complete -p "$1" | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
        "$func" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf "%s\n" "${COMPREPLY[@]}"' complete_words "$@"
}

@test "the bash completions source cleanly, and complete placerun --me to --membind=" {
    [ -f /usr/share/bash-completion/bash_completion ] ||
        fail "bash-completion is not installed (scripts/setup installs it)"
    local dir=$ROOT$datadir/bash-completion/completions cmd
    for cmd in placerun place-report; do
        run --separate-stderr bash -c 'source "$1" && complete -p "$2"' _ "$dir/$cmd" "$cmd"
        assert_success
        assert_output --regexp "^complete -F [_a-z]+ $cmd\$"
        assert_equal "$stderr" ""
        run --separate-stderr bash -c 'source /usr/share/bash-completion/bash_completion && source "$1"' _ "$dir/$cmd"
        assert_success
        assert_output ""
        assert_equal "$stderr" ""
    done
    run --separate-stderr complete_words "$dir/placerun" placerun --me
    assert_success
    assert_output --membind=
    BARE=1 run --separate-stderr complete_words "$dir/placerun" placerun --me
    assert_output --membind=
    run --separate-stderr complete_words "$dir/place-report" place-report re
    assert_output render
}
