#!/usr/bin/env bats
# Real, unmodified programs under libplace: the same output, the same exit status.

load helpers
load programs

@test "python3 building many objects" {
    same_with_and_without "$(program_python_objects)"
}

@test "python3 with PYTHONMALLOC=malloc" {
    same_with_and_without "$(program_python_malloc)"
}

@test "sort on a generated multi-megabyte file" {
    same_with_and_without "$(program_sort)"
}

@test "gcc compiling and linking a C file" {
    same_with_and_without "$(program_gcc)"
}

@test "g++ compiling a C++ file" {
    same_with_and_without "$(program_gxx)"
}

@test "git init, add, commit, log" {
    same_with_and_without "$(program_git)"
}

@test "sqlite3" {
    same_with_and_without "$(program_sqlite)"
}

@test "perl" {
    same_with_and_without "$(program_perl)"
}

@test "a bash script" {
    same_with_and_without "$(program_bash_script)"
}

@test "awk word frequencies" {
    same_with_and_without "$(program_awk)"
}

@test "tar and gzip" {
    same_with_and_without "$(program_tar_gzip)"
}

@test "grep, sed, find, xargs" {
    same_with_and_without "$(program_grep_sed_find)"
}

@test "ls, sha256sum, od, diff (coreutils closing stdout and stderr at exit)" {
    same_with_and_without "$(program_coreutils)"
}

@test "multithreaded C++ with new/delete and frees on other threads" {
    same_with_and_without "$(program_threads)"
}

@test "a program whose stdout is a pipe and whose last bytes are still buffered" {
    same_with_and_without "$(program_pipe_tail)"
}

@test "a program that forks and execs" {
    same_with_and_without "$(program_forkexec)"
}

@test "a program that dlopens a library" {
    same_with_and_without "$(program_dlopen)"
}
