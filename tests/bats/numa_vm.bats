#!/usr/bin/env bats
# scripts/numa-vm: a two-node VM (node 1 with memory and no CPUs) that runs a command of
# this machine and gives back its output and exit status. Each test boots one (about
# 8 s without KVM).

load helpers

setup() {
    command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 is not installed (scripts/setup test installs it)"
    ls /boot/vmlinuz-* >/dev/null 2>&1 || skip "no kernel in /boot (linux-image-amd64)"
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

@test "a command that cannot run, and bad options, say so" {
    run "$REPO/scripts/numa-vm" --bogus -- true
    assert_equal "$status" 125
    assert_output --partial "unknown option --bogus"
    run "$REPO/scripts/numa-vm"
    assert_equal "$status" 125
    assert_output --partial "no command"
    run -127 "$REPO/scripts/numa-vm" -- /nonexistent/program
}
