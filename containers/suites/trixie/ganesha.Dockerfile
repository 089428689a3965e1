# The bad-cable lab's NFS server on Debian 13 (perflab images --suite trixie): containers/ganesha/
# (its context) with one change. NFS-Ganesha 6 asks the kernel to mark it an I/O flusher
# (PR_SET_IO_FLUSHER), which needs CAP_SYS_RESOURCE; the lab gives the container SYS_ADMIN and
# DAC_READ_SEARCH only (and this project's machines cannot grant SYS_RESOURCE at all), so 6.x
# would stop at start. allow_set_io_flusher_fail lets it run without; Ganesha 4.3 (Debian 12)
# does not know the option, so it is added here only.
FROM debian:trixie-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      nfs-ganesha nfs-ganesha-vfs rpcbind dbus python3-dbus \
 && rm -rf /var/lib/apt/lists/*
COPY ganesha.conf dbus-system.conf /etc/ganesha/
RUN sed -i 's/^NFS_CORE_PARAM {$/NFS_CORE_PARAM {\n    allow_set_io_flusher_fail = true;/' /etc/ganesha/ganesha.conf \
 && grep -q 'allow_set_io_flusher_fail = true' /etc/ganesha/ganesha.conf
COPY ganesha-entry nfs-client-stats /usr/local/bin/
CMD ["ganesha-entry"]
