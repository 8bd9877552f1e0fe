/* The policy parser: what a valid policy becomes, and the message each mistake gets. Each
 * case is a row: its name, the policy (a text, inline rules, a file, the environment) and
 * what comes of it (the one error it gets, whole, or checks of what was parsed). */
#include <stdbool.h>
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

static void parse_file(const char *path)
{
    said[0] = 0;
    place_policy_init(&p, collect, NULL);
    place_policy_parse_file(&p, path);
    place_policy_finish(&p);
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

struct policy_case {
    const char *name;
    const char *text;   /* parsed as t.ini; with file, written there first */
    const char *rules;  /* LIBPLACE_RULES, read before the text */
    const char *file;   /* a policy file, parsed by its path */
    size_t length;      /* of the text written to file, when it holds a NUL */
    mode_t mode;        /* of the file written (0600 if 0) */
    char **env;         /* read by place_options_read instead, into place_config */
    const char *error;  /* the one error, whole */
    void (*then)(void); /* checks of what was parsed and said */
};

static void check_cases(const struct policy_case *cases, size_t n)
{
    for (const struct policy_case *c = cases; c < cases + n; c++) {
        check_case = c->name;
        bool written = c->file && c->text;
        if (written)
            write_file(c->file, c->text, c->length ? c->length : strlen(c->text),
                       c->mode ? c->mode : 0600);
        if (c->env)
            place_options_read(c->env);
        else if (c->file)
            parse_file(c->file);
        else
            parse(c->text, c->rules);
        if (c->error) {
            char expect[1024];
            snprintf(expect, sizeof expect, "%s\n", c->error);
            CHECK_EQ(p.errors, 1);
            CHECK_STR(said, expect);
        }
        CHECK(c->error || c->then); /* a row that expects nothing tests nothing */
        if (c->then)
            c->then();
        if (written)
            remove(c->file);
    }
    check_case = NULL;
}

#define CHECK_CASES(cases) check_cases(cases, sizeof cases / sizeof *cases)

static void nothing_said(void)
{
    CHECK_EQ(p.errors, 0);
    CHECK(strcmp(said, "") == 0);
}

static void hbw_weights(void)
{
    nothing_said();
    CHECK_EQ(p.tiers[1].policy, PLACE_MPOL_WEIGHTED);
    CHECK_EQ(p.tiers[1].weights[2], 3);
    CHECK_EQ(p.tiers[1].weights[3], 1);
    CHECK_EQ(p.tiers[1].weights[0], 0);
}

static void hbw_near(void)
{
    nothing_said();
    CHECK_EQ(p.tiers[1].near, PLACE_NEAR_CPU);
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

static void sketch_parsed(void)
{
    nothing_said();
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
}

static void windows_parsed(void)
{
    CHECK_EQ(p.errors, 0);
    CHECK_EQ(p.rules[0].min, 0);
    CHECK_EQ(p.rules[0].max, 512);
    CHECK_EQ(p.rules[1].min, 2ull << 40);
    CHECK_EQ(p.rules[1].max, 3ull << 40);
    CHECK(p.rules[2].min == 0 && p.rules[2].max == UINT64_MAX);
    CHECK(p.rules[3].min == 10 && p.rules[3].max == 1024);
}

static void one_mebibyte_up(void)
{
    CHECK_EQ(p.errors, 0);
    CHECK_EQ(p.rules[0].min, 1 << 20);
}

static const struct policy_case valid[] = {
    {"the sketch of DESIGN.md section 6", sketch, .then = sketch_parsed},
    {"sizes in every unit, and windows open at either end",
     "[rule a]\nsize = ..512\nto = dram\n[rule b]\nsize = 2T..3t\nto = dram\n"
     "[rule c]\nsize = ..\nto=dram\n[rule d]\nsize = 10B..1KB\nto = dram\n",
     .then = windows_parsed},
    {"a byte-order mark, CRLF line ends and ':' as the separator, as libinih allows",
     "\xEF\xBB\xBF[rule a]\r\nsize: 1M..\r\nto = hbw\r\n", .then = one_mebibyte_up},
};

/* numactl's node syntax: all, !LIST and +LIST are the nodes this process may use. */
static void nodes_parsed(void)
{
    CHECK_EQ(p.errors, 1u);
    uint64_t all = p.tiers[1].nodes;
    CHECK(all != 0);
    CHECK_EQ(p.tiers[2].nodes, all & -all);
}

static void none_left(void)
{
    CHECK(strstr(said, "t.ini:3: nodes = !all: '!all' leaves none of the nodes this process may "
                       "use (") == said);
}

static const struct policy_case numactl_nodes[] = {
    {"all; +0, the first node this process may use; 0,!1, where '!' cannot be",
     "[tier a]\nkind = numa\nnodes = all\n[tier b]\nkind = numa\nnodes = +0\n"
     "[tier c]\nkind = numa\nnodes = 0,!1\n",
     .then = nodes_parsed},
    {"'!' alone: no nodes", "[tier a]\nkind = numa\nnodes = !\n",
     .error = "t.ini:3: nodes = !: no nodes; expected node numbers from 0 to 63 and ranges, as 1 "
              "or 2-3 or 0,2-3, or all; !LIST for all but LIST, +LIST for nodes counted among "
              "those this process may use (numactl's syntax)"},
    {"'!all': none left", "[tier a]\nkind = numa\nnodes = !all\n", .then = none_left},
};

/* every error is reported, in order, and nothing stops at the first */
static void all_errors(void)
{
    CHECK_EQ(p.errors, 4);
    CHECK(strstr(said, "t.ini:2:") < strstr(said, "t.ini:4:"));
    CHECK(strstr(said, "t.ini:5:") && strstr(said, "t.ini:3:"));
}

static const struct policy_case invalid[] = {
    {"a size unit libplace does not know", "[rule a]\nsize = 1X..\nto = dram\n",
     .error = "t.ini:2: size = 1X..: 'X' is not a size unit; expected a size such as 4096, 64K, "
              "1M or 2G"},
    {"a fraction of a unit", "[rule a]\nsize = 1.5G..\nto = dram\n",
     .error = "t.ini:2: size = 1.5G..: fractions are not accepted; expected a size such as 4096, "
              "64K, 1M or 2G (1536K, not 1.5M)"},
    {"a size beyond 64 bits", "[rule a]\nsize = 99999999999999999999..\nto = dram\n",
     .error = "t.ini:2: size = 99999999999999999999..: '99999999999999999999' is too large; "
              "expected a size of at most 9223372036854775807 (8E - 1 byte), such as 4096, 64K, "
              "1M or 2G"},
    {"a window whose MIN is above its MAX", "[rule a]\nsize = 64M..1M\nto = dram\n",
     .error = "t.ini:2: size = 64M..1M: MIN is larger than MAX; expected MIN..MAX with MIN <= "
              "MAX"},
    {"a single size where a window goes", "[rule a]\nsize = 1M\nto = dram\n",
     .error = "t.ini:2: size = 1M: a single size is not a window; expected MIN..MAX with either "
              "end left out: '1M..' for 1M and above, '..1M' for up to 1M"},
    {"a chain through a tier nobody declared", "[rule a]\nto = hbw, fast\n",
     .error = "t.ini:2: to: no tier named 'fast'; expected a tier declared with [tier fast] or "
              "one of dram, hbw, pinned, managed, symmetric, deviceN"},
    {"an empty chain", "[rule a]\nto =\n",
     .error = "t.ini:2: to = : an empty place in the chain; expected tier names separated by "
              "commas, as hbw, dram"},
    {"an empty place in a chain", "[rule a]\nto = hbw,,dram\n",
     .error = "t.ini:2: to = hbw,,dram: an empty place in the chain; expected tier names "
              "separated by commas, as hbw, dram"},
    {"a tier twice in one chain", "[rule a]\nto = hbw, hbw\n",
     .error = "t.ini:2: to = hbw, hbw: 'hbw' is listed twice; expected each tier once"},
    {"a rule without a chain", "[rule a]\nsize = 1M..\n",
     .error = "t.ini:1: rule a has no chain; expected to = TIER, TIER ..."},
    {"a section libplace does not know", "[rules a]\n",
     .error = "t.ini:1: [rules a]: not a section libplace knows; expected "
              "[libplace], [tier NAME] or [rule NAME]"},
    {"a section header of three words", "[rule a b]\nto = dram\n",
     .error = "t.ini:1: [rule a b]: not a section libplace knows; expected "
              "[libplace], [tier NAME] or [rule NAME]"},
    {"a rule name past 63 characters",
     "[ rule   a123456789b123456789c123456789d123456789e123456789f123456789 ]\n",
     .error = "t.ini:1: [ rule   a123456789b123456789c123456789d123456789e123456789f123456789 ]: "
              "'a123456789b123456789c123456789d123456789e123456789f123456789' is not a name; "
              "expected a letter followed by letters, digits, '_' or '-', at most 31 characters"},
    {"a section header without its ']'", "[rule a\nto = dram\n",
     .error = "t.ini:1: [rule a: not a section header; expected [libplace], [tier NAME] or "
              "[rule NAME]"},
    {"two rules of one name", "[rule a]\nto = dram\n[rule a]\nto = dram\n",
     .error = "t.ini:3: a second rule named 'a'; expected each name once"},
    {"two tiers of one name", "[tier x]\nkind = hbw\n[tier x]\nkind = hbw\n",
     .error = "t.ini:3: [tier x]: a second tier named 'x'; expected each name once"},
    {"a name that starts with a digit", "[rule 9a]\nto = dram\n",
     .error = "t.ini:1: [rule 9a]: '9a' is not a name; expected a letter followed by letters, "
              "digits, '_' or '-', at most 31 characters"},
    {"a key rules do not have", "[rule a]\nto = dram\ncolour = red\n",
     .error = "t.ini:3: colour = red: colour is not a key of [rule a]; expected one of api, "
              "size, site, depth, to, on_full, wait"},
    {"a key given twice", "[rule a]\nto = dram\nto = hbw\n",
     .error = "t.ini:3: to = hbw: to is given twice in [rule a]; expected it once"},
    {"an empty site pattern between two '|'", "[rule a]\nto = dram\nsite = *dgemm* || foo\n",
     .error = "t.ini:3: site = *dgemm* || foo: an empty pattern; expected FUNCTION_GLOB, "
              "MODULE_GLOB:FUNCTION_GLOB or MODULE+0xOFFSET, as *dgemm*, libsolver.so*:* or "
              "solver+0x4a3f0"},
    {"a site glob with an open '['", "[rule a]\nto = dram\nsite = foo[ab\n",
     .error = "t.ini:3: site = foo[ab: 'foo[ab' is not a site pattern; expected FUNCTION_GLOB, "
              "MODULE_GLOB:FUNCTION_GLOB or MODULE+0xOFFSET, as *dgemm*, libsolver.so*:* or "
              "solver+0x4a3f0"},
    {"an offset that is not hexadecimal", "[rule a]\nto = dram\nsite = solver+0xZZ\n",
     .error = "t.ini:3: site = solver+0xZZ: 'solver+0xZZ' is not MODULE+0xOFFSET; expected "
              "FUNCTION_GLOB, MODULE_GLOB:FUNCTION_GLOB or MODULE+0xOFFSET, as *dgemm*, "
              "libsolver.so*:* or solver+0x4a3f0"},
    {"a module without a function", "[rule a]\nto = dram\nsite = lib:\n",
     .error = "t.ini:3: site = lib:: 'lib:' is not a site pattern; expected FUNCTION_GLOB, "
              "MODULE_GLOB:FUNCTION_GLOB or MODULE+0xOFFSET, as *dgemm*, libsolver.so*:* or "
              "solver+0x4a3f0"},
    {"a depth beyond 16", "[rule a]\nto = dram\ndepth = 17\n",
     .error = "t.ini:3: depth = 17: '17' is not a number from 1 to 16; expected one"},
    {"an on_full libplace does not know", "[rule a]\nto = dram\non_full = spill\n",
     .error = "t.ini:3: on_full = spill: 'spill' is not accepted here; expected fallback, wait, "
              "overflow or fail"},
    {"an api libplace does not know", "[rule a]\nto = dram\napi = opencl\n",
     .error = "t.ini:3: api = opencl: 'opencl' is not accepted here; expected malloc, cuda, any "
              "or shmem"},
    {"a key outside any section", "size = 1M..\n",
     .error = "t.ini:1: size = 1M..: a key outside any section; expected "
              "[libplace], [tier NAME] or [rule NAME]"},
    {"a line without '='", "[rule a]\nto = dram\nsize 1M..\n",
     .error = "t.ini:3: size 1M..: not a key = value line; expected key = value"},
    {"a tier without a kind", "[tier fast]\nlimit = 1G\n",
     .error = "t.ini:1: [tier fast] has no kind; expected kind = dram, hbw, numa, pinned, "
              "managed, device or symmetric"},
    {"a numa tier without nodes", "[tier far]\nkind = numa\n",
     .error = "t.ini:1: [tier far] has no nodes; expected nodes = LIST, as 1 or 2-3"},
    {"a range of nodes running backwards", "[tier far]\nkind = numa\nnodes = 3-1\n",
     .error = "t.ini:3: nodes = 3-1: '3-1' is not a node or range of nodes; expected node "
              "numbers from 0 to 63 and ranges, as 1 or 2-3 or 0,2-3, or all; !LIST for all "
              "but LIST, +LIST for nodes counted among those this process may use (numactl's "
              "syntax)"},
    {"a key of another kind's tiers", "[tier pinned]\npagesize = 2M\n",
     .error = "t.ini:2: pagesize: not a key of pinned tiers; expected it only on tiers of kind "
              "hbw"},
    {"a limit on the default dram tier", "[tier dram]\nlimit = 1G\n",
     .error = "t.ini:2: limit: the default dram tier is glibc's heap and takes no limit; expected "
              "a tier of your own, as [tier capped] kind = dram, limit = 2G"},
    {"watermarks without a limit", "[tier c]\nkind = dram\nreclaim_min = 10\n",
     .error = "t.ini:3: [tier c] has watermarks but no limit; expected limit = SIZE, as "
              "reclaim_min and reclaim_target are percentages of it"},
    {"weights without weighted_interleave",
     "[tier far]\nkind = numa\nnodes = 0-1\nweights = 0:3,1:1\n",
     .error = "t.ini:4: weights: only policy = weighted_interleave weighs nodes; expected "
              "policy = weighted_interleave too"},
    {"weighted_interleave without weights",
     "[tier far]\nkind = numa\nnodes = 0-1\npolicy = weighted_interleave\n",
     .error = "t.ini:4: policy = weighted_interleave has no weights; expected weights = "
              "NODE:WEIGHT,..., as 0:3,1:1, or weights = bandwidth"},
    {"weights of other nodes than the tier's",
     "[tier far]\nkind = numa\nnodes = 0-1\npolicy = weighted_interleave\nweights = 0:3,2:1\n",
     .error = "t.ini:5: weights: they must name exactly the tier's nodes; expected a NODE:WEIGHT "
              "for each node of nodes = and no other"},
    {"a weight out of range",
     "[tier far]\nkind = numa\nnodes = 0\npolicy = weighted_interleave\nweights = 0:256\n",
     .error = "t.ini:5: weights = 0:256: '0:256' is not NODE:WEIGHT; expected NODE:WEIGHT pairs, "
              "as 0:3,1:1 (nodes 0 to 63, weights 1 to 255), or bandwidth"},
    {"weighted_interleave on an hbw tier, no weights",
     "[tier fast]\nkind = hbw\npolicy = weighted_interleave\n",
     .error = "t.ini:3: policy = weighted_interleave has no weights; expected weights = "
              "NODE:WEIGHT,..., as 0:3,1:1, or weights = bandwidth"},
    {"weighted_interleave on an hbw tier",
     "[tier fast]\nkind = hbw\npolicy = weighted_interleave\n"
     "weights = 2:3,3:1\n",
     .then = hbw_weights},
    {"near = cpu with interleave", "[tier fast]\nkind = hbw\npolicy = interleave\nnear = cpu\n",
     .error = "t.ini:4: near = cpu: it picks one node per thread; expected policy = bind or "
              "preferred with it"},
    {"near = cpu with 2M pages", "[tier fast]\nkind = hbw\npagesize = 2M\nnear = cpu\n",
     .error = "t.ini:4: near = cpu: 2M pages are reserved for the whole range at start, before "
              "the nodes' parts are known; expected pagesize = 4K or THP with it"},
    {"near on a dram tier", "[tier far]\nkind = dram\nnear = cpu\n",
     .error = "t.ini:3: near: not a key of dram tiers; expected it only on tiers of kind hbw or "
              "numa"},
    {"near = cpu", "[tier fast]\nkind = hbw\npolicy = bind\nnear = cpu\n", .then = hbw_near},
    {"a near libplace does not know", "[tier fast]\nkind = hbw\nnear = socket\n",
     .error = "t.ini:3: near = socket: 'socket' is not accepted here; expected first or cpu"},
    {"a node's scope without a limit", "[tier c]\nkind = dram\nscope = node\n",
     .error = "t.ini:3: [tier c] has scope = node but no limit; expected limit = SIZE, the "
              "limit the machine's processes share"},
    {"a scope libplace does not know", "[tier c]\nkind = dram\nlimit = 1G\nscope = host\n",
     .error = "t.ini:4: scope = host: 'host' is not accepted here; expected process or node"},
    {"a node's scope on the default dram tier", "[tier dram]\nscope = node\n",
     .error = "t.ini:2: scope: the default dram tier is glibc's heap and takes no limit; expected "
              "a tier of your own, as [tier capped] kind = dram, limit = 2G"},
    {"reclaim_target below reclaim_min",
     "[tier c]\nkind = dram\nlimit = 1G\nreclaim_min = 20\nreclaim_target = 10\n",
     .error = "t.ini:5: reclaim_target = 10 is below reclaim_min = 20; expected a target of at "
              "least 20 (percent of the limit to free once reclaim starts)"},
    {"a wait timeout without on_full = wait", "[rule r]\nto = dram\nwait = 2s\n",
     .error = "t.ini:1: rule r has a wait timeout but on_full = fallback; expected on_full = "
              "wait, or no wait key"},
    {"a wait without a unit of time", "[rule r]\nto = dram\non_full = wait\nwait = 2\n",
     .error = "t.ini:4: wait = 2: '2' has no unit of time; expected ms or s, as 500ms or 2s"},
    {"a report format libplace does not know", "[libplace]\nreport_format = xml\n",
     .error = "t.ini:2: report_format = xml: 'xml' is not accepted here; expected text or json"},
    {"GPU memory in a chain of malloc's", "[tier gpu]\nkind = device\n[rule a]\nto = gpu\n",
     .error = "t.ini:4: to: gpu is GPU memory, which only CUDA calls can use; expected api = "
              "cuda or api = any for a chain with a device tier"},
    {"the default dram tier made another kind", "[tier dram]\nkind = hbw\n",
     .error = "t.ini:2: kind = hbw: dram is glibc's memory and keeps kind dram; expected kind = "
              "dram, or another name for a hbw tier"},
    {"the report on stdout", "[libplace]\nreport = stdout\n",
     .error = "t.ini:2: report = stdout: stdout is not offered, as the report would mix into the "
              "program's own output; expected stderr or a file path"},
    {"two [libplace] sections", "[libplace]\non_error = abort\n[libplace]\n",
     .error = "t.ini:3: [libplace]: a second [libplace] section; expected one"},
    {"four mistakes, each reported, in order",
     "[rule a]\nsize = 1X..\nto = nowhere\ndepth = 0\n[bogus]\n", .then = all_errors},
};

/* a line too long for the parser is refused, not split */
static void long_line(void)
{
    char longline[1200] = "[rule a]\nto = dram\nsite = ";
    memset(longline + strlen(longline), 'x', 1010);
    parse(longline, NULL);
    CHECK_EQ(p.errors, 1);
    CHECK(strstr(said, "t.ini:3: the line has 1017 characters; expected at most 1000") != NULL);
}

/* Sizes land in signed 64-bit byte counters and in the runtime query's long long: the
 * largest is INT64_MAX bytes, for every size-valued key and the environment's overrides,
 * and the message says so. */
#define TOO_LARGE                                                                                  \
    "is too large; expected a size of at most 9223372036854775807 (8E - 1 byte), such as 4096, "   \
    "64K, 1M or 2G"

static void largest_parsed(void)
{
    CHECK_EQ(p.errors, 0);
    CHECK(p.tiers[1].limit == (uint64_t)INT64_MAX);
    CHECK(p.tiers[2].limit == 7ull << 60);
    CHECK(p.tiers[3].limit == 8191ull << 50);
}

static const struct policy_case size_limits[] = {
    {"a limit in P beyond 8E - 1 byte", "[tier c]\nkind = dram\nlimit = 9000P\n",
     .error = "t.ini:3: limit = 9000P: '9000P' " TOO_LARGE},
    {"a limit of 16E", "[tier c]\nkind = dram\nlimit = 16E\n",
     .error = "t.ini:3: limit = 16E: '16E' " TOO_LARGE},
    {"a limit of 8E", "[tier c]\nkind = dram\nlimit = 8E\n",
     .error = "t.ini:3: limit = 8E: '8E' " TOO_LARGE},
    {"a limit of 2^63 bytes in digits", "[tier c]\nkind = dram\nlimit = 9223372036854775808\n",
     .error = "t.ini:3: limit = 9223372036854775808: '9223372036854775808' " TOO_LARGE},
    {"a chunk_max beyond 8E - 1 byte", "[tier p]\nkind = pinned\nchunk_max = 8192P\n",
     .error = "t.ini:3: chunk_max = 8192P: '8192P' " TOO_LARGE},
    {"a chunk_initial of 8E", "[tier p]\nkind = pinned\nchunk_initial = 8E\n",
     .error = "t.ini:3: chunk_initial = 8E: '8E' " TOO_LARGE},
    {"a window's MAX beyond 8E - 1 byte", "[rule a]\nsize = 1M..9000P\nto = dram\n",
     .error = "t.ini:2: size = 1M..9000P: '9000P' " TOO_LARGE},
    {"the largest: INT64_MAX bytes, in digits or as the largest of a unit",
     "[tier a]\nkind = dram\nlimit = 9223372036854775807\n[tier b]\nkind = dram\n"
     "limit = 7E\n[tier c]\nkind = dram\nlimit = 8191P\n",
     .then = largest_parsed},
};

/* the environment's override, as LIBPLACE_LIMIT_HBW gives it */
static void limit_override(void)
{
    said[0] = 0;
    place_policy_init(&p, collect, NULL);
    place_policy_set(&p, &(struct place_origin){"LIBPLACE_LIMIT_HBW=9000P", 0, false}, "hbw",
                     "limit", "9000P");
    CHECK_EQ(p.errors, 1);
    CHECK(strcmp(said, "LIBPLACE_LIMIT_HBW=9000P: '9000P' " TOO_LARGE "\n") == 0);
    CHECK(place_policy_tier(&p, "hbw", false)->limit == 0);
}

/* An empty value says what was expected, with examples: no blank where a value would be
 * quoted, for every key of every section. */
static const struct policy_case empty_values[] = {
    {"an empty size window", "[rule a]\nsize =\nto = dram\n",
     .error = "t.ini:2: size = : no window; expected MIN..MAX with either end left out, as 1M.. "
              "for 1M and above, ..64K for up to 64K or 4K..64K"},
    {"an empty limit", "[tier c]\nkind = dram\nlimit =\n",
     .error = "t.ini:3: limit = : no size; expected a size such as 4096, 64K, 1M or 2G"},
};

static void every_key_empty(void)
{
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

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_config: opening a FIFO as the policy blocked\n";
    write(2, msg, sizeof msg - 1);
    _exit(1);
}

/* a FIFO: refused at once, not waited on for a writer */
static void fifo(void)
{
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
}

/* /proc files say they are empty (st_size 0) and are not: read to the end */
static void environ_read(void)
{
    CHECK_EQ(p.errors, 1);
    CHECK(strncmp(said, "/proc/self/environ:", 19) == 0 &&
          strstr(said, ": the line holds a NUL byte"));
}

static void status_read(void)
{
    CHECK(strstr(said, "/proc/self/status:1: Name:") != NULL); /* its lines, read */
}

static void others_may_write(void)
{
    CHECK_EQ(p.errors, 0);
    CHECK_EQ(p.nrules, 1);
    CHECK(strcmp(said, "test_config.ini: the policy file is writable by other users (mode 0666): "
                       "anyone could change what this program does; chmod o-w "
                       "test_config.ini\n") == 0);
}

static const char empty_policy[] = "test_config.ini: the policy is empty; expected at least a "
                                   "[libplace], [tier NAME] or [rule NAME] section";

/* What a policy file must be: a regular text file, not empty; never waited on. */
static const struct policy_case policy_files[] = {
    {"a directory", .file = ".",
     .error = ".: not a regular file (a directory); expected a policy file"},
    {"a character device", .file = "/dev/null",
     .error = "/dev/null: not a regular file (a character device); expected a policy file"},
    {"a NUL byte: the file and its line", "[rule a]\nto = dram\nsize = 1M..\0\n",
     .file = "test_config.ini", .length = 31,
     .error = "test_config.ini:3: the line holds a NUL byte; expected a text file (a policy file "
              "is text, as [rule NAME] and key = value lines)"},
    {"/proc/self/environ, of size 0 and NUL bytes", .file = "/proc/self/environ",
     .then = environ_read},
    {"/proc/self/status, of size 0 and text", .file = "/proc/self/status", .then = status_read},
    {"an empty file", "", .file = "test_config.ini", .error = empty_policy},
    {"blank lines only", "\n\n", .file = "test_config.ini", .error = empty_policy},
    {"comments only", "; a comment\n# another\n  \n", .file = "test_config.ini",
     .error = empty_policy},
    {"a [libplace] section alone: a report of a run that places nothing",
     "[libplace]\nreport = stderr\n", .file = "test_config.ini", .then = nothing_said},
    {"writable by others: a warning, not an error, and the policy is read", "[rule a]\nto = dram\n",
     .file = "test_config.ini", .mode = 0666, .then = others_may_write},
    {"writable by its group only: no warning", "[rule a]\nto = dram\n", .file = "test_config.ini",
     .mode = 0664, .then = nothing_said},
};

static void two_inline_rules(void)
{
    CHECK_EQ(p.errors, 0);
    CHECK_EQ(p.nrules, 2);
    CHECK(strcmp(p.rules[0].name, "rules-1") == 0);
    CHECK(strcmp(p.rules[1].name, "solver") == 0);
    CHECK_EQ(p.rules[1].depth, 2);
    CHECK_EQ(p.rules[1].patterns, 3);
}

static void inline_first(void)
{
    CHECK(p.nrules == 2 && strcmp(p.rules[0].name, "rules-1") == 0);
}

static const struct policy_case inline_rules[] = {
    {"inline rules, numbered or named",
     .rules = "size=1M.. to=hbw,dram; name=solver site=libsolver.so*:*|*dgemm* depth=2 to=dram;",
     .then = two_inline_rules},
    {"inline rules come before the file's", "[rule file]\nto = dram\n", .rules = "to=hbw",
     .then = inline_first},
    {"a mistake in an inline rule, by the rule's number", .rules = "to=hbw; size=1Q.. to=dram",
     .error = "LIBPLACE_RULES rule 2: size = 1Q..: 'Q' is not a size unit; expected a size such "
              "as 4096, 64K, 1M or 2G"},
    {"a word that is not key=value", .rules = "to=hbw oops",
     .error = "LIBPLACE_RULES rule 1: oops: not a key=value word; expected key=value, as to=hbw"},
};

static void environment_read(void)
{
    CHECK_EQ(place_config.errors, 0);
    CHECK(!place_options.refuse && !place_options.untouched);
    struct place_tier_config *hbw = place_policy_tier(&place_config, "hbw", false);
    struct place_tier_config *pinned = place_policy_tier(&place_config, "pinned", false);
    CHECK(hbw && hbw->limit == 8ull << 30);
    CHECK(pinned && pinned->limit == 64ull << 20);
    CHECK(place_config.dry_run);
    CHECK_EQ(place_config.sites, 3);
    CHECK_EQ(place_config.nrules, 2);
}

/* The environment: the file, inline rules and overrides, through place_options_read. */
static const struct policy_case environment[] = {
    {"a file, inline rules and overrides",
     "[tier hbw]\nlimit = 1G\n[rule big]\nsize = 1M..\nto = hbw\n", .file = "test_config.ini",
     .env = (char *[]){"LIBPLACE_POLICY=test_config.ini", "LIBPLACE_LIMIT_HBW=8G",
                       "LIBPLACE_RULES=to=pinned", "LIBPLACE_LIMIT_PINNED=64M",
                       "LIBPLACE_DRY_RUN=1", "LIBPLACE_SITES=3", NULL},
     .then = environment_read},
};

int main(void)
{
    CHECK_CASES(valid);
    CHECK_CASES(invalid);
    long_line();
    CHECK_CASES(numactl_nodes);
    CHECK_CASES(size_limits);
    limit_override();
    CHECK_CASES(empty_values);
    every_key_empty();
    fifo();
    CHECK_CASES(policy_files);
    CHECK_CASES(inline_rules);
    CHECK_CASES(environment);
    return CHECK_DONE();
}
