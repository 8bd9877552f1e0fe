#!/usr/bin/env bats
# Real, unmodified programs under libplace: the same output, the same exit status.

load helpers

@test "python3 building many objects" {
    same_with_and_without "/usr/bin/python3 -c '
d = {i: (str(i) * 3, [i] * 5, {\"k\": i}) for i in range(300000)}
print(sum(len(v[0]) + len(v[1]) for v in d.values()))
print(sorted(d)[-5:])'"
}

@test "python3 with PYTHONMALLOC=malloc" {
    same_with_and_without "PYTHONMALLOC=malloc /usr/bin/python3 -c '
import json
objs = [{\"id\": i, \"tags\": [str(j) for j in range(i % 7)], \"f\": i / 7} for i in range(200000)]
s = json.dumps(objs[:1000])
print(len(s), sum(len(o[\"tags\"]) for o in objs))
print(json.loads(s)[999])'"
}

@test "sort on a generated multi-megabyte file" {
    same_with_and_without "
seq 1 500000 | awk '{ print (\$1 * 7919) % 100003, \"line\", \$1 }' > in.txt
wc -c < in.txt
LC_ALL=C sort -k1,1n -k3,3n in.txt | sha256sum
LC_ALL=C sort -r in.txt | head -3"
}

@test "gcc compiling and linking a C file" {
    same_with_and_without "
cat > hello.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(void) { long s = 0; for (int i = 0; i < 1000; i++) s += i * i; printf(\"sum %ld\\\\n\", s); return 7; }
C
gcc -O2 -Wall -o hello hello.c && ./hello; echo status \$?"
}

@test "g++ compiling a C++ file" {
    same_with_and_without "
cat > m.cpp <<'C'
#include <iostream>
#include <map>
#include <string>
int main() { std::map<std::string, int> m; for (int i = 0; i < 10000; i++) m[std::to_string(i)] = i; std::cout << m.size() << ' ' << m.begin()->first << std::endl; }
C
g++ -O1 -o m m.cpp && ./m"
}

@test "git init, add, commit, log" {
    same_with_and_without "
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
export GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'
git init -q -b main repo && cd repo
for i in \$(seq 1 15); do seq 1 \$((i * 100)) > file\$i.txt; git add file\$i.txt; git commit -q -m \"commit \$i\"; done
git log --oneline | head -5
git log --stat -1
git gc -q && git count-objects -v | grep -v size"
}

@test "sqlite3" {
    same_with_and_without "
sqlite3 db.sqlite <<'SQL'
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v REAL);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50000)
INSERT INTO t SELECT x, 'name-' || x, x * 0.5 FROM c;
CREATE INDEX t_name ON t(name);
SELECT count(*), sum(v), max(name) FROM t;
SELECT name FROM t WHERE name LIKE 'name-4999%' ORDER BY id;
SQL"
}

@test "perl" {
    same_with_and_without "perl -e '
my %h; \$h{\"key\$_\"} = [\$_, \"v\" x (\$_ % 20)] for 1..200000;
my \$n = 0; \$n += length(\$h{\$_}[1]) for keys %h;
print scalar(keys %h), \" \$n\\n\"; print join(\",\", (sort keys %h)[0..4]), \"\\n\";'"
}

@test "a bash script" {
    same_with_and_without "
declare -A seen; arr=()
for i in \$(seq 1 3000); do arr+=(\"item-\$i\"); seen[\$((i % 97))]=\$i; done
echo \${#arr[@]} \${#seen[@]} \${arr[2999]}
out=\$(for w in \${arr[@]:0:50}; do echo \${w^^}; done | tail -1); echo \$out
( exit 3 ); echo subshell \$?
f() { local x=\$1; echo \$((x * 2)); }; f 21
exit 4"
}

@test "awk word frequencies" {
    same_with_and_without "
seq 1 200000 | awk '{ w[\$1 % 1000]++; s = s \$1 % 10 } END { n = 0; for (k in w) n++; print n, length(s) }'"
}

@test "tar and gzip" {
    same_with_and_without "
mkdir d; for i in \$(seq 1 50); do seq 1 \$((i * 200)) > d/f\$i; done
tar --sort=name --mtime='2026-01-01' --owner=0 --group=0 -czf d.tgz d
tar -tzf d.tgz | head -3; mkdir x; tar -xzf d.tgz -C x; diff -r d x/d && echo same
gzip -dc d.tgz | wc -c"
}

@test "grep, sed, find, xargs" {
    same_with_and_without "
mkdir -p a/b/c; for i in \$(seq 1 100); do echo \"line \$i \$((i * i))\" > a/b/c/f\$i.txt; done
grep -rh 'line 4' a | sort | sed -e 's/line/LINE/' | head -5
find a -name 'f*.txt' | sort | xargs cat | wc -l"
}

@test "ls, sha256sum, od, diff (coreutils closing stdout and stderr at exit)" {
    same_with_and_without "
mkdir z; seq 1 1000 > z/one; seq 1 999 > z/two; ls -R z; sha256sum z/one; od -An -c z/two | head -2
diff z/one z/two; echo diff \$?"
}

@test "multithreaded C++ with new/delete and frees on other threads" {
    same_with_and_without "$PROGS/threads"
}

@test "a program whose stdout is a pipe and whose last bytes are still buffered" {
    same_with_and_without "$PROGS/pipe_tail 200000 | sha256sum; $PROGS/pipe_tail 3 | cat"
}

@test "a program that forks and execs" {
    same_with_and_without "$PROGS/forkexec"
}

@test "a program that dlopens a library" {
    same_with_and_without "$PROGS/dlopen_main $PROGS/libdlopen_lib.so"
}
