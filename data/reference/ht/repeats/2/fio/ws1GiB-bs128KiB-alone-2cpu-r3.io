rchar: 77747039294
wchar: 18969
syscr: 593383
syscw: 5
read_bytes: 4096
write_bytes: 12288
cancelled_write_bytes: 0
