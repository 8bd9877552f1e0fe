"""libplace_tools: what placerun and place-report share, and what each of them does.

Python 3 standard library only. The two scripts in scripts/ are thin mains over it:

    units        byte counts as text, exactly as libplace's C place_size_str writes them;
                 sizes as a policy writes them
    probe        the machine: NUMA nodes, HBW nodes, memkind's and the CUDA driver's answers
    policy       libplace's own check of a policy (LIBPLACE_CHECK=json) and what it says
    fit          a policy against this machine: placerun --check's and --tiers' warnings
    placerun     placerun's command line: run a program under libplace, --check, --tiers
    report       reading libplace's JSON reports, and the helpers their outputs share
    render, merge, compare, plot, advise
                 place-report's subcommands
    advise_policy
                 advise's site patterns and the policy it writes
    place_report place-report's command line

policy.schema.json describes the JSON of LIBPLACE_CHECK=json (docs/report.schema.json,
the report's).
"""

# meson.build's project version; tests/bats/install.bats holds them equal
VERSION = "0.1.0"
