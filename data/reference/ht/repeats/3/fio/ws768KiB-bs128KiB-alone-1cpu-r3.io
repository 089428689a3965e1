rchar: 85809498575
wchar: 5981
syscr: 654864
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
