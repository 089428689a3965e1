rchar: 57672272387
wchar: 11285
syscr: 440196
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
