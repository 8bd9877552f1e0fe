#!/usr/bin/env bats
# Real, unmodified programs (programs.bash) under placing policies (helpers.bash:
# PLACING_POLICIES): everything placed, site rules of depth 1 and 4 that the first frame
# decides and one that walks 8 frames, limits that fall back, wait and overflow, a dry
# run. The same output and exit status as without libplace, and in every run some
# process placed blocks.

load helpers
load programs

@test "python3 building many objects, under every placing policy" {
    same_under_policies "$(program_python_objects)"
}

@test "python3 with PYTHONMALLOC=malloc, under every placing policy" {
    same_under_policies "$(program_python_malloc)"
}

@test "sort on a generated multi-megabyte file, under every placing policy" {
    same_under_policies "$(program_sort)"
}

@test "gcc compiling and linking a C file, under every placing policy" {
    same_under_policies "$(program_gcc)"
}

@test "g++ compiling a C++ file, under every placing policy" {
    same_under_policies "$(program_gxx)"
}

@test "git init, add, commit, log, under every placing policy" {
    same_under_policies "$(program_git)"
}

@test "sqlite3, under every placing policy" {
    same_under_policies "$(program_sqlite)"
}

@test "perl, under every placing policy" {
    same_under_policies "$(program_perl)"
}

@test "a bash script, under every placing policy" {
    same_under_policies "$(program_bash_script)"
}

@test "awk word frequencies, under every placing policy" {
    same_under_policies "$(program_awk)"
}

@test "tar and gzip, under every placing policy" {
    same_under_policies "$(program_tar_gzip)"
}

@test "grep, sed, find, xargs, under every placing policy" {
    same_under_policies "$(program_grep_sed_find)"
}

@test "ls, sha256sum, od, diff (coreutils closing stdout and stderr at exit), under every placing policy" {
    same_under_policies "$(program_coreutils)"
}

@test "multithreaded C++ with new/delete and frees on other threads, under every placing policy" {
    same_under_policies "$(program_threads)"
}

@test "a program whose stdout is a pipe and whose last bytes are still buffered, under every placing policy" {
    same_under_policies "$(program_pipe_tail)"
}

@test "a program that forks and execs, under every placing policy" {
    same_under_policies "$(program_forkexec)"
}

@test "a program that dlopens a library, under every placing policy" {
    same_under_policies "$(program_dlopen)"
}
