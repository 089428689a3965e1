rchar: 13115169874
wchar: 13663
syscr: 3202159
syscw: 5
read_bytes: 430080
write_bytes: 12288
cancelled_write_bytes: 0
