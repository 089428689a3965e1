rchar: 64105155075
wchar: 11285
syscr: 489275
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
