# The real programs the suites run under libplace: one definition each, printed as the
# shell snippet same_with_and_without and same_under_policies take. programs.bats runs
# them pass-through and counted, placing.bats under every kind of placing policy.

# python3 building many objects
program_python_objects() {
    printf '%s\n' "/usr/bin/python3 -c '
d = {i: (str(i) * 3, [i] * 5, {\"k\": i}) for i in range(300000)}
print(sum(len(v[0]) + len(v[1]) for v in d.values()))
print(sorted(d)[-5:])'"
}

# python3 with PYTHONMALLOC=malloc
program_python_malloc() {
    printf '%s\n' "PYTHONMALLOC=malloc /usr/bin/python3 -c '
import json
objs = [{\"id\": i, \"tags\": [str(j) for j in range(i % 7)], \"f\": i / 7} for i in range(200000)]
s = json.dumps(objs[:1000])
print(len(s), sum(len(o[\"tags\"]) for o in objs))
print(json.loads(s)[999])'"
}

# sort on a generated multi-megabyte file
program_sort() {
    printf '%s\n' "
seq 1 500000 | awk '{ print (\$1 * 7919) % 100003, \"line\", \$1 }' > in.txt
wc -c < in.txt
LC_ALL=C sort -k1,1n -k3,3n in.txt | sha256sum
LC_ALL=C sort -r in.txt | head -3"
}

# gcc compiling and linking a C file
program_gcc() {
    printf '%s\n' "
cat > hello.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(void) { long s = 0; for (int i = 0; i < 1000; i++) s += i * i; printf(\"sum %ld\\\\n\", s); return 7; }
C
gcc -O2 -Wall -o hello hello.c && ./hello; echo status \$?"
}

# g++ compiling a C++ file
program_gxx() {
    printf '%s\n' "
cat > m.cpp <<'C'
#include <iostream>
#include <map>
#include <string>
int main() { std::map<std::string, int> m; for (int i = 0; i < 10000; i++) m[std::to_string(i)] = i; std::cout << m.size() << ' ' << m.begin()->first << std::endl; }
C
g++ -O1 -o m m.cpp && ./m"
}

# git init, add, commit, log
program_git() {
    printf '%s\n' "
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
export GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'
git init -q -b main repo && cd repo
for i in \$(seq 1 15); do seq 1 \$((i * 100)) > file\$i.txt; git add file\$i.txt; git commit -q -m \"commit \$i\"; done
git log --oneline | head -5
git log --stat -1
git gc -q && git count-objects -v | grep -v size"
}

# sqlite3
program_sqlite() {
    printf '%s\n' "
sqlite3 db.sqlite <<'SQL'
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v REAL);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50000)
INSERT INTO t SELECT x, 'name-' || x, x * 0.5 FROM c;
CREATE INDEX t_name ON t(name);
SELECT count(*), sum(v), max(name) FROM t;
SELECT name FROM t WHERE name LIKE 'name-4999%' ORDER BY id;
SQL"
}

# perl
program_perl() {
    printf '%s\n' "perl -e '
my %h; \$h{\"key\$_\"} = [\$_, \"v\" x (\$_ % 20)] for 1..200000;
my \$n = 0; \$n += length(\$h{\$_}[1]) for keys %h;
print scalar(keys %h), \" \$n\\n\"; print join(\",\", (sort keys %h)[0..4]), \"\\n\";'"
}

# a bash script
program_bash_script() {
    printf '%s\n' "
declare -A seen; arr=()
for i in \$(seq 1 3000); do arr+=(\"item-\$i\"); seen[\$((i % 97))]=\$i; done
echo \${#arr[@]} \${#seen[@]} \${arr[2999]}
out=\$(for w in \${arr[@]:0:50}; do echo \${w^^}; done | tail -1); echo \$out
( exit 3 ); echo subshell \$?
f() { local x=\$1; echo \$((x * 2)); }; f 21
exit 4"
}

# awk word frequencies
program_awk() {
    printf '%s\n' "
seq 1 200000 | awk '{ w[\$1 % 1000]++; s = s \$1 % 10 } END { n = 0; for (k in w) n++; print n, length(s) }'"
}

# tar and gzip
program_tar_gzip() {
    printf '%s\n' "
mkdir d; for i in \$(seq 1 50); do seq 1 \$((i * 200)) > d/f\$i; done
tar --sort=name --mtime='2026-01-01' --owner=0 --group=0 -czf d.tgz d
tar -tzf d.tgz | head -3; mkdir x; tar -xzf d.tgz -C x; diff -r d x/d && echo same
gzip -dc d.tgz | wc -c"
}

# grep, sed, find, xargs
program_grep_sed_find() {
    printf '%s\n' "
mkdir -p a/b/c; for i in \$(seq 1 100); do echo \"line \$i \$((i * i))\" > a/b/c/f\$i.txt; done
grep -rh 'line 4' a | sort | sed -e 's/line/LINE/' | head -5
find a -name 'f*.txt' | sort | xargs cat | wc -l"
}

# ls, sha256sum, od, diff (coreutils closing stdout and stderr at exit)
program_coreutils() {
    printf '%s\n' "
mkdir z; seq 1 1000 > z/one; seq 1 999 > z/two; ls -R z; sha256sum z/one; od -An -c z/two | head -2
diff z/one z/two; echo diff \$?"
}

# multithreaded C++ with new/delete and frees on other threads
program_threads() {
    printf '%s\n' "$PROGS/threads"
}

# a program whose stdout is a pipe and whose last bytes are still buffered
program_pipe_tail() {
    printf '%s\n' "$PROGS/pipe_tail 200000 | sha256sum; $PROGS/pipe_tail 3 | cat"
}

# a program that forks and execs
program_forkexec() {
    printf '%s\n' "$PROGS/forkexec"
}

# a program that dlopens a library
program_dlopen() {
    printf '%s\n' "$PROGS/dlopen_main $PROGS/libdlopen_lib.so"
}


