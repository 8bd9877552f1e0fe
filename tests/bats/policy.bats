#!/usr/bin/env bats
# Rules at work: which rule and tier each call site got, in the executable, a linked
# library and a library dlopened after start; size windows, depth, exact sites, on_full,
# limits in a dry run, and a broken policy.

load helpers

SITES() { "$PROGS/sites" "$PROGS/libsites_plugin.so"; }

setup() {
    policy "$BATS_TEST_TMPDIR/sites.ini" <<'INI'
[libplace]
report = stderr

[rule exe]
site = sites:exe_alloc
to = hbw

[rule deep]
site = wrapped_alloc
depth = 2
to = pinned

[rule linked]
site = libsites_linked.so:*
to = managed

[rule plugin]
site = *plugin_alloc
to = hbw, pinned
INI
}

# The report line of the site whose symbol is $1.
site_line() {
    grep -E "^libplace: .* x  [^ ]*!$1\+0x" <<<"$stderr"
}

@test "a dry run sends each site to its rule's tier: executable, wrapper at depth 2, linked and dlopened libraries" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/sites.ini" LIBPLACE_DRY_RUN=1 "$PROGS/sites" "$PROGS/libsites_plugin.so"
    assert_success
    [ "$output" = "$(SITES)" ]
    [[ "$(site_line exe_alloc)" == *"sites!exe_alloc+0x"*" exe -> hbw "* ]]
    [[ "$(site_line wrapper)" == *" deep -> pinned "* ]]
    [[ "$(site_line linked_alloc)" == *"libsites_linked.so!linked_alloc+0x"*" linked -> managed "* ]]
    [[ "$(site_line plugin_alloc)" == *"libsites_plugin.so!plugin_alloc+0x"*" plugin -> hbw "* ]]
    # each rule hit its three allocations (1000, 10000 and 100000 bytes)
    for rule in exe deep linked plugin; do
        grep -Eq "^libplace: $rule +3 +108.4 KiB" <<<"$stderr"
    done
    grep -q "^libplace: DRY RUN" <<<"$stderr"
    grep -Eq "^libplace: hbw +hbw +none +0 B +[0-9.]+ [KM]iB +6 +6$" <<<"$stderr"
}

@test "a site pattern that names no function is said under the rules; one in a library dlopened later is not" {
    # every pattern names code (the plugin's once it is loaded): no such line
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/sites.ini" LIBPLACE_DRY_RUN=1 "$PROGS/sites" "$PROGS/libsites_plugin.so"
    assert_success
    ! grep -q "names no function" <<<"$stderr"
    # a misspelt function beside one that names code: said, and the rule's JSON says which;
    # alone, the rule cannot match
    sed -i 's/^site = sites:exe_alloc$/site = sites:exe_aloc | sites:exe_alloc/' "$BATS_TEST_TMPDIR/sites.ini"
    sed -i 's/^site = wrapped_alloc$/site = wraped_alloc/' "$BATS_TEST_TMPDIR/sites.ini"
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/sites.ini" LIBPLACE_DRY_RUN=1 "$PROGS/sites" "$PROGS/libsites_plugin.so"
    assert_success
    [ "$output" = "$(SITES)" ]
    grep -Eq "^libplace: exe +3 +108.4 KiB" <<<"$stderr"
    grep -Eq "^libplace: deep +0 +0 B" <<<"$stderr"
    grep -q "^libplace: exe: site sites:exe_aloc names no function of the modules loaded (a stripped" <<<"$stderr"
    grep -q "^libplace: deep: site wraped_alloc names no function of the modules loaded, so the rule cannot match (a stripped" <<<"$stderr"
    [ "$(grep -c "names no function" <<<"$stderr")" -eq 2 ]
    env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/sites.ini" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/r.json" \
        LIBPLACE_REPORT_FORMAT=json LIBPLACE_DRY_RUN=1 "$PROGS/sites" "$PROGS/libsites_plugin.so" >/dev/null
    valid_report "$BATS_TEST_TMPDIR/r.json"
    local show='import json, sys
r = {x["name"]: x for x in json.load(open(sys.argv[1]))["rules"]}
print([(s["pattern"], s["resolved"]) for n in ("exe", "plugin") for s in r[n]["sites"]])'
    run python3 -c "$show" "$BATS_TEST_TMPDIR/r.json"
    assert_output "[('sites:exe_aloc', False), ('sites:exe_alloc', True), ('*plugin_alloc', True)]"
    # place-report merge keeps them
    "$REPO/scripts/place-report" merge "$BATS_TEST_TMPDIR/r.json" "$BATS_TEST_TMPDIR/r.json" >"$BATS_TEST_TMPDIR/m.json"
    valid_report "$BATS_TEST_TMPDIR/m.json"
    run python3 -c "$show" "$BATS_TEST_TMPDIR/m.json"
    assert_output "[('sites:exe_aloc', False), ('sites:exe_alloc', True), ('*plugin_alloc', True)]"
}

@test "a real run skips the tiers this machine lacks, says so once per tier, and places in dram" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/sites.ini" "$PROGS/sites" "$PROGS/libsites_plugin.so"
    assert_success
    [ "$output" = "$(SITES)" ]
    [ "$(grep -c "skips tier hbw" <<<"$stderr")" -eq 1 ]
    [ "$(grep -c "skips tier pinned" <<<"$stderr")" -eq 1 ]
    [[ "$(site_line exe_alloc)" == *" exe -> dram "* ]]
    [[ "$(site_line plugin_alloc)" == *" plugin -> dram "* ]]
    grep -Eq "^libplace: hbw: unavailable: .*; 6 requests skipped it" <<<"$stderr"
}

@test "depth: the wrapper's caller is frame 2, so depth 1 does not see it" {
    sed -i 's/depth = 2/depth = 1/' "$BATS_TEST_TMPDIR/sites.ini"
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/sites.ini" LIBPLACE_DRY_RUN=1 "$PROGS/sites" "$PROGS/libsites_plugin.so"
    assert_success
    grep -Eq "^libplace: deep +0 +0 B" <<<"$stderr"
}

@test "an exact site module+0xOFFSET, as the report prints it, matches that site alone" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/sites.ini" LIBPLACE_DRY_RUN=1 "$PROGS/sites" "$PROGS/libsites_plugin.so"
    exact=$(site_line exe_alloc | grep -o '(sites+0x[0-9a-f]*)' | tr -d '()')
    [ -n "$exact" ]
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT=stderr LIBPLACE_DRY_RUN=1 LIBPLACE_RULES="name=exact site=$exact depth=1 to=pinned" "$PROGS/sites" "$PROGS/libsites_plugin.so"
    assert_success
    [[ "$(site_line exe_alloc)" == *" exact -> pinned "* ]]
    grep -Eq "^libplace: exact +3 +108.4 KiB" <<<"$stderr"
}

@test "size windows: only allocations inside the window reach the rule" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT=stderr LIBPLACE_DRY_RUN=1 LIBPLACE_RULES="name=mid size=5000..50000 to=hbw" "$PROGS/sites" "$PROGS/libsites_plugin.so"
    assert_success
    # the four 10000-byte allocations, one per maker
    grep -Eq "^libplace: mid +4 +39.1 KiB" <<<"$stderr"
}

@test "a limit in a dry run sends the rest down the chain, and the report counts it" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT=stderr LIBPLACE_DRY_RUN=1 LIBPLACE_LIMIT_HBW=8M \
        LIBPLACE_RULES="name=big size=1M.. to=hbw,pinned" /usr/bin/python3 -c 'x = [bytearray(3 << 20) for i in range(5)]'
    assert_success
    grep -Eq "^libplace: hbw +hbw +8.0 MiB +0 B +6.0 MiB +2 +2$" <<<"$stderr"
    grep -Eq "^libplace: pinned +pinned +none +0 B +9.0 MiB +3 +3$" <<<"$stderr"
    # refused, sent on, taken in
    grep -Eq "^libplace: hbw +3 +3 +0 " <<<"$stderr"
    grep -Eq "^libplace: pinned +0 +0 +3 " <<<"$stderr"
}

@test "on_full = fail: an exhausted chain fails the allocation with ENOMEM, as glibc would" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_RULES="size=100M.. to=hbw on_full=fail" \
        /usr/bin/python3 -c 'import sys
try:
    bytearray(200 << 20)
except MemoryError:
    print("MemoryError"); sys.exit(3)'
    assert_equal "$status" 3
    assert_output MemoryError
}

@test "without on_full = fail an exhausted chain ends in dram" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_RULES="size=100M.. to=hbw" \
        /usr/bin/python3 -c 'print(len(bytearray(200 << 20)))'
    assert_success
    assert_output $((200 << 20))
}

@test "a program under a placing policy behaves as without libplace" {
    policy "$BATS_TEST_TMPDIR/dram.ini" <<'INI'
[rule big]
size = 64K..
to = dram
[rule calls]
site = *PyMem* | libc.so*:*
depth = 3
to = dram
INI
    export LIBPLACE_POLICY="$BATS_TEST_TMPDIR/dram.ini"
    same_with_and_without "/usr/bin/python3 -c 'import json, zlib; d = [bytes(i * 1000) for i in range(200)]; print(sum(map(len, d)), zlib.crc32(json.dumps(list(range(50000))).encode()))'"
    grep -Eq "^libplace: big +[1-9][0-9]* " "$BATS_TEST_TMPDIR"/reports/*
}

@test "a broken policy: every error with file:line, and the program does not start" {
    policy "$BATS_TEST_TMPDIR/bad.ini" '[rule a]' 'size = 1X..' 'to = nowhere' '[colour]'
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/bad.ini" /bin/echo hi
    assert_equal "$status" 125
    assert_output ""
    assert_equal "$stderr" "libplace: $BATS_TEST_TMPDIR/bad.ini:2: size = 1X..: 'X' is not a size unit; expected a size such as 4096, 64K, 1M or 2G
libplace: $BATS_TEST_TMPDIR/bad.ini:4: [colour]: not a section libplace knows; expected [libplace], [tier NAME] or [rule NAME]
libplace: $BATS_TEST_TMPDIR/bad.ini:3: to: no tier named 'nowhere'; expected a tier declared with [tier nowhere] or one of dram, hbw, pinned, managed, symmetric, deviceN
libplace: policy not loaded (3 errors): the program does not start (on_error = abort; on_error = passthrough runs it untouched)"
}

@test "a broken policy with on_error = passthrough: one summary, and the program runs untouched" {
    policy "$BATS_TEST_TMPDIR/bad.ini" '[libplace]' 'on_error = passthrough' '[rule a]' 'size = 1X..' \
        'to = dram'
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/bad.ini" /bin/echo hi
    assert_success
    assert_output hi
    [ "$(wc -l <<<"$stderr")" -eq 2 ]
    [[ "$stderr" == *"running the program untouched (on_error = passthrough)" ]]
}

@test "a policy file that does not exist is named" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY=/nonexistent.ini /bin/echo hi
    assert_equal "$status" 125
    [[ "$stderr" == "libplace: /nonexistent.ini: cannot open it; expected a readable policy file"* ]]
}

@test "hbw: without HBW the tier says why memkind finds none; MEMKIND_HBW_NODES names HBW nodes" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT=stderr LIBPLACE_RULES="name=big size=1M.. to=hbw,dram" \
        /usr/bin/python3 -c 'x = [bytearray(2 << 20) for i in range(3)]'
    assert_success
    grep -q "^libplace: hbw: unavailable: memkind finds no high-bandwidth memory here (hbw_check_available() = 19), nor does the firmware (HMAT); MEMKIND_HBW_NODES=N names HBW nodes" <<<"$stderr"
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT=stderr LIBPLACE_RULES="name=big size=1M.. to=hbw,dram" MEMKIND_HBW_NODES=0 \
        /usr/bin/python3 -c 'x = [bytearray(2 << 20) for i in range(3)]'
    assert_success
    grep -Eq "^libplace: hbw +hbw +none +0 B +6.0 MiB +3 +3$" <<<"$stderr" # 2 MiB and a page each
    grep -Eq "big -> hbw 6.0 MiB$" <<<"$stderr"
}

@test "in an hbw tier (node 0 named HBW): the family at its edges as glibc, and stdio's last bytes through a pipe" {
    # every allocation of the edge program that a window can hold goes to hbw; its
    # answers are glibc's but for the usable sizes, which are the tier's own (its size
    # classes, whole pages past 64 KiB) and never less than asked
    expected=$("$PROGS/edge" | sed -E 's/ usable [0-9]+//')
    run env LD_PRELOAD="$LIB" MEMKIND_HBW_NODES=0 LIBPLACE_RULES="size=0..1G to=hbw" "$PROGS/edge"
    assert_success
    assert_equal "$(sed -E 's/ usable [0-9]+//' <<<"$output")" "$expected"
    [ "$(grep -E '^malloc\([0-9]+\) usable' <<<"$output" | sed -E 's/^malloc\(([0-9]+)\) usable ([0-9]+)$/\1 \2/' |
        awk '$2 < $1 || $2 > 2 * $1 + 16' | wc -l)" -eq 0 ]
    # stdio's 4 KiB buffer is allocated in hbw and flushed by exit, after libplace's
    # destructor: nothing is unmapped or destroyed, so the last bytes arrive
    run bash -c "env LD_PRELOAD='$LIB' MEMKIND_HBW_NODES=0 LIBPLACE_REPORT='$BATS_TEST_TMPDIR/r' LIBPLACE_RULES='size=1K..8K to=hbw' '$PROGS/pipe_tail' 3 | cat"
    assert_success
    assert_output "$("$PROGS/pipe_tail" 3 | cat)"
    grep -Eq '^libplace: hbw +hbw +none +[0-9.]+ KiB +[0-9.]+ KiB +[1-9][0-9]* ' "$BATS_TEST_TMPDIR/r"
}

@test "one call reached from two callers at the same depth: each stack decided by its own frames, from the memo" {
    site_policy "$BATS_TEST_TMPDIR/callers.ini" left:left:3
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/callers.ini" "$PROGS/callers" 5000
    assert_success
    assert_output "left 5000 right 5000"
    [ "$(node a allocations)" = 5000 ] # left's, and none of right's
    # a pattern the caller itself matches decides at once: every call placed
    sed -i 's/^site = left$/site = wrapper/' "$BATS_TEST_TMPDIR/callers.ini"
    rm "$BATS_TEST_TMPDIR/report.json"
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/callers.ini" "$PROGS/callers" 5000
    assert_success
    [ "$(node a allocations)" = 10000 ]
}

@test "a site its caller alone decides is found by its return address, and looked up again once its memo entry is replaced" {
    # 600 stacks of another caller between each of hot_alloc's calls replace every entry of
    # the thread's memo (64 sets of 4): the shortcut to hot_alloc's entry goes with it, so
    # that each round's block is still the rule's and no other caller's is
    local p=$BATS_TEST_TMPDIR/hot.ini
    policy "$p" "[tier node]" "kind = dram" "[rule hot]" "site = hot_alloc" "depth = 4" "to = node"
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$p" "$PROGS/caller_sites"
    assert_success
    assert_output "$(for r in 0 1 2 3 4 5 6 7; do echo "round $r: hot node"; done; echo "cold: dram")"
}

@test "rules of different depths on one stack each read their own depth, past the stack's end too" {
    # frames from malloc: wrapper 1, left or right 2, main 3, then libc's start and _start;
    # every lookup reads 16 frames (the deepest rule's), more than the stack has
    site_policy "$BATS_TEST_TMPDIR/depths.ini" near:left:1 short:main:2 far:main:16
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/depths.ini" "$PROGS/callers" 5000
    assert_success
    assert_output "left 5000 right 5000"
    run /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(" ".join(f"{x['"'"'name'"'"']}={x['"'"'hits'"'"']}" for x in r["rules"]))' "$BATS_TEST_TMPDIR/report.json"
    assert_output "near=0 short=0 far=10001" # and stdout's buffer, under main's printf
}

@test "verification counts pages never written (the kernel's zero page) apart, not as misplaced" {
    run --separate-stderr env LD_PRELOAD="$LIB" MEMKIND_HBW_NODES=0 LIBPLACE_VERIFY=all \
        LIBPLACE_RULES="size=1M.. to=hbw" LIBPLACE_REPORT=stderr "$PROGS/zeropages"
    assert_success
    assert_output "read 0"
    grep -Fxq "libplace: hbw: 100.0% of all 2048 resident pages on its nodes (move_pages); 1024 of the 2048 looked at never written (the kernel's zero page, on no node), not counted" <<<"$stderr"
    run env LD_PRELOAD="$LIB" MEMKIND_HBW_NODES=0 LIBPLACE_VERIFY=all LIBPLACE_RULES="size=1M.. to=hbw" \
        LIBPLACE_REPORT="$BATS_TEST_TMPDIR/report.json" LIBPLACE_REPORT_FORMAT=json "$PROGS/zeropages"
    assert_success
    [ "$(node hbw verified)" = "{'resident': 2048, 'looked': 2048, 'placed': 1024, 'untouched': 1024, 'by_node': {'0': 1024}, 'exhaustive': True}" ]
    run "$REPO/scripts/place-report" render "$BATS_TEST_TMPDIR/report.json"
    assert_success
    assert_line "hbw: 100.0% of its pages on its nodes (all 2048 resident pages, move_pages); 1024 never written (the kernel's zero page), not counted"
}

@test "a rule's depth counts from the first frame past the allocation wrappers: two new sites, strdup, and the program's own wrapper" {
    site_policy "$BATS_TEST_TMPDIR/new.ini" 'nodes:*make_nodes*' 'names:*copy_names*'
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/new.ini" "$PROGS/twonew" 1000 100 10
    assert_success
    assert_output 90
    # depth 1 is make_nodes (past operator new[]) and copy_names (past strdup): their
    # 1000 blocks each, and none of make_buffers' 100
    [ "$(node a allocations)" = 2000 ]
    # the program's own wrapper: depth 1 reaches wrapped_alloc once `wrapper` is one
    sed -i 's/depth = 2/depth = 1/' "$BATS_TEST_TMPDIR/sites.ini"
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/sites.ini" LIBPLACE_WRAPPERS=wrapper LIBPLACE_DRY_RUN=1 "$PROGS/sites" "$PROGS/libsites_plugin.so"
    assert_success
    grep -Eq "^libplace: deep +3 +108.4 KiB" <<<"$stderr"
}

@test "libunwind is mapped only where stacks may be read: site rules or a report, never an untouched run" {
    maps() { env "$@" grep -c -e /libunwind -e /liblzma /proc/self/maps; }
    [ "$(maps LD_PRELOAD="$LIB")" = 0 ]
    [ "$(maps LD_PRELOAD="$LIB" LIBPLACE_RULES='size=1K.. to=dram')" = 0 ]
    [ "$(maps LD_PRELOAD="$LIB" LIBPLACE_RULES='site=*main* depth=4 to=dram')" -gt 0 ]
    [ "$(maps LD_PRELOAD="$LIB" LIBPLACE_REPORT=/dev/null)" -gt 0 ]
}

@test "a site rule reads past a signal handler's frame, with libunwind: the handler's blocks are its caller's too" {
    # main's own 48-byte blocks are 1 in 200 of its pairs; the handler's (48 bytes) match
    # main only through the signal frame, which the walk leaves to libunwind's backtrace
    site_policy "$BATS_TEST_TMPDIR/sig.ini" m:main:16
    sed -i 's/^site = main$/site = main\nsize = 48..48/' "$BATS_TEST_TMPDIR/sig.ini"
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/sig.ini" "$PROGS/sigalloc" 1500000
    assert_success
    assert_output "$("$PROGS/sigalloc" 1500000 noalloc)"
    hits=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["rules"][0]["hits"])' \
        "$BATS_TEST_TMPDIR/report.json")
    [ "$hits" -gt 7500 ] || fail "rule m: $hits hits, main's own 7500 and none of the handler's"
}

@test "a libunwind without its functions is said once, and a handler's stack ends at the signal frame" {
    local d=$BATS_TEST_TMPDIR
    mkdir "$d/lib"
    printf 'int libunwind_stub;\n' >"$d/stub.c"
    gcc -shared -fPIC -Wl,-soname,libunwind.so.8 -o "$d/lib/libunwind.so.8" "$d/stub.c"
    site_policy "$d/sig.ini" m:main:16
    sed -i 's/^site = main$/site = main\nsize = 48..48/' "$d/sig.ini"
    run --separate-stderr env LD_LIBRARY_PATH="$d/lib" LD_PRELOAD="$LIB" LIBPLACE_POLICY="$d/sig.ini" \
        "$PROGS/sigalloc" 1500000
    assert_success
    assert_output "$("$PROGS/sigalloc" 1500000 noalloc)"
    # the sampler and the site rules both start the unwinder: one line
    [ "$(grep -c 'libunwind' <<<"$stderr")" = 1 ] || fail "stderr: $stderr"
    grep -Eq '^libplace: libunwind\.so\.8 lacks [^ ]+ \(libunwind 1\.1 or later is needed\): a stack whose frames the walk cannot read' <<<"$stderr"
    hits=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["rules"][0]["hits"])' \
        "$d/report.json")
    [ "$hits" = 7500 ] || fail "rule m: $hits hits, expected main's own 7500"
}

@test "site rules and the profile leave the program's descriptors as they were: libunwind's pipe goes high" {
    # the descriptor ls gets for /proc/self/fd: the lowest its first open() finds free
    own() { env "$@" ls -l /proc/self/fd | awk '$NF ~ /^\/proc\/[0-9]+\/fd$/ { print $(NF - 2) }'; }
    without=$(own)
    [ -n "$without" ]
    [ "$(own LD_PRELOAD="$LIB" LIBPLACE_RULES='site=*main* depth=4 to=dram')" = "$without" ]
    [ "$(own LD_PRELOAD="$LIB" LIBPLACE_RULES='site=*main* depth=1 to=dram' LIBPLACE_REPORT=/dev/null)" = "$without" ]
    # a report alone: the profile's samples unwind with libunwind too
    [ "$(own LD_PRELOAD="$LIB" LIBPLACE_REPORT=/dev/null LIBPLACE_SAMPLE=all)" = "$without" ]
}
