/* The policy parser: what a valid policy becomes, and the message each mistake gets. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../config/keys.h"
#include "../../config/options.h"
#include "../../config/policy.h"
#include "check.h"

static char said[8192];

static void collect(void *ctx, const char *line)
{
    (void)ctx;
    strncat(said, line, sizeof said - strlen(said) - 2);
    strcat(said, "\n");
}

static struct place_policy p;

static void parse(const char *text, const char *rules)
{
    said[0] = 0;
    place_policy_init(&p, collect, NULL);
    if (rules)
        place_policy_parse_inline(&p, "LIBPLACE_RULES", rules);
    if (text)
        place_policy_parse_text(&p, "t.ini", text);
    place_policy_finish(&p);
}

/* The text parses with exactly one error, and that error is `message`. */
static void one_error(const char *text, const char *message)
{
    parse(text, NULL);
    char expect[1024];
    snprintf(expect, sizeof expect, "%s\n", message);
    if (p.errors != 1 || strcmp(said, expect) != 0) {
        fprintf(stderr, "for:\n%s\nexpected: %sgot %u error(s):\n%s\n", text, expect, p.errors,
                said);
        check_failures++;
    }
}

static const char sketch[] = "; the sketch of DESIGN.md section 6\n"
                             "[libplace]\n"
                             "report = stderr\n"
                             "report_format = text\n"
                             "on_error = passthrough\n"
                             "\n"
                             "[tier hbw]\n"
                             "kind = hbw\n"
                             "policy = preferred           ; an inline comment\n"
                             "pagesize = 4K\n"
                             "limit = 12G\n"
                             "\n"
                             "[tier far]\n"
                             "kind = numa\n"
                             "nodes = 2-3\n"
                             "policy = interleave\n"
                             "\n"
                             "[rule big-arrays]\n"
                             "size = 1M..\n"
                             "site = *dgemm* | libsolver.so:* | solver+0x4a3f0\n"
                             "depth = 4\n"
                             "to = hbw, dram\n"
                             "on_full = fallback\n"
                             "\n"
                             "# a second rule, chains may name an undeclared kind\n"
                             "[rule staging]\n"
                             "size = 4K..64KiB\n"
                             "to = pinned, far\n"
                             "on_full = fail\n";

static void valid(void)
{
    parse(sketch, NULL);
    CHECK_EQ(p.errors, 0);
    CHECK(strcmp(said, "") == 0);
    CHECK(strcmp(p.report, "stderr") == 0);
    CHECK_EQ(p.on_error, PLACE_ON_ERROR_PASSTHROUGH);
    CHECK_EQ(p.ntiers, 4); /* dram, hbw, far, and pinned implied by a chain */
    CHECK(strcmp(p.tiers[1].name, "hbw") == 0 && p.tiers[1].kind == PLACE_HBW);
    CHECK_EQ(p.tiers[1].limit, 12ull << 30);
    CHECK_EQ(p.tiers[1].policy, PLACE_MPOL_PREFERRED);
    CHECK_EQ(p.tiers[2].kind, PLACE_NUMA);
    CHECK_EQ(p.tiers[2].nodes, 0xc);
    CHECK_EQ(p.tiers[2].policy, PLACE_MPOL_INTERLEAVE);
    CHECK(strcmp(p.tiers[3].name, "pinned") == 0 && !p.tiers[3].declared);
    CHECK_EQ(p.nrules, 2);
    struct place_rule_config *r = &p.rules[0];
    CHECK(strcmp(r->name, "big-arrays") == 0);
    CHECK_EQ(r->min, 1 << 20);
    CHECK(r->max == UINT64_MAX);
    CHECK_EQ(r->depth, 4);
    CHECK_EQ(r->nchain, 2);
    CHECK_EQ(r->chain[0], 1);
    CHECK_EQ(r->chain[1], 0);
    CHECK_EQ(r->patterns, 7);
    CHECK_EQ(p.npatterns, 3);
    CHECK(strcmp(p.patterns[0].function, "*dgemm*") == 0 && !*p.patterns[0].module);
    CHECK(strcmp(p.patterns[1].module, "libsolver.so") == 0 &&
          strcmp(p.patterns[1].function, "*") == 0);
    CHECK(p.patterns[2].exact && p.patterns[2].offset == 0x4a3f0 &&
          strcmp(p.patterns[2].module, "solver") == 0);
    r = &p.rules[1];
    CHECK_EQ(r->min, 4096);
    CHECK_EQ(r->max, 65536);
    CHECK_EQ(r->on_full, PLACE_FAIL);
    CHECK_EQ(r->chain[0], 3);
    CHECK_EQ(r->chain[1], 2);
    CHECK_EQ(r->patterns, 0);

    /* sizes in every unit, and windows open at either end */
    parse("[rule a]\nsize = ..512\nto = dram\n[rule b]\nsize = 2T..3t\nto = dram\n"
          "[rule c]\nsize = ..\nto=dram\n[rule d]\nsize = 10B..1KB\nto = dram\n",
          NULL);
    CHECK_EQ(p.errors, 0);
    CHECK_EQ(p.rules[0].min, 0);
    CHECK_EQ(p.rules[0].max, 512);
    CHECK_EQ(p.rules[1].min, 2ull << 40);
    CHECK_EQ(p.rules[1].max, 3ull << 40);
    CHECK(p.rules[2].min == 0 && p.rules[2].max == UINT64_MAX);
    CHECK(p.rules[3].min == 10 && p.rules[3].max == 1024);

    /* a byte-order mark, CRLF line ends and ':' as the separator, as libinih allows */
    parse("\xEF\xBB\xBF[rule a]\r\nsize: 1M..\r\nto = hbw\r\n", NULL);
    CHECK_EQ(p.errors, 0);
    CHECK_EQ(p.rules[0].min, 1 << 20);
}

/* numactl's node syntax: all, !LIST and +LIST are the nodes this process may use. */
static void numactl_nodes(void)
{
    parse("[tier a]\nkind = numa\nnodes = all\n[tier b]\nkind = numa\nnodes = +0\n"
          "[tier c]\nkind = numa\nnodes = 0,!1\n",
          NULL);
    CHECK_EQ(p.errors, 1u);
    uint64_t all = p.tiers[1].nodes;
    CHECK(all != 0);
    CHECK_EQ(p.tiers[2].nodes, all & -all);
    one_error("[tier a]\nkind = numa\nnodes = !\n",
              "t.ini:3: nodes = !: no nodes; expected node numbers from 0 to 63 and ranges, as 1 "
              "or 2-3 or 0,2-3, or all; !LIST for all but LIST, +LIST for nodes counted among "
              "those this process may use (numactl's syntax)");
    parse("[tier a]\nkind = numa\nnodes = !all\n", NULL);
    CHECK(strstr(said, "t.ini:3: nodes = !all: '!all' leaves none of the nodes this process may "
                       "use (") == said);
}

static void invalid(void)
{
    one_error("[rule a]\nsize = 1X..\nto = dram\n",
              "t.ini:2: size = 1X..: 'X' is not a size unit; expected a size such as 4096, 64K, "
              "1M or 2G");
    one_error("[rule a]\nsize = 1.5G..\nto = dram\n",
              "t.ini:2: size = 1.5G..: fractions are not accepted; expected a size such as 4096, "
              "64K, 1M or 2G (1536K, not 1.5M)");
    one_error("[rule a]\nsize = 99999999999999999999..\nto = dram\n",
              "t.ini:2: size = 99999999999999999999..: '99999999999999999999' is too large; "
              "expected a size of at most 9223372036854775807 (8E - 1 byte), such as 4096, 64K, "
              "1M or 2G");
    one_error("[rule a]\nsize = 64M..1M\nto = dram\n",
              "t.ini:2: size = 64M..1M: MIN is larger than MAX; expected MIN..MAX with MIN <= "
              "MAX");
    one_error("[rule a]\nsize = 1M\nto = dram\n",
              "t.ini:2: size = 1M: a single size is not a window; expected MIN..MAX with either "
              "end left out: '1M..' for 1M and above, '..1M' for up to 1M");
    one_error("[rule a]\nto = hbw, fast\n",
              "t.ini:2: to: no tier named 'fast'; expected a tier declared with [tier fast] or "
              "one of dram, hbw, pinned, managed, symmetric, deviceN");
    one_error("[rule a]\nto =\n",
              "t.ini:2: to = : an empty place in the chain; expected tier names separated by "
              "commas, as hbw, dram");
    one_error("[rule a]\nto = hbw,,dram\n",
              "t.ini:2: to = hbw,,dram: an empty place in the chain; expected tier names "
              "separated by commas, as hbw, dram");
    one_error("[rule a]\nto = hbw, hbw\n",
              "t.ini:2: to = hbw, hbw: 'hbw' is listed twice; expected each tier once");
    one_error("[rule a]\nsize = 1M..\n",
              "t.ini:1: rule a has no chain; expected to = TIER, TIER ...");
    one_error("[rules a]\n", "t.ini:1: [rules a]: not a section libplace knows; expected "
                             "[libplace], [tier NAME] or [rule NAME]");
    one_error("[rule a\nto = dram\n",
              "t.ini:1: [rule a: not a section header; expected [libplace], [tier NAME] or "
              "[rule NAME]");
    one_error("[rule a]\nto = dram\n[rule a]\nto = dram\n",
              "t.ini:3: a second rule named 'a'; expected each name once");
    one_error("[tier x]\nkind = hbw\n[tier x]\nkind = hbw\n",
              "t.ini:3: [tier x]: a second tier named 'x'; expected each name once");
    one_error("[rule 9a]\nto = dram\n",
              "t.ini:1: [rule 9a]: '9a' is not a name; expected a letter followed by letters, "
              "digits, '_' or '-', at most 31 characters");
    one_error("[rule a]\nto = dram\ncolour = red\n",
              "t.ini:3: colour = red: colour is not a key of [rule a]; expected one of api, "
              "size, site, depth, to, on_full, wait");
    one_error("[rule a]\nto = dram\nto = hbw\n",
              "t.ini:3: to = hbw: to is given twice in [rule a]; expected it once");
    one_error("[rule a]\nto = dram\nsite = *dgemm* || foo\n",
              "t.ini:3: site = *dgemm* || foo: an empty pattern; expected FUNCTION_GLOB, "
              "MODULE_GLOB:FUNCTION_GLOB or MODULE+0xOFFSET, as *dgemm*, libsolver.so*:* or "
              "solver+0x4a3f0");
    one_error("[rule a]\nto = dram\nsite = foo[ab\n",
              "t.ini:3: site = foo[ab: 'foo[ab' is not a site pattern; expected FUNCTION_GLOB, "
              "MODULE_GLOB:FUNCTION_GLOB or MODULE+0xOFFSET, as *dgemm*, libsolver.so*:* or "
              "solver+0x4a3f0");
    one_error("[rule a]\nto = dram\nsite = solver+0xZZ\n",
              "t.ini:3: site = solver+0xZZ: 'solver+0xZZ' is not MODULE+0xOFFSET; expected "
              "FUNCTION_GLOB, MODULE_GLOB:FUNCTION_GLOB or MODULE+0xOFFSET, as *dgemm*, "
              "libsolver.so*:* or solver+0x4a3f0");
    one_error("[rule a]\nto = dram\nsite = lib:\n",
              "t.ini:3: site = lib:: 'lib:' is not a site pattern; expected FUNCTION_GLOB, "
              "MODULE_GLOB:FUNCTION_GLOB or MODULE+0xOFFSET, as *dgemm*, libsolver.so*:* or "
              "solver+0x4a3f0");
    one_error("[rule a]\nto = dram\ndepth = 17\n",
              "t.ini:3: depth = 17: '17' is not a number from 1 to 16; expected one");
    one_error("[rule a]\nto = dram\non_full = spill\n",
              "t.ini:3: on_full = spill: 'spill' is not accepted here; expected fallback, wait, "
              "overflow or fail");
    one_error("[rule a]\nto = dram\napi = opencl\n",
              "t.ini:3: api = opencl: 'opencl' is not accepted here; expected malloc, cuda, any "
              "or shmem");
    one_error("size = 1M..\n", "t.ini:1: size = 1M..: a key outside any section; expected "
                               "[libplace], [tier NAME] or [rule NAME]");
    one_error("[rule a]\nto = dram\nsize 1M..\n",
              "t.ini:3: size 1M..: not a key = value line; expected key = value");
    one_error("[tier fast]\nlimit = 1G\n",
              "t.ini:1: [tier fast] has no kind; expected kind = dram, hbw, numa, pinned, "
              "managed, device or symmetric");
    one_error("[tier far]\nkind = numa\n",
              "t.ini:1: [tier far] has no nodes; expected nodes = LIST, as 1 or 2-3");
    one_error("[tier far]\nkind = numa\nnodes = 3-1\n",
              "t.ini:3: nodes = 3-1: '3-1' is not a node or range of nodes; expected node "
              "numbers from 0 to 63 and ranges, as 1 or 2-3 or 0,2-3, or all; !LIST for all "
              "but LIST, +LIST for nodes counted among those this process may use (numactl's "
              "syntax)");
    one_error("[tier pinned]\npagesize = 2M\n",
              "t.ini:2: pagesize: not a key of pinned tiers; expected it only on tiers of kind "
              "hbw");
    one_error("[tier dram]\nlimit = 1G\n",
              "t.ini:2: limit: the default dram tier is glibc's heap and takes no limit; expected "
              "a tier of your own, as [tier capped] kind = dram, limit = 2G");
    one_error("[tier c]\nkind = dram\nreclaim_min = 10\n",
              "t.ini:3: [tier c] has watermarks but no limit; expected limit = SIZE, as "
              "reclaim_min and reclaim_target are percentages of it");
    one_error("[tier c]\nkind = dram\nlimit = 1G\nreclaim_min = 20\nreclaim_target = 10\n",
              "t.ini:5: reclaim_target = 10 is below reclaim_min = 20; expected a target of at "
              "least 20 (percent of the limit to free once reclaim starts)");
    one_error("[rule r]\nto = dram\nwait = 2s\n",
              "t.ini:1: rule r has a wait timeout but on_full = fallback; expected on_full = "
              "wait, or no wait key");
    one_error("[rule r]\nto = dram\non_full = wait\nwait = 2\n",
              "t.ini:4: wait = 2: '2' has no unit of time; expected ms or s, as 500ms or 2s");
    one_error("[libplace]\nreport_format = xml\n",
              "t.ini:2: report_format = xml: 'xml' is not accepted here; expected text or json");
    one_error("[tier gpu]\nkind = device\n[rule a]\nto = gpu\n",
              "t.ini:4: to: gpu is GPU memory, which only CUDA calls can use; expected api = "
              "cuda or api = any for a chain with a device tier");
    one_error("[tier dram]\nkind = hbw\n",
              "t.ini:2: kind = hbw: dram is glibc's memory and keeps kind dram; expected kind = "
              "dram, or another name for a hbw tier");
    one_error("[libplace]\nreport = stdout\n",
              "t.ini:2: report = stdout: stdout is not offered, as the report would mix into the "
              "program's own output; expected stderr or a file path");
    one_error("[libplace]\non_error = abort\n[libplace]\n",
              "t.ini:3: [libplace]: a second [libplace] section; expected one");

    /* every error is reported, in order, and nothing stops at the first */
    parse("[rule a]\nsize = 1X..\nto = nowhere\ndepth = 0\n[bogus]\n", NULL);
    CHECK_EQ(p.errors, 4);
    CHECK(strstr(said, "t.ini:2:") < strstr(said, "t.ini:4:"));
    CHECK(strstr(said, "t.ini:5:") && strstr(said, "t.ini:3:"));

    /* a line too long for the parser is refused, not split */
    char longline[1200] = "[rule a]\nto = dram\nsite = ";
    memset(longline + strlen(longline), 'x', 1010);
    parse(longline, NULL);
    CHECK_EQ(p.errors, 1);
    CHECK(strstr(said, "t.ini:3: the line has 1017 characters; expected at most 1000") != NULL);
}

/* Sizes land in signed 64-bit byte counters and in the runtime query's long long: the
 * largest is INT64_MAX bytes, for every size-valued key and the environment's overrides,
 * and the message says so. */
static void size_limits(void)
{
    static const char too_large[] = "is too large; expected a size of at most "
                                    "9223372036854775807 (8E - 1 byte), such as 4096, 64K, 1M "
                                    "or 2G";
    char expect[512];
    snprintf(expect, sizeof expect, "t.ini:3: limit = 9000P: '9000P' %s", too_large);
    one_error("[tier c]\nkind = dram\nlimit = 9000P\n", expect);
    snprintf(expect, sizeof expect, "t.ini:3: limit = 16E: '16E' %s", too_large);
    one_error("[tier c]\nkind = dram\nlimit = 16E\n", expect);
    snprintf(expect, sizeof expect, "t.ini:3: limit = 8E: '8E' %s", too_large);
    one_error("[tier c]\nkind = dram\nlimit = 8E\n", expect);
    snprintf(expect, sizeof expect,
             "t.ini:3: limit = 9223372036854775808: '9223372036854775808' %s", too_large);
    one_error("[tier c]\nkind = dram\nlimit = 9223372036854775808\n", expect);
    snprintf(expect, sizeof expect, "t.ini:3: chunk_max = 8192P: '8192P' %s", too_large);
    one_error("[tier p]\nkind = pinned\nchunk_max = 8192P\n", expect);
    snprintf(expect, sizeof expect, "t.ini:3: chunk_initial = 8E: '8E' %s", too_large);
    one_error("[tier p]\nkind = pinned\nchunk_initial = 8E\n", expect);
    snprintf(expect, sizeof expect, "t.ini:2: size = 1M..9000P: '9000P' %s", too_large);
    one_error("[rule a]\nsize = 1M..9000P\nto = dram\n", expect);

    /* the largest: INT64_MAX bytes, in digits or as the largest of a unit */
    parse("[tier a]\nkind = dram\nlimit = 9223372036854775807\n[tier b]\nkind = dram\n"
          "limit = 7E\n[tier c]\nkind = dram\nlimit = 8191P\n",
          NULL);
    CHECK_EQ(p.errors, 0);
    CHECK(p.tiers[1].limit == (uint64_t)INT64_MAX);
    CHECK(p.tiers[2].limit == 7ull << 60);
    CHECK(p.tiers[3].limit == 8191ull << 50);

    /* the environment's override, as LIBPLACE_LIMIT_HBW gives it */
    said[0] = 0;
    place_policy_init(&p, collect, NULL);
    place_policy_set(&p, &(struct place_origin){"LIBPLACE_LIMIT_HBW=9000P", 0, false}, "hbw",
                     "limit", "9000P");
    snprintf(expect, sizeof expect, "LIBPLACE_LIMIT_HBW=9000P: '9000P' %s\n", too_large);
    CHECK_EQ(p.errors, 1);
    CHECK(strcmp(said, expect) == 0);
    CHECK(place_policy_tier(&p, "hbw", false)->limit == 0);
}

/* An empty value says what was expected, with examples: no blank where a value would be
 * quoted, for every key of every section. */
static void empty_values(void)
{
    one_error("[rule a]\nsize =\nto = dram\n",
              "t.ini:2: size = : no window; expected MIN..MAX with either end left out, as 1M.. "
              "for 1M and above, ..64K for up to 64K or 4K..64K");
    one_error("[tier c]\nkind = dram\nlimit =\n",
              "t.ini:3: limit = : no size; expected a size such as 4096, 64K, 1M or 2G");
    const struct place_key *tables[] = {place_libplace_keys, place_tier_keys, place_rule_keys};
    const char *headers[] = {"[libplace]", "[tier x]", "[rule x]"};
    for (int t = 0; t < 3; t++)
        for (int k = 0; tables[t][k].name; k++) {
            if (tables[t] == place_rule_keys && k == PLACE_RKEY_NAME)
                continue; /* inline rules only */
            char text[128];
            snprintf(text, sizeof text, "%s\n%s =\n", headers[t], tables[t][k].name);
            said[0] = 0;
            place_policy_init(&p, collect, NULL);
            place_policy_parse_text(&p, "t.ini", text);
            const char *why = strstr(said, " = : ");
            const char *expected = why ? strstr(why, "expected ") : NULL;
            if (p.errors != 1 || !expected || strstr(said, "''") || strstr(said + 5, "  ") ||
                strstr(said, " ,") || expected[9] == ' ' || expected[9] == '\n') {
                fprintf(stderr, "empty %s: %s", tables[t][k].name, said);
                check_failures++;
            }
        }
}

/* Writes text (n bytes) to a fresh file at path with the given mode. */
static void write_file(const char *path, const char *text, size_t n, mode_t mode)
{
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && write(fd, text, n) == (ssize_t)n);
    close(fd);
    CHECK(chmod(path, mode) == 0);
}

static void parse_file(const char *path)
{
    said[0] = 0;
    place_policy_init(&p, collect, NULL);
    place_policy_parse_file(&p, path);
    place_policy_finish(&p);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_config: opening a FIFO as the policy blocked\n";
    write(2, msg, sizeof msg - 1);
    _exit(1);
}

/* What a policy file must be: a regular text file, not empty; never waited on. */
static void policy_files(void)
{
    /* a FIFO: refused at once, not waited on for a writer */
    unlink("test_config.fifo");
    CHECK(mkfifo("test_config.fifo", 0600) == 0);
    signal(SIGALRM, on_alarm);
    alarm(10);
    parse_file("test_config.fifo");
    alarm(0);
    CHECK_EQ(p.errors, 1);
    CHECK(strcmp(said, "test_config.fifo: not a regular file (a FIFO); expected a policy file\n") ==
          0);
    unlink("test_config.fifo");
    parse_file(".");
    CHECK(strcmp(said, ".: not a regular file (a directory); expected a policy file\n") == 0);
    parse_file("/dev/null");
    CHECK(strcmp(said, "/dev/null: not a regular file (a character device); expected a policy "
                       "file\n") == 0);

    /* a NUL byte: the file and its line */
    write_file("test_config.ini", "[rule a]\nto = dram\nsize = 1M..\0\n", 31, 0600);
    parse_file("test_config.ini");
    CHECK_EQ(p.errors, 1);
    CHECK(strcmp(said, "test_config.ini:3: the line holds a NUL byte; expected a text file (a "
                       "policy file is text, as [rule NAME] and key = value lines)\n") == 0);
    /* /proc files say they are empty (st_size 0) and are not: read to the end */
    parse_file("/proc/self/environ");
    CHECK_EQ(p.errors, 1);
    CHECK(strncmp(said, "/proc/self/environ:", 19) == 0 &&
          strstr(said, ": the line holds a NUL byte"));
    parse_file("/proc/self/status");
    CHECK(strstr(said, "/proc/self/status:1: Name:") != NULL); /* its lines, read */

    /* empty: nothing, blank lines, comments */
    const char *empty[] = {"", "\n\n", "; a comment\n# another\n  \n"};
    for (int k = 0; k < 3; k++) {
        write_file("test_config.ini", empty[k], strlen(empty[k]), 0600);
        parse_file("test_config.ini");
        CHECK_EQ(p.errors, 1);
        CHECK(strcmp(said, "test_config.ini: the policy is empty; expected at least a [libplace], "
                           "[tier NAME] or [rule NAME] section\n") == 0);
    }
    /* a [libplace] section alone is a policy: a report of a run that places nothing */
    write_file("test_config.ini", "[libplace]\nreport = stderr\n", 27, 0600);
    parse_file("test_config.ini");
    CHECK_EQ(p.errors, 0);
    CHECK(strcmp(said, "") == 0);

    /* writable by others: a warning, not an error, and the policy is read */
    write_file("test_config.ini", "[rule a]\nto = dram\n", 19, 0666);
    parse_file("test_config.ini");
    CHECK_EQ(p.errors, 0);
    CHECK_EQ(p.nrules, 1);
    CHECK(strcmp(said, "test_config.ini: the policy file is writable by other users (mode 0666): "
                       "anyone could change what this program does; chmod o-w "
                       "test_config.ini\n") == 0);
    /* by its group only: no warning */
    CHECK(chmod("test_config.ini", 0664) == 0);
    parse_file("test_config.ini");
    CHECK(p.errors == 0 && strcmp(said, "") == 0);
    remove("test_config.ini");
}

static void inline_rules(void)
{
    parse(NULL, "size=1M.. to=hbw,dram; name=solver site=libsolver.so*:*|*dgemm* depth=2 to=dram;");
    CHECK_EQ(p.errors, 0);
    CHECK_EQ(p.nrules, 2);
    CHECK(strcmp(p.rules[0].name, "rules-1") == 0);
    CHECK(strcmp(p.rules[1].name, "solver") == 0);
    CHECK_EQ(p.rules[1].depth, 2);
    CHECK_EQ(p.rules[1].patterns, 3);

    /* inline rules come before the file's */
    parse("[rule file]\nto = dram\n", "to=hbw");
    CHECK(p.nrules == 2 && strcmp(p.rules[0].name, "rules-1") == 0);

    parse(NULL, "to=hbw; size=1Q.. to=dram");
    CHECK_EQ(p.errors, 1);
    CHECK(strcmp(said, "LIBPLACE_RULES rule 2: size = 1Q..: 'Q' is not a size unit; expected a "
                       "size such as 4096, 64K, 1M or 2G\n") == 0);
    parse(NULL, "to=hbw oops");
    CHECK(strcmp(said, "LIBPLACE_RULES rule 1: oops: not a key=value word; expected key=value, "
                       "as to=hbw\n") == 0);
}

/* The environment: the file, inline rules and overrides, through place_options_read. */
static void environment(void)
{
    FILE *f = fopen("test_config.ini", "w");
    fputs("[tier hbw]\nlimit = 1G\n[rule big]\nsize = 1M..\nto = hbw\n", f);
    fclose(f);
    char *env[] = {"LIBPLACE_POLICY=test_config.ini",
                   "LIBPLACE_LIMIT_HBW=8G",
                   "LIBPLACE_RULES=to=pinned",
                   "LIBPLACE_LIMIT_PINNED=64M",
                   "LIBPLACE_DRY_RUN=1",
                   "LIBPLACE_SITES=3",
                   NULL};
    place_options_read(env);
    CHECK_EQ(place_config.errors, 0);
    CHECK(!place_options.refuse && !place_options.untouched);
    struct place_tier_config *hbw = place_policy_tier(&place_config, "hbw", false);
    struct place_tier_config *pinned = place_policy_tier(&place_config, "pinned", false);
    CHECK(hbw && hbw->limit == 8ull << 30);
    CHECK(pinned && pinned->limit == 64ull << 20);
    CHECK(place_config.dry_run);
    CHECK_EQ(place_config.sites, 3);
    CHECK_EQ(place_config.nrules, 2);
    remove("test_config.ini");
}

int main(void)
{
    valid();
    invalid();
    numactl_nodes();
    size_limits();
    empty_values();
    policy_files();
    inline_rules();
    environment();
    return CHECK_DONE();
}
