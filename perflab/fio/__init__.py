"""fio: job files and running fio (jobs), reading what fio wrote (logs: JSON output, per-I/O and
histogram logs; scan: the compiled scanner of their lines), and fio's client/server mode (clients: hosts files, the driver, per-host results).
The layer above perflab.config; it knows nothing of containers except the object it is handed."""
