rchar: 37051542508
wchar: 13654
syscr: 35556
syscw: 5
read_bytes: 4096
write_bytes: 8192
cancelled_write_bytes: 0
