rchar: 30174153171
wchar: 5975
syscr: 230400
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
