#!/usr/bin/env bash
# The GPU machines lent through the `device` tool reach no package registry. This downloads, here,
# the Debian 12 packages rbmc builds against (and the libraries they need beyond a CUDA image's
# base system) into .debs/ (git-ignored, about 32 MB); bench/run_gpu_benchmarks.sh unpacks them
# into a private prefix there. Carry .debs with the call.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .debs
# .gitignore lists .debs; a checkout without .git/info gets one.
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qx '/.debs/' "$exclude" 2>/dev/null || echo '/.debs/' >>"$exclude"
# Everything these depend on, less what any Debian or Ubuntu base system already has.
base='^(libc6|libc-dev-bin|libc6-dev|libgcc-s1|libstdc\+\+6|gcc-12-base|debconf|dpkg|perl|perl-base|libcrypt1|libcrypt-dev|linux-libc-dev|libzstd1|zlib1g|libselinux1|tar|coreutils|install-info|sensible-utils|libdebconfclient0|mawk|awk|debconf-2.0|libnsl2|libnsl-dev|libtirpc3|libtirpc-dev|libtirpc-common|rpcsvc-proto|libgcc-12-dev|gcc-12|cpp-12|binutils.*|libbinutils|libctf.*|libgprofng0|libjansson4|libisl23|libmpc3|libmpfr6|libgmp10|libasan8|libatomic1|libcc1-0|libgomp1|libhwasan0|libitm1|liblsan0|libquadmath0|libtsan2|libubsan1|libstdc\+\+-12-dev|g\+\+-12|libperl5.36|perl-modules-5.36|libgdbm.*|libdb5.3|libbz2-1.0|liblzma5|libpcre2-8-0|libmd0|libaudit.*|libcap-ng0|libcap2|libpam.*|libsemanage.*|libsepol2|libacl1|libattr1)$'
packages=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
             --no-enhances libhdf5-dev libdeflate-dev libhwy-dev libtomlplusplus-dev libcli11-dev libeigen3-dev librandom123-dev libboost-dev \
             libgtest-dev libbenchmark-dev | grep '^\w' | sort -u | grep -v -E "$base")
(cd .debs && apt-get download $packages >/dev/null)
echo "fetched $(ls .debs | wc -l) packages, $(du -sh .debs | cut -f1), into .debs/"
