"""Infrastructure on the machine: lab images (images), what this machine can run (doctor). The
host-object primitives (perflab.infra.resources: ledger, lock, cleanup; perflab.containers; perflab.zfs;
perflab.infra.slowdisk) belong to this layer too. It stands on config and fio only."""
