rchar: 31235181009
wchar: 5981
syscr: 238495
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
