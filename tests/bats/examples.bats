#!/usr/bin/env bats
# config/examples/: every example policy, found by listing the directory (a new one is
# covered without a word here), is valid as libplace reads it, and its comments say
# nothing known to be false.

load helpers

setup() {
    export LIBPLACE_LIB=$LIB
    shopt -s nullglob
    EXAMPLES=("$REPO"/config/examples/*.ini)
    shopt -u nullglob
    [ "${#EXAMPLES[@]}" -ge 5 ] || {
        echo "config/examples/ holds ${#EXAMPLES[@]} policies; expected at least 5" >&2
        return 1
    }
}

@test "placerun --check passes every example: status 0, no errors, no unknown key or variable" {
    for f in "${EXAMPLES[@]}"; do
        run --separate-stderr "$PLACERUN" --check "$f"
        [ "$status" -eq 0 ] && [[ $stderr == "libplace: $f: no errors; tiers: "* ]] || {
            echo "$f: status $status: $stderr"
            return 1
        }
        # warnings about this machine (no GPU, no HBW, no node 1 here) are fine; a key or
        # a variable libplace does not know is not
        if grep -Ei 'unknown|not a key|not a libplace variable|ignored' <<<"$stderr"; then
            echo "$f: a warning about a key"
            return 1
        fi
        assert_output ""
    done
}

@test "the examples' comments say nothing known to be false" {
    # each pattern, and why it is false now
    local false=(
        'not supported'                     # every tier kind places memory (libplace.policy(5), AVAILABILITY)
        'not yet|until [a-z]+ support|support arrives' # nothing is announced for later
        'only dram places'                  # dram, numa and hbw place for real, CUDA tiers through the driver
        "memkind's allocator"               # a named dram tier is libplace's own arena (slabs and page runs)
        'caches nothing'                    # dram, numa and hbw tiers keep per-thread caches of free blocks
        'frame 1 (of a C\+\+ new )?is operator new' # operator new is a wrapper looked past
        'not written yet'
    )
    for f in "${EXAMPLES[@]}"; do
        # the file as one line, the comment marks that start lines left out, so that a
        # phrase broken over two lines is found too
        text=$(sed 's/^; *//' "$f" | tr '\n' ' ' | tr -s ' ')
        for p in "${false[@]}"; do
            if grep -Eio -- "$p" <<<"$text"; then
                echo "$f says that"
                return 1
            fi
        done
    done
}

@test "each example names itself in its Check line and is listed in libplace.policy(5)" {
    for f in "${EXAMPLES[@]}"; do
        name=${f##*/}
        grep -Eq "^; Check it: +placerun --check $name\$" "$f" || {
            echo "$f: no '; Check it:  placerun --check $name' line"
            return 1
        }
        sed 's/\\-/-/g' "$REPO/docs/libplace.policy.5" | grep -Fxq ".I config/examples/$name" || {
            echo "$name is not in libplace.policy(5)'s FILES"
            return 1
        }
    done
}
