# A Spack recipe for libplace. There is no release to download yet: build a checkout.
#
#   spack repo create ~/spack-libplace libplace     # it says where its packages/ folder is
#   mkdir PACKAGES/libplace && cp packaging/spack/package.py PACKAGES/libplace/
#   spack repo add ~/spack-libplace
#   spack env create -d env && spack -e env add libplace@0.1.0
#   spack -e env develop --path "$PWD" libplace@0.1.0 && spack -e env install

from spack.package import *

try:  # Spack 1.0 and later keep the build systems in the builtin repository
    from spack_repo.builtin.build_systems.meson import MesonPackage
except ImportError:  # before 1.0, spack.package gives them
    pass


class Libplace(MesonPackage):
    """Memory placement for unmodified programs through LD_PRELOAD: a policy file sends
    the malloc family's allocations (and, built with cuda.h, the CUDA driver's) to
    high-bandwidth memory, chosen NUMA nodes, pinned, managed or device memory, and a
    report at exit says where the memory went. placerun runs a program under it;
    place-report reads the reports."""

    license("MIT")

    version("0.1.0")

    variant("cuda", default=False,
            description="CUDA tiers: cuda.h's types only, libcuda.so.1 is loaded at run time")

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("meson@1.0:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("uthash", type="build")
    # linked
    depends_on("libinih")  # Spack's name for inih
    depends_on("libunwind")
    # their headers at build time; libplace dlopens them when a policy asks for an hbw or
    # a numa tier, so they are needed at run time as well
    depends_on("memkind")
    depends_on("numactl")
    depends_on("cuda", when="+cuda", type="build")
    # placerun and place-report
    depends_on("python@3.7:", type="run")

    def meson_args(self):
        # ~cuda leaves meson's default, /usr/local/cuda/include, which a machine may have
        if self.spec.satisfies("+cuda"):
            return [f"-Dcudaheaders={self.spec['cuda'].prefix.include}"]
        return []

    @run_after("install")
    def python_of_spack(self):
        # the scripts name Debian's /usr/bin/python3; here they run with Spack's
        tools = join_path(self.prefix.share, "libplace")
        filter_file(r"^#!/usr/bin/python3", f"#!{self.spec['python'].command.path}",
                    join_path(tools, "placerun"), join_path(tools, "place-report"))
