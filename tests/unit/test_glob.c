/* base/glob.h against fnmatch(3) in the C locale, which it stands in for, and the globs
 * it calls valid. */
#include <fnmatch.h>
#include <stdbool.h>

#include "../../policy/base/glob.h"
#include "check.h"

int main(void)
{
    static const char *const globs[] = {
        "*",     "",        "a",        "a*",    "*a",     "*a*",       "a?c",     "?",
        "[abc]", "[!abc]",  "[^abc]",   "[a-c]x", "[]]",   "[]a]*",     "[!]]",    "[a-]",
        "[",     "a[b",     "\\*",      "a\\",   "\\[x]",  "*dgemm*",   "_Znw*",   "g_*alloc*",
        "**a",   "*a*b*c*", "lib*.so*", "*/x",   "[\\]]",  "*[0-9].so", "a*a*a*b", "[z-a]",
    };
    static const char *const names[] = {
        "",      "a",         "abc",    "aXc",         "b",           "]",         "[",
        "a[b",   "*",         "a\\",    "[x]",         "cblas_dgemm", "_Znwm",     "g_malloc0",
        "aab",   "aXbYc",     "libm.so.6", "dir/x",    "d",           "libfoo2.so", "aaaaaaaaab",
        "-",     "ab-",       "x",
    };
    for (unsigned g = 0; g < sizeof globs / sizeof *globs; g++)
        for (unsigned n = 0; n < sizeof names / sizeof *names; n++) {
            bool ours = place_glob_match(globs[g], names[n]);
            bool theirs = fnmatch(globs[g], names[n], 0) == 0;
            if (ours != theirs)
                fprintf(stderr, "glob '%s' name '%s': %d, fnmatch %d\n", globs[g], names[n], ours,
                        theirs);
            CHECK(ours == theirs);
        }
    /* what the policy accepts: exactly the globs both read alike */
    static const char *const valid[] = {"*dgemm*", "[]]", "[!]]", "[a-c]x", "\\*", "[\\]]", "a[]b]"};
    static const char *const invalid[] = {"[", "a[b", "[!]", "[\\]", "a\\", "[[.a.]]", "[[=a=]]",
                                          "[[:alpha:]]"};
    for (unsigned k = 0; k < sizeof valid / sizeof *valid; k++)
        CHECK(place_glob_valid(valid[k]));
    for (unsigned k = 0; k < sizeof invalid / sizeof *invalid; k++)
        CHECK(!place_glob_valid(invalid[k]));
    /* literals: compared instead of matched (site/modules.c), so they must match only
     * themselves */
    static const char *const literal[] = {"sqlite3Malloc", "xmalloc", "a.b-c_d", ""};
    static const char *const special[] = {"*x", "x?", "[ab]", "a\\b", "g_malloc*"};
    for (unsigned k = 0; k < sizeof literal / sizeof *literal; k++) {
        CHECK(place_glob_literal(literal[k]) && place_glob_match(literal[k], literal[k]));
        CHECK(!place_glob_match(literal[k], "sqlite3MallocZero"));
    }
    for (unsigned k = 0; k < sizeof special / sizeof *special; k++)
        CHECK(!place_glob_literal(special[k]));
    return CHECK_DONE();
}
