# nfsfio on Debian 13 (perflab images --suite trixie): Debian 13's own fio package is built with libnfs,
# but its NFS engine, like Debian 12's, opens files without the job's sync= flag (containers/nfsfio/
# Dockerfile says why that matters), so fio is rebuilt here too, with the same one line added and
# `--enable-libnfs`, against Debian 13's libnfs: from Debian 13's fio source (3.39), or, where the
# package archive serves none (this project's machine: 404), from Debian 12's (3.33), which builds
# against Debian 13's libnfs as it is. The build fails if the line is not in place or the engine is
# missing.
FROM debian:trixie-slim AS build
RUN printf 'deb-src http://deb.debian.org/debian trixie main\ndeb-src http://deb.debian.org/debian bookworm main\n' \
      > /etc/apt/sources.list.d/src.list \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      dpkg-dev gcc make libc6-dev libnfs-dev zlib1g-dev pkg-config ca-certificates \
 && mkdir /src && cd /src \
 && { apt-get source --download-only fio || apt-get source --download-only fio/bookworm; } \
 && dpkg-source -x fio_*.dsc fio \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src/fio
RUN sed -i 's/^\(\tret = nfs_open(options->context, f->file_name, flags, \)/\tflags |= td->o.sync_io;\n\1/' engines/nfs.c \
 && grep -B1 'ret = nfs_open(options' engines/nfs.c | grep -q 'flags |= td->o.sync_io' \
 && ./configure --prefix=/usr/local --enable-libnfs --disable-native \
 && grep -q 'CONFIG_LIBNFS' config-host.h \
 && make -j2 fio && install -m 755 fio /usr/local/bin/fio

FROM debian:trixie-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libnfs14 zlib1g \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/bin/fio /usr/local/bin/fio
RUN fio --enghelp=nfs >/dev/null
WORKDIR /out
CMD ["fio", "--version"]
