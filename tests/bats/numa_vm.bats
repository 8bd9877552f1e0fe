#!/usr/bin/env bats
# scripts/numa-vm: a two-node VM (node 1 with memory and no CPUs) that runs a command of
# this machine and gives back its output and exit status. Each test boots one (about
# 8 s without KVM).

load helpers

# numa-vm with this repository and the build shared in, as /tmp inside the VM is a
# tmpfs of its own (a clone in /tmp, as CI makes, is otherwise out of sight).
vm() {
    local build=()
    case $BUILD/ in "$REPO"/*) ;; *) build=(--share "$BUILD") ;; esac
    "$REPO/scripts/numa-vm" --share "$REPO" "${build[@]}" "$@"
}

setup() {
    command -v qemu-system-x86_64 >/dev/null || fail "qemu-system-x86 is not installed (scripts/setup test installs it)"
    ls /boot/vmlinuz-* >/dev/null 2>&1 || fail "no kernel in /boot (linux-image-amd64; scripts/setup test installs it)"
}

@test "two nodes, node 1 without CPUs; the command's output, errors and status come back" {
    run --separate-stderr "$REPO/scripts/numa-vm" --share "$BATS_TEST_TMPDIR" -- \
        sh -c 'numactl --hardware; echo to-stderr >&2; echo written >"$0/file"; exit 7' "$BATS_TEST_TMPDIR"
    assert_equal "$status" 7
    assert_line "available: 2 nodes (0-1)"
    assert_line "node 1 cpus:"
    assert_line --regexp '^node 1 size: (9[0-9][0-9]|10[0-9][0-9]) MB$'
    assert_equal "$stderr" "to-stderr"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/file")" written
}

@test "with --hmat memkind finds node 1 as high-bandwidth memory by itself; pages bound there land there" {
    run "$REPO/scripts/numa-vm" --hmat -- /usr/bin/python3 -c '
import ctypes, mmap
print("hbw_check_available", ctypes.CDLL("libmemkind.so.0").hbw_check_available())
numa = ctypes.CDLL("libnuma.so.1")
numa.numa_alloc_onnode.restype = ctypes.c_void_p
p = numa.numa_alloc_onnode(ctypes.c_size_t(8 << 20), 1)
ctypes.memset(p, 1, 8 << 20)
pages = (ctypes.c_void_p * 16)(*[p + k * 4096 for k in range(16)])
status = (ctypes.c_int * 16)()
numa.numa_move_pages.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
print("rc", numa.numa_move_pages(0, 16, pages, None, status, 0), "nodes", sorted(set(status)))'
    assert_success
    assert_line "hbw_check_available 0"
    assert_line "rc 0 nodes [1]"
}

@test "placerun --tiers: each node's bandwidth and latency from HMAT, its memory tier and what its memory is" {
    run --separate-stderr vm --hmat -- "$REPO/scripts/placerun" --tiers
    assert_success
    assert_line "node 0 access: read bandwidth 30720 MB/s, write bandwidth 30720 MB/s, read latency 100 ns, write latency 100 ns (HMAT)"
    assert_line "node 1 access: read bandwidth 307200 MB/s, write bandwidth 307200 MB/s, read latency 120 ns, write latency 120 ns (HMAT)"
    assert_line --regexp '^node 1 memory tier: ([0-9]+|none \(no memory tiering\))$'
    assert_line "node 0 kind: DRAM (has CPUs)"
    assert_line "node 1 kind: HBM (no CPUs, read bandwidth 307200 MB/s above the CPU nodes' 30720 MB/s)"
    # without the firmware's figures a CPU-less node is memory and nothing more is known
    run --separate-stderr vm -- "$REPO/scripts/placerun" --tiers --json
    assert_success
    run python3 -c 'import json, sys
for n in json.loads(sys.argv[1])["machine"]["nodes"]:
    print(n["node"], n["kind"], n["access"]["read_bandwidth"])' "$output"
    assert_output "0 DRAM None
1 memory-only None"
}

@test "a command that cannot run, and bad options, say so" {
    run -2 "$REPO/scripts/numa-vm" --bogus -- true
    assert_output --partial "unknown option --bogus"
    run -2 "$REPO/scripts/numa-vm"
    assert_output --partial "no command"
    run -2 "$REPO/scripts/numa-vm" --four --snc -- true
    assert_output --partial "--four and --snc are layouts of their own"
    run -2 "$REPO/scripts/numa-vm" --snc --cpus 3 -- true
    assert_output --partial "--snc splits the CPUs between two nodes: --cpus takes an even number"
    run -127 "$REPO/scripts/numa-vm" -- /nonexistent/program
}

# Policy $1.ini (its report: $1.report): a tier named $2 with the keys $3..., and a rule
# sending blocks of 4 MiB and more to it, then to dram.
tier_policy() {
    local name=$1 tier=$2
    shift 2
    policy "$BATS_TEST_TMPDIR/$name.ini" '[libplace]' "report = $BATS_TEST_TMPDIR/$name.report" \
        "[tier $tier]" "$@" '[rule big]' 'size = 4M..' "to = $tier, dram"
}

@test "numa tiers: the kernel holds each policy's pages where it says (bind, preferred, interleave, a limit)" {
    tier_policy bind far "kind = numa" "nodes = 1" "policy = bind"
    tier_policy preferred far "kind = numa" "nodes = 1" "policy = preferred"
    tier_policy interleave far "kind = numa" "nodes = 0-1" "policy = interleave"
    tier_policy limited far "kind = numa" "nodes = 1" "policy = bind" "limit = 20M"
    run vm --share "$BATS_TEST_TMPDIR" -- sh -c '
        cd "$1"
        for p in bind preferred interleave limited; do
            echo "$p:"
            LD_PRELOAD="$2" LIBPLACE_POLICY=$p.ini /usr/bin/python3 "$3" 4
        done
        "$4" --lib "$2" --verify -p bind.ini -r verified.report -- /usr/bin/python3 "$3" 1 >/dev/null' \
        sh "$BATS_TEST_TMPDIR" "$LIB" "$BATS_TEST_DIRNAME/where.py" "$REPO/scripts/placerun"
    assert_success
    # every whole page of every buffer on node 1 (a buffer starts inside a page)
    [ "$(sed -n '/^bind:/,/^preferred:/p' <<<"$output" | grep -Ec '^buffer [0-3]: node 1 204[78]$')" -eq 4 ]
    [ "$(sed -n '/^preferred:/,/^interleave:/p' <<<"$output" | grep -Ec '^buffer [0-3]: node 1 204[78]$')" -eq 4 ]
    # interleave: each buffer spread over both nodes, at least a quarter on each (the
    # kernel alternates by page offset in the range; pages an earlier block faulted in
    # keep the node they got then)
    [ "$(sed -n '/^interleave:/,/^limited:/p' <<<"$output" |
        awk -F'[ ,]+' '/^buffer/ && $4 == 0 && $7 == 1 && $5 > 500 && $8 > 500' | wc -l)" -eq 4 ]
    # a 20 MiB limit takes the first two buffers (8 MiB each);
    # the rest go to dram, on node 0
    [ "$(sed -n '/^limited:/,$p' <<<"$output" | grep -Ec '^buffer [01]: node 1 204[78]$')" -eq 2 ]
    [ "$(sed -n '/^limited:/,$p' <<<"$output" | grep -Ec '^buffer [23]: node 0 204[78]$')" -eq 2 ]
    grep -Eq '^libplace: far +numa +20.0 MiB ' "$BATS_TEST_TMPDIR/limited.report"
    # the report's own check agrees with the kernel: a sample at exit, every page with
    # placerun --verify
    grep -Eq '^libplace: far: 100.0% of [0-9]{4,} resident pages on its nodes \(move_pages\), from a sample$' "$BATS_TEST_TMPDIR/bind.report"
    grep -Eq '^libplace: far: 100.0% of all [0-9]{4,} resident pages on its nodes \(move_pages\)$' "$BATS_TEST_TMPDIR/verified.report"
    grep -Eq '^libplace: far +2 +2 +0 ' "$BATS_TEST_TMPDIR/limited.report"
}

@test "four nodes (--four): DRAM, DRAM, HBM and CXL told apart; an hbw tier finds HBM from HMAT where memkind finds none" {
    run --separate-stderr vm --four --mem0 512M -- sh -c '
        "$1" --tiers
        echo "memkind: $(/usr/bin/python3 -c "import ctypes; print(ctypes.CDLL(\"libmemkind.so.0\").hbw_check_available())")"
        echo "placed:"
        LD_PRELOAD="$2" LIBPLACE_RULES="size=4M.. to=hbw" /usr/bin/python3 "$3" 1' \
        sh "$REPO/scripts/placerun" "$LIB" "$BATS_TEST_DIRNAME/where.py"
    assert_success
    assert_line "node 0 kind: DRAM (has CPUs)"
    assert_line "node 1 kind: DRAM (has CPUs)"
    assert_line "node 2 kind: HBM (no CPUs, read bandwidth 307200 MB/s above the CPU nodes' 30720 MB/s)"
    assert_line "node 3 kind: CXL or far memory (no CPUs, read bandwidth 10240 MB/s below the CPU nodes' 30720 MB/s)"
    assert_line "node 3 access: read bandwidth 10240 MB/s, write bandwidth 10240 MB/s, read latency 250 ns, write latency 250 ns (HMAT)"
    # memkind finds none in this layout; libplace's hbw tier takes node 2 from HMAT
    assert_line "memkind: 19"
    [ "$(sed -n '/^placed:/{n;p}' <<<"$output")" = "buffer 0: node 2 2048" ] ||
        [ "$(sed -n '/^placed:/{n;p}' <<<"$output")" = "buffer 0: node 2 2047" ]
}

@test "sub-NUMA clusters (--snc): two CPU nodes, each with an HBM node of its own as HMAT's nearest; SLIT distances" {
    run --separate-stderr vm --snc --mem0 512M -- sh -c '
        "$1" --tiers
        cd /sys/devices/system/node
        for n in 0 1; do [ -e node3/access0/initiators/node$n ] && echo "node 3 near node $n"; done
        echo "distances: $(cat node0/distance)"' \
        sh "$REPO/scripts/placerun"
    assert_success
    assert_line "node 0 kind: DRAM (has CPUs)"
    assert_line "node 1 kind: DRAM (has CPUs)"
    assert_line "node 2 kind: HBM (no CPUs, read bandwidth 307200 MB/s above the CPU nodes' 30720 MB/s)"
    assert_line "node 3 kind: HBM (no CPUs, read bandwidth 307200 MB/s above the CPU nodes' 30720 MB/s)"
    # the kernel links node 3 to node 1's CPUs alone: libplace finds each CPU node's HBM so
    assert_line "node 3 near node 1"
    refute_line "node 3 near node 0"
    assert_line "distances: 10 21 13 23"
}

@test "weighted interleave: weights = 0:3,1:1 puts 75% of a 256 MiB block's pages on node 0; weights = bandwidth follows HMAT" {
    tier_policy weighted far "kind = numa" "nodes = 0-1" "policy = weighted_interleave" "weights = 0:3,1:1"
    tier_policy bandwidth far "kind = numa" "nodes = 0-1" "policy = weighted_interleave" "weights = bandwidth"
    run vm --hmat --share "$BATS_TEST_TMPDIR" -- sh -c '
        cd "$1"
        for p in weighted bandwidth; do
            echo "$p:"
            LD_PRELOAD="$2" LIBPLACE_POLICY=$p.ini /usr/bin/python3 "$3" 1 256
        done
        echo "one-liner:"
        "$4" --lib "$2" --weighted-interleave=0:1,1:3:4M.. -- /usr/bin/python3 "$3" 1 64' \
        sh "$BATS_TEST_TMPDIR" "$LIB" "$BATS_TEST_DIRNAME/where.py" "$REPO/scripts/placerun"
    assert_success
    # the share of node $2 in section $1's buffer, in percent
    share() {
        sed -n "/^$1:/{n;p}" <<<"$output" |
            awk -F'[ ,]+' -v node="$2" '{for (i = 3; i + 2 <= NF; i += 3) {t += $(i + 2); if ($(i + 1) == node) n = $(i + 2)}} END {printf "%d\n", t ? 100 * n / t : -1}'
    }
    # 75% +- 3 on node 0; HMAT gives node 1 ten times node 0's bandwidth: 10/11 of it there
    (($(share weighted 0) >= 72 && $(share weighted 0) <= 78))
    (($(share bandwidth 1) >= 88 && $(share bandwidth 1) <= 94))
    (($(share one-liner 1) >= 72 && $(share one-liner 1) <= 78))
    # the report gives the weights, those the firmware gave too
    grep -qx 'libplace: far: weighted interleave, 2 MiB stripes of each period node 0: 3, node 1: 1' "$BATS_TEST_TMPDIR/weighted.report"
    grep -qx "libplace: far: weighted interleave, 2 MiB stripes of each period node 0: 1, node 1: 10 (from the firmware's read bandwidths)" "$BATS_TEST_TMPDIR/bandwidth.report"
    # and its check at exit finds the same spread, each node's share of the pages on a node
    reported() {
        local line
        line=$(grep '^libplace: far: 100.0% of [0-9]* resident pages on its nodes (move_pages)' "$BATS_TEST_TMPDIR/$1.report")
        [[ $line =~ :\ node\ 0\ [0-9.]+%,\ node\ 1\ [0-9.]+%(;|$) ]] || return 1
        sed -E "s/.*node $2 ([0-9]+)\.[0-9]%.*/\1/" <<<"$line"
    }
    (($(reported weighted 0) >= 72 && $(reported weighted 0) <= 78))
    (($(reported bandwidth 1) >= 88 && $(reported bandwidth 1) <= 94))
}

@test "placerun's numactl one-liners: the kernel holds the pages where numactl's words say" {
    export PLACERUN LIB WHERE=$BATS_TEST_DIRNAME/where.py
    run vm -- sh -c '
        run() { echo "$1:"; shift; "$PLACERUN" --lib "$LIB" -r stderr "$@" -- /usr/bin/python3 "$WHERE" 1 2>/dev/null; }
        run membind --membind=1:4M..
        run not0 --membind="!0:4M.."
        run relative --membind=+1:4M..
        run preferred --preferred=1:4M..
        run interleave --interleave=all:4M..
        run small --membind=1:1..4K
        "$PLACERUN" --lib "$LIB" --check --membind=7 2>&1' \
        sh
    assert_success
    for name in membind not0 relative preferred; do
        [ "$(sed -n "/^$name:/{n;p}" <<<"$output")" = "buffer 0: node 1 2048" ] ||
            [ "$(sed -n "/^$name:/{n;p}" <<<"$output")" = "buffer 0: node 1 2047" ]
    done
    sed -n '/^interleave:/{n;p}' <<<"$output" | awk -F'[ ,]+' '$4 == 0 && $7 == 1 && $5 > 500 && $8 > 500 {ok = 1} END {exit !ok}'
    # the 8 MiB buffer is outside the window: the kernel's first touch, node 0
    grep -Eq '^buffer 0: node 0 204[78]$' <<<"$(sed -n '/^small:/{n;p}' <<<"$output")"
    # libplace takes node 7 (a policy may be written for another machine); --check warns
    assert_line "placerun: LIBPLACE_NODES_MEMBIND=7: warning: tier membind: node 7 not on this machine (it has nodes 0-1)"
}

@test "hbw tiers: node 1, found by memkind from HMAT, holds each policy's pages; 2M pages once reserved" {
    for p in bind-4K bind_all-4K preferred-4K interleave-4K bind-THP bind-2M; do
        tier_policy "hbw-$p" hbw "kind = hbw" "policy = ${p%-*}" "pagesize = ${p#*-}"
    done
    run vm --hmat --share "$BATS_TEST_TMPDIR" -- sh -c '
        cd "$1"
        for p in bind-4K bind_all-4K preferred-4K interleave-4K bind-THP; do
            echo "$p:"
            LD_PRELOAD="$2" LIBPLACE_POLICY=hbw-$p.ini /usr/bin/python3 "$3" 2
        done
        echo "interleave over 0,1:"
        MEMKIND_HBW_NODES=0,1 LD_PRELOAD="$2" LIBPLACE_POLICY=hbw-interleave-4K.ini /usr/bin/python3 "$3" 2
        echo "2M without huge pages:"
        LD_PRELOAD="$2" LIBPLACE_POLICY=hbw-bind-2M.ini /usr/bin/python3 "$3" 1
        mv hbw-bind-2M.report hbw-bind-2M.none
        echo 24 >/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages
        echo "2M:"
        LD_PRELOAD="$2" LIBPLACE_POLICY=hbw-bind-2M.ini /usr/bin/python3 "$3" 2' \
        sh "$BATS_TEST_TMPDIR" "$LIB" "$BATS_TEST_DIRNAME/where.py"
    assert_success
    for p in bind-4K bind_all-4K preferred-4K bind-THP; do
        [ "$(sed -n "/^$p:/,/^[a-z].*:\$/p" <<<"$output" | grep -Ec '^buffer [01]: node 1 204[78]$')" -eq 2 ]
    done
    # the only HBW node: interleave over it is node 1 alone; with both named, both hold pages
    [ "$(sed -n '/^interleave-4K:/,/^bind-THP:/p' <<<"$output" | grep -Ec '^buffer [01]: node 1 204[78]$')" -eq 2 ]
    [ "$(sed -n '/^interleave over 0,1:/,/^2M without/p' <<<"$output" |
        awk -F'[ ,]+' '/^buffer/ && $4 == 0 && $7 == 1 && $5 > 500 && $8 > 500' | wc -l)" -eq 2 ]
    # without huge pages the tier is unavailable and says why; the buffer went to dram
    sed -n '/^2M without/,/^2M:/p' <<<"$output" | grep -Eq '^buffer 0: node 0 204[78]$' || {
        sed -n '/^2M without/,/^2M:/p' <<<"$output" # what the kernel said
        false
    }
    grep -q "hbw: unavailable: pagesize = 2M, but the HBW nodes have no free 2M huge pages" "$BATS_TEST_TMPDIR/hbw-bind-2M.none"
    [ "$(sed -n '/^2M:/,$p' <<<"$output" | grep -Ec '^buffer [01]: node 1 204[78]$')" -eq 2 ]
    # both buffers live at exit, in whole 2M pages
    grep -Eq '^libplace: hbw +hbw +none +16.0 MiB ' "$BATS_TEST_TMPDIR/hbw-bind-2M.report"
}

@test "OpenSHMEM: an api = shmem rule binds two PEs' symmetric blocks to the HBW node, every page there" {
    # Open MPI inside the VM needs a loopback interface and a hostname; --mca memory
    # ^patcher as in shmem.bats (its patcher crashes at shmem_finalize here)
    run --separate-stderr vm --hmat -- sh -c 'ip link set lo up && hostname numavm &&
        exec env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_memory=^patcher \
        oshrun --oversubscribe -np 2 -x LD_PRELOAD="$0" -x LIBPLACE_RULES="api=shmem size=1M.. to=hbw" "$1"' \
        "$LIB" "$PROGS/shmem_blocks"
    assert_success
    for pe in 0 1; do
        assert_line "pe $pe malloc+realloc 6291456 policy preferred nodes 0x2 pages 1535/1535 on node 1"
        assert_line "pe $pe calloc 8000 policy default nodes 0 pages 1/1 on node 0"
        assert_line "pe $pe align 3145728 policy preferred nodes 0x2 pages 768/768 on node 1"
        assert_line "pe $pe shmalloc 1048576 policy preferred nodes 0x2 pages 255/255 on node 1"
    done
}

@test "the access profile's loop in the VM: the advised policy puts the hot arrays on node 1, the kernel says so" {
    run vm --hmat --share "$BATS_TEST_TMPDIR" -- sh -c '
        cd "$1"
        "$4" --lib "$2" --profile -r profile.json -- "$3" 600 >/dev/null &&
        LIBPLACE_LIB="$2" "$5" advise profile.json --fit hbw=100M -o advised.ini >advice.txt &&
        "$4" --lib "$2" --verify -p advised.ini -r placed.report -- "$3" 20 1 keep' \
        sh "$BATS_TEST_TMPDIR" "$LIB" "$PROGS/hotcold" "$PLACERUN" "$REPO/scripts/place-report"
    assert_success
    assert_output --regexp '^hotcold: 20 sweeps, checksum [0-9]+$'
    grep -qx 'hbw: 4 sites, 100.0 MiB of 100.0 MiB' "$BATS_TEST_TMPDIR/advice.txt"
    # the hot arrays' every page on node 1, HBW as memkind found it from HMAT
    grep -Eq '^libplace: hbw: 100.0% of all [0-9]{5,} resident pages on its nodes \(move_pages\)$' \
        "$BATS_TEST_TMPDIR/placed.report"
    grep -Eq '^libplace: hbw +hbw +100.0 MiB +100.0 MiB +100.0 MiB ' "$BATS_TEST_TMPDIR/placed.report"
    # Debian's kernel keeps soft-dirty bits: read one interval in ten, the swept arrays
    # are written whole in each such interval they were live in (they may have been in
    # none: the interval adapts to the VM's speed)
    run /usr/bin/python3 - "$BATS_TEST_TMPDIR/profile.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["profile"]["access"]
assert a["written"] is True, a["written"]
shares = {s["frames"][0]["symbol"]: s["access"]["written_share"] for s in a["hottest"]
          if "make_array" not in s["frames"][0]["symbol"]}
assert any(v is not None for v in shares.values()), shares
# an interval read may have been the one a hot array was allocated and filled in
hot = [v for k, v in shares.items() if "alloc_hot" in k and v is not None]
cold = [v for k, v in shares.items() if "alloc_cold" in k and v is not None]
assert all(v > 0.5 for v in hot) and all(c < h for c in cold for h in hot), shares
PY
    assert_success
}

@test "sub-NUMA HBM (--snc): near = cpu puts each thread's blocks on the HBW node nearest its CPU; hbw weighted interleave" {
    for p in cpu first; do
        policy "$BATS_TEST_TMPDIR/$p.ini" '[libplace]' "report = $BATS_TEST_TMPDIR/$p.report" \
            '[tier fast]' 'kind = hbw' 'policy = bind' "near = $p" '[rule big]' 'size = 16K..' 'to = fast'
    done
    policy "$BATS_TEST_TMPDIR/numa.ini" '[libplace]' "report = $BATS_TEST_TMPDIR/numa.report" \
        '[tier fast]' 'kind = numa' 'nodes = 2-3' 'near = cpu' '[rule big]' 'size = 16K..' 'to = fast'
    policy "$BATS_TEST_TMPDIR/all.ini" '[tier fast]' 'kind = hbw' 'near = cpu' '[rule all]' 'to = fast'
    tier_policy weighted fast "kind = hbw" "policy = weighted_interleave" "weights = 2:3,3:1"
    tier_policy bandwidth fast "kind = hbw" "policy = weighted_interleave" "weights = bandwidth"
    tier_policy dram fast "kind = hbw" "policy = weighted_interleave" "weights = 0:1,2:1"
    run vm --snc --mem0 512M --share "$BATS_TEST_TMPDIR" -- sh -c '
        cd "$1"
        for p in cpu first numa; do
            echo "$p:"
            LD_PRELOAD="$2" LIBPLACE_POLICY=$p.ini /usr/bin/python3 "$3" 0 1
        done
        for p in weighted bandwidth dram; do
            echo "$p:"
            LD_PRELOAD="$2" LIBPLACE_POLICY=$p.ini /usr/bin/python3 "$4" 1 256
        done
        # two threads that free each other'"'"'s blocks, everything placed near each one
        "$5" 2 20 5 >glibc.out && LD_PRELOAD="$2" LIBPLACE_POLICY=all.ini "$5" 2 20 5 >near.out &&
            cmp glibc.out near.out && echo "mstress: the same"' \
        sh "$BATS_TEST_TMPDIR" "$LIB" "$BATS_TEST_DIRNAME/near.py" "$BATS_TEST_DIRNAME/where.py" \
        "$BUILD/bench/mimalloc-bench/mstress"
    assert_success
    assert_line "mstress: the same"
    # near = cpu: CPU 0 (node 0) takes node 2, CPU 1 (node 1) node 3, large and small blocks
    # alike, every whole page (a block starts inside a page)
    section() { sed -n "/^$1:/,/^[a-z]*:\$/p" <<<"$output"; }
    section cpu | grep -Eqx 'cpu 0 large: node 2 204[78]'
    section cpu | grep -Eqx 'cpu 0 small: node 2 12[0-8]'
    section cpu | grep -Eqx 'cpu 1 large: node 3 204[78]'
    section cpu | grep -Eqx 'cpu 1 small: node 3 12[0-8]'
    grep -qx "libplace: fast: near = cpu, each block on the node nearest the CPU that allocates it: node 0's CPUs take node 2, node 1's CPUs take node 3" "$BATS_TEST_TMPDIR/cpu.report"
    # a numa tier over nodes 2 and 3 the same, with the same report
    section numa | grep -Eqx 'cpu 0 large: node 2 204[78]'
    section numa | grep -Eqx 'cpu 1 small: node 3 12[0-8]'
    grep -q "node 0's CPUs take node 2, node 1's CPUs take node 3" "$BATS_TEST_TMPDIR/numa.report"
    # near = first (hbwmalloc's): the first thread's nearest node for both threads
    [ "$(section first | grep -Ec '^cpu [01] (large|small): node (2|3) [0-9]+$')" -eq 4 ]
    [ "$(section first | grep -o 'node [23]' | sort -u | wc -l)" -eq 1 ]
    ! grep -q "near = cpu" "$BATS_TEST_TMPDIR/first.report"
    # the share of node $2 in section $1's buffer, in percent
    share() {
        sed -n "/^$1:/{n;p}" <<<"$output" |
            awk -F'[ ,]+' -v node="$2" '{for (i = 3; i + 2 <= NF; i += 3) {t += $(i + 2); if ($(i + 1) == node) n = $(i + 2)}} END {printf "%d\n", t ? 100 * n / t : -1}'
    }
    (($(share weighted 2) >= 72 && $(share weighted 2) <= 78))
    # both HBW nodes give 300 GB/s from their own CPUs: 1:1
    (($(share bandwidth 2) >= 47 && $(share bandwidth 2) <= 53))
    grep -qx "libplace: fast: weighted interleave, 2 MiB stripes of each period node 2: 1, node 3: 1 (from the firmware's read bandwidths)" "$BATS_TEST_TMPDIR/bandwidth.report"
    # weights that name DRAM: the tier is unavailable, said why, and the block is dram's
    # (on the node of whichever CPU touched it), none of it on HBM
    grep -q "fast: unavailable: weights name node 0, which is not high-bandwidth memory here" "$BATS_TEST_TMPDIR/dram.report"
    [ "$(share dram 2)" -eq 0 ] && [ "$(share dram 3)" -eq 0 ]
}
