rchar: 31337548241
wchar: 5975
syscr: 239276
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
