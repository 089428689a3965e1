rchar: 90110757327
wchar: 5981
syscr: 687680
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
