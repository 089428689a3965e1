# nfsfio on Debian 13 (perflab images --suite trixie): Debian 13's own fio package is built with
# libnfs (it depends on libnfs14), so ioengine=nfs needs no rebuild there; on Debian 12 it does
# (containers/nfsfio/Dockerfile). The last step fails the build if the engine is missing.
FROM debian:trixie-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends fio \
 && rm -rf /var/lib/apt/lists/*
RUN fio --enghelp=nfs >/dev/null
WORKDIR /out
CMD ["fio", "--version"]
