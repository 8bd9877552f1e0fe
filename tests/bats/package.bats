#!/usr/bin/env bats
# The Debian package (debian/): dpkg-buildpackage builds it from a copy of this working
# tree (the files git lists, changes not yet committed included), and dpkg -x unpacks it
# into a scratch root, whose placerun runs programs under that root's libplace.so. The
# build takes about 15 s on 2 cores (DEB_BUILD_OPTIONS=nocheck: the other suites test
# the same code). It needs no build of libplace, so it does not load helpers.

REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

bats_require_minimum_version 1.5.0

load /usr/lib/bats/bats-support/load
load /usr/lib/bats/bats-assert/load
load installed

# The runs here set the LIBPLACE_* variables they use; none may leak in from the caller.
while read -r name; do unset "$name"; done < <(compgen -e | grep '^LIBPLACE_' || true)

setup_file() {
    local t=$BATS_FILE_TMPDIR tool
    for tool in git dpkg-buildpackage dpkg-deb dpkg-architecture dh dh_python3; do
        command -v "$tool" >/dev/null || {
            echo "package.bats: $tool not found (Debian packages git, dpkg-dev, debhelper, dh-python and build-essential; scripts/setup installs them)" >&2
            return 1
        }
    done
    # dpkg-buildpackage writes the .deb into the parent directory: $t
    mkdir "$t/libplace"
    git -C "$REPO" ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do
            # a tracked file deleted in the tree is not part of it
            [ -e "$REPO/$f" ] && printf '%s\0' "$f"
        done | tar -C "$REPO" --null -T - -cf - | tar -C "$t/libplace" -xf -
    (cd "$t/libplace" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -b -us -uc) \
        >"$t/build.log" 2>&1 || {
        echo "dpkg-buildpackage failed; the end of its log ($t/build.log):" >&2
        tail -30 "$t/build.log" >&2
        return 1
    }
    dpkg -x "$t"/libplace_*_amd64.deb "$t/root"
}

setup() {
    ROOT=$BATS_FILE_TMPDIR/root
    local multiarch
    multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
    bindir=/usr/bin libdir=/usr/lib/$multiarch datadir=/usr/share includedir=/usr/include
    libexecdir=/usr/libexec mandir=/usr/share/man
}

@test "the package holds every file of an install, in Debian's directories" {
    check_layout "$ROOT"
}

@test "the package depends on python3 and the libraries libplace links and loads" {
    local field
    field=$(dpkg-deb -f "$BATS_FILE_TMPDIR"/libplace_*_amd64.deb Depends)
    for dep in python3 libinih1 libunwind8 libmemkind0 libnuma1; do
        [[ ", $field," =~ ,\ $dep[\ :,] ]] || fail "Depends lacks $dep: $field"
    done
}

@test "the unpacked root's placerun runs programs under the root's libplace.so" {
    check_placerun "$ROOT"
}

@test "the unpacked root's commands answer --version with the package's version" {
    local version
    version=$(dpkg-deb -f "$BATS_FILE_TMPDIR"/libplace_*_amd64.deb Version)
    run "$ROOT/usr/bin/placerun" --version
    assert_output "placerun $version"
    run "$ROOT/usr/bin/place-report" --version
    assert_output "place-report $version"
    run "$ROOT/usr/libexec/libplace/numa-vm" --version
    assert_output "numa-vm $version"
}
